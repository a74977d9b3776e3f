"""`clawd-browser mcp` as an MCP client runs it: a subprocess on stdio, driven by the official SDK's
own client. It talks to the in-process test service (its URL and token passed as --url and
$CLAWD_TOKEN): list tools, open a page served on 127.0.0.1, snapshot, click a ref, read the
result."""

from __future__ import annotations

import base64
import os
import pathlib
import re
import sys

import pytest

try:
    import anyio
    from mcp import ClientSession, StdioServerParameters, stdio_client
except ImportError:  # like a missing Chromium: a skip on a laptop, a failure in CI
    if os.environ.get("CI"):
        raise
    pytest.skip("the mcp extra is not installed: pip install -e '.[mcp]'", allow_module_level=True)

from clawd.agent.tool import ACTIONS  # noqa: E402
from clawd.security.content import START  # noqa: E402
from tests.support.browser import free_port  # noqa: E402

REPO = pathlib.Path(__file__).resolve().parents[2]
CALL_TIMEOUT_S = 60


def server_params(service, *extra: str) -> StdioServerParameters:
    return stdio_params(service.url, service.token, service.config.home, *extra)


def stdio_params(url: str, token: str, home: pathlib.Path, *extra: str) -> StdioServerParameters:
    env = {"CLAWD_TOKEN": token, "CLAWD_HOME": str(home), "PYTHONPATH": str(REPO)}
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawd", "--url", url, "mcp", *extra],
        env=env,
        cwd=str(REPO),
    )


def run_session(params: StdioServerParameters, body):
    """Run `body(session)` inside an initialized SDK client session; return what it returns."""

    async def main():
        with anyio.fail_after(120):
            async with stdio_client(params) as (read, write):
                async with ClientSession(
                    read, write, read_timeout_seconds=CALL_TIMEOUT_S
                ) as session:
                    await session.initialize()
                    return await body(session)

    return anyio.run(main)


def texts(result) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


def test_single_tool_lists_one_browser_tool_and_runs_open_snapshot_click_snapshot(
    service, client, site
):
    url = site.url("/act/forms.html")

    async def body(session):
        listed = await session.list_tools()
        opened = await session.call_tool(
            "browser", {"action": "open", "url": url, "label": "mcp-forms"}
        )
        first = await session.call_tool("browser", {"action": "snapshot", "targetId": "mcp-forms"})
        ref = re.search(r'button "Count" \[ref=(e\d+)\]', texts(first))[1]
        clicked = await session.call_tool(
            "browser", {"action": "act", "kind": "click", "ref": ref, "targetId": "mcp-forms"}
        )
        second = await session.call_tool("browser", {"action": "snapshot", "targetId": "mcp-forms"})
        closed = await session.call_tool("browser", {"action": "close", "targetId": "mcp-forms"})
        return listed, opened, first, clicked, second, closed

    listed, opened, first, clicked, second, closed = run_session(server_params(service), body)
    tool, *web = listed.tools
    assert tool.name == "browser" and [t.name for t in web] == ["web_search", "web_fetch"]
    assert tool.input_schema["properties"]["action"]["enum"] == list(ACTIONS)
    assert not opened.is_error, texts(opened)
    assert "Forms" in texts(opened) and url in texts(opened)
    assert texts(first).startswith(f"<<<{START}")
    assert '- paragraph [ref=e' in texts(first) and '"clicks: 0"' in texts(first)
    assert not clicked.is_error, texts(clicked)
    assert '"clicks: 1"' in texts(second)  # the click reached the page
    assert "closed" in texts(closed)


def test_errors_come_back_as_tool_results_with_their_code(service, client, site):
    async def body(session):
        stale = await session.call_tool(
            "browser", {"action": "act", "kind": "click", "ref": "e9999"}
        )
        bad = await session.call_tool("browser", {"action": "navigate"})
        unknown = await session.call_tool("browser_nothing", {})
        return stale, bad, unknown

    stale, bad, unknown = run_session(server_params(service), body)
    assert stale.is_error and "error REF_UNKNOWN" in texts(stale)
    assert bad.is_error and "error INVALID_REQUEST: navigate needs url" in texts(bad)
    assert unknown.is_error and "unknown tool 'browser_nothing'" in texts(unknown)


def test_screenshot_arrives_as_an_image_block_within_1568_px(service, client, site):
    tab = client.open(site.url("/long.html"))

    async def body(session):
        return await session.call_tool(
            "browser", {"action": "screenshot", "targetId": tab["tabId"], "fullPage": True}
        )

    try:
        result = run_session(server_params(service), body)
    finally:
        client.close_tab(tab["tabId"])
    assert not result.is_error, texts(result)
    [image] = [block for block in result.content if block.type == "image"]
    data = base64.b64decode(image.data)
    assert image.mime_type == "image/png" and data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert max(width, height) == 1568  # long.html is taller than that: scaled to the cap
    assert f"{width}x{height}" in texts(result)


def test_split_tools_offer_one_tool_per_action_each_with_its_own_schema(service, client, site):
    url = site.url("/index.html")

    async def body(session):
        listed = await session.list_tools()
        opened = await session.call_tool("browser_open", {"url": url})
        tab_id = re.search(r"opened (t\d+)", texts(opened))[1]
        tabs = await session.call_tool("browser_tabs", {})
        closed = await session.call_tool("browser_close", {"targetId": tab_id})
        wrong = await session.call_tool("browser_open", {"action": "open", "url": url})
        return listed, tab_id, tabs, closed, wrong

    listed, tab_id, tabs, closed, wrong = run_session(
        server_params(service, "--tools", "split"), body
    )
    by_name = {tool.name: tool for tool in listed.tools}
    assert sorted(by_name) == sorted(
        [f"browser_{action}" for action in ACTIONS] + ["web_fetch", "web_search"]
    )
    assert by_name["browser_open"].input_schema["required"] == ["url"]
    assert "targetId" not in by_name["browser_open"].input_schema["properties"]
    assert by_name["browser_focus"].input_schema["required"] == ["targetId"]
    assert f"* {tab_id} " in texts(tabs)
    assert f"closed {tab_id}" in texts(closed)
    assert wrong.is_error and "action" in texts(wrong)  # split tools take no action field


def test_without_a_service_the_tool_says_so_and_the_server_keeps_serving(tmp_path):
    nowhere = f"http://127.0.0.1:{free_port()}"  # nothing listens there

    async def body(session):
        first = await session.call_tool("browser", {"action": "status"})
        second = await session.call_tool("browser", {"action": "tabs"})
        return first, second

    first, second = run_session(stdio_params(nowhere, "unused", tmp_path), body)
    assert first.is_error and "error SERVICE_UNREACHABLE" in texts(first)
    assert second.is_error and "clawd-browser serve" in texts(second)


def test_autostart_starts_a_service_for_the_mcp_server(tmp_path):
    from tests.e2e.test_autostart import Setup
    from tests.support.browser import require_chromium

    require_chromium()
    setup = Setup(tmp_path)
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawd", "--autostart", "mcp"],
        env={k: v for k, v in setup.env.items() if k in ("CLAWD_HOME", "CLAWD_CONFIG", "PATH")}
        | {"PYTHONPATH": str(REPO)},
        cwd=str(REPO),
    )

    async def body(session):
        return await session.call_tool("browser", {"action": "status"})

    try:
        result = run_session(params, body)
        assert not result.is_error, texts(result)
        assert "profile clawd (managed)" in texts(result)
        assert len(setup.services()) == 1
    finally:
        setup.stop_services()
    assert os.path.exists(setup.config.home / "auth-token")


@pytest.mark.parametrize("form", ["separate-words", "equals", "files", "environment"])
def test_the_mcp_server_launches_with_a_token_and_password_that_begin_with_a_dash(tmp_path, form):
    """An MCP client's config lists args word by word: `["--token", "-AbC...", "mcp"]` must work."""
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    token, password = "-dash-token-for-mcp", "--dash-password-for-mcp"
    running = RunningService(
        service_config(
            tmp_path / "home", extra={"server": {"auth": {"token": token, "password": password}}}
        )
    )
    (tmp_path / "token").write_text(token + "\n")
    (tmp_path / "password").write_text(password + "\n")
    flags, env = {
        "separate-words": (["--token", token, "--password", password], {}),
        "equals": ([f"--token={token}", f"--password={password}"], {}),
        "files": (
            [
                "--token-file",
                str(tmp_path / "token"),
                "--password-file",
                str(tmp_path / "password"),
            ],
            {},
        ),
        "environment": ([], {"CLAWD_TOKEN": token, "CLAWD_PASSWORD": password}),
    }[form]
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawd", "--url", running.url, *flags, "mcp"],
        env={"CLAWD_HOME": str(tmp_path / "empty"), "PYTHONPATH": str(REPO), **env},
        cwd=str(REPO),
    )

    async def body(session):
        return await session.call_tool("browser", {"action": "profiles"})

    try:
        result = run_session(params, body)
    finally:
        running.close()
    assert not result.is_error, texts(result)
    assert "clawd" in texts(result)


def test_the_tool_policy_of_the_config_decides_what_the_mcp_server_offers(service, tmp_path):
    config = tmp_path / "clawd.yaml"
    config.write_text("tools:\n  deny: [group:web]\n")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "clawd", "--url", service.url, "mcp"],
        env={
            "CLAWD_TOKEN": service.token,
            "CLAWD_HOME": str(service.config.home),
            "CLAWD_CONFIG": str(config),
            "PYTHONPATH": str(REPO),
        },
        cwd=str(REPO),
    )

    async def body(session):
        listed = await session.list_tools()
        denied = await session.call_tool("web_fetch", {"url": "https://example.test/"})
        return listed, denied

    listed, denied = run_session(params, body)
    assert [tool.name for tool in listed.tools] == ["browser"]
    assert denied.is_error and "error TOOL_DENIED" in texts(denied)
