"""`clawd-browser mcp` offers the active tab's page tools (WebMCP) as MCP tools `webmcp_<name>`
and says `notifications/tools/list_changed` when they change, checked with the official SDK's
client over stdio against the in-process test service's real Chromium."""

from __future__ import annotations

import os

import pytest

try:
    import anyio
    from mcp import ClientSession, stdio_client
except ImportError:  # like a missing Chromium: a skip on a laptop, a failure in CI
    if os.environ.get("CI"):
        raise
    pytest.skip("the mcp extra is not installed: pip install -e '.[mcp]'", allow_module_level=True)

from clawd.security.content import START  # noqa: E402
from tests.e2e.test_mcp import CALL_TIMEOUT_S, server_params, texts  # noqa: E402
from tests.support.page_eval import evaluate, wait_until  # noqa: E402
from tests.support.tabs import opened_tab  # noqa: E402

CHANGE_TIMEOUT_S = 60  # one long poll (25 s) and its answer, at worst, on a busy machine


def run_notified(params, body):
    """`body(session, notified)` in an initialized SDK session; `notified` is set by the first
    notifications/tools/list_changed the server sends."""

    async def main():
        notified = anyio.Event()

        async def on_message(message):
            if getattr(message, "method", None) == "notifications/tools/list_changed":
                notified.set()

        with anyio.fail_after(150):
            async with stdio_client(params) as (read, write):
                async with ClientSession(
                    read, write, read_timeout_seconds=CALL_TIMEOUT_S, message_handler=on_message
                ) as session:
                    await session.initialize()
                    return await body(session, notified)

    return anyio.run(main)


def test_page_tools_are_mcp_tools_and_a_change_is_announced(service, client, site):
    with opened_tab(client, site.url("/webmcp/tools.html")) as tab:
        tab_id = tab["tabId"]
        wait_until(
            lambda: "frame_echo" in {t["name"] for t in client.webmcp_tools(tab_id)["tools"]},
            message="the page's tools listed",
        )

        async def body(session, notified):
            listed = {t.name: t for t in (await session.list_tools()).tools}
            assert {"webmcp_add", "webmcp_search_flights", "webmcp_frame_echo"} <= set(listed)
            assert "browser" in listed  # beside the page's tools, never instead of them
            add = listed["webmcp_add"]
            assert f"<<<{START}" in add.description and "Add two numbers" in add.description
            assert add.input_schema["required"] == ["a", "b"]
            called = await session.call_tool("webmcp_add", {"a": 2, "b": 3})
            assert not called.is_error and '"sum": 5' in texts(called)
            refused = await session.call_tool("webmcp_add", {"a": "two"})
            assert refused.is_error and "WEBMCP_INPUT_INVALID" in texts(refused)
            assert not notified.is_set()  # nothing changed yet
            # the page drops a tool by itself, outside any MCP call: the watcher sees it
            await anyio.to_thread.run_sync(
                lambda: evaluate(service, client, tab_id, "(unregister('echo'), 1)")
            )
            with anyio.fail_after(CHANGE_TIMEOUT_S):
                await notified.wait()
            after = {t.name for t in (await session.list_tools()).tools}
            return "webmcp_echo" in after, "webmcp_add" in after

        assert run_notified(server_params(service), body) == (False, True)


def test_an_mcp_call_that_leaves_the_page_announces_the_change_at_once(service, client, site):
    with opened_tab(client, site.url("/webmcp/tools.html")) as tab:
        tab_id = tab["tabId"]
        wait_until(
            lambda: "add" in {t["name"] for t in client.webmcp_tools(tab_id)["tools"]},
            message="the page's tools listed",
        )
        results = site.url("/webmcp/results.html")

        async def body(session, notified):
            assert "webmcp_add" in {t.name for t in (await session.list_tools()).tools}
            await session.call_tool("browser", {"action": "navigate", "url": results})
            notice = notified.is_set()  # sent before the call's answer
            after = {t.name for t in (await session.list_tools()).tools}
            return notice, [name for name in after if name.startswith("webmcp_")]

        assert run_notified(server_params(service), body) == (True, [])


def mcp_with_policy(service, tmp_path, tools: str):
    """`clawd-browser mcp` whose own configuration's tool policy is `tools`."""
    params = server_params(service)
    config = tmp_path / "clawd.yaml"
    config.write_text(f"tools: {tools}\n")
    return params.model_copy(update={"env": {**params.env, "CLAWD_CONFIG": str(config)}})


@pytest.mark.parametrize(
    "deny, gone",
    [("[webmcp_echo]", {"webmcp_echo"}), ("[webmcp]", {"webmcp_echo", "webmcp_add"})],
)
def test_the_tool_policy_hides_page_tools_from_mcp(service, client, site, tmp_path, deny, gone):
    with opened_tab(client, site.url("/webmcp/tools.html")) as tab:
        wait_until(
            lambda: "echo" in {t["name"] for t in client.webmcp_tools(tab["tabId"])["tools"]},
            message="the page's tools listed",
        )

        async def body(session, notified):
            listed = {t.name for t in (await session.list_tools()).tools}
            refused = await session.call_tool("webmcp_echo", {"text": "hi"})
            return listed, refused.is_error

        params = mcp_with_policy(service, tmp_path, f"{{deny: {deny}}}")
        listed, refused = run_notified(params, body)
        assert not listed & gone and refused
        assert ("webmcp_add" in listed) == ("webmcp_add" not in gone)


def test_a_2026_client_hears_of_the_change_on_its_listen_stream(service, client, site):
    """The 2026-07-28 wire: change notifications ride a subscriptions/listen stream."""
    from mcp import Client

    with opened_tab(client, site.url("/webmcp/tools.html")) as tab:
        tab_id = tab["tabId"]
        wait_until(
            lambda: "echo" in {t["name"] for t in client.webmcp_tools(tab_id)["tools"]},
            message="the page's tools listed",
        )

        async def main():
            with anyio.fail_after(150):
                async with Client(server_params(service)) as mcp_client:
                    listed = {t.name for t in (await mcp_client.list_tools()).tools}
                    async with mcp_client.listen(tools_list_changed=True) as events:
                        await anyio.to_thread.run_sync(
                            lambda: evaluate(service, client, tab_id, "(unregister('echo'), 1)")
                        )
                        with anyio.fail_after(CHANGE_TIMEOUT_S):
                            async for _ in events:
                                break
                    after = {t.name for t in (await mcp_client.list_tools()).tools}
                    return "webmcp_echo" in listed, "webmcp_echo" in after

        assert anyio.run(main) == (True, False)
