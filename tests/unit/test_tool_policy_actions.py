"""The tool policy action by action (browser_<action>): a denied action is refused whichever tool
name asks for it (`browser` with action act as `browser_act`), in single and split mode, is left
out of the tool lists, and closes the HTTP routes that do it (issue 40, item 6)."""

from __future__ import annotations

import jsonschema
import pytest
import requests

from clawd.agent.tool import ACTIONS, BrowserTool
from clawd.agent.toolset import ToolSet
from clawd.config.loader import validate
from clawd.security.tools import ToolPolicy, body_tool
from clawd.server.routes import ROUTES
from tests.support import browser as support
from tests.support.service import RunningService
from tests.unit.test_agent_tool import FakeClient

CLICK = {"action": "act", "kind": "click", "ref": "e1"}


def toolset(split: bool = False, **policy) -> tuple[ToolSet, FakeClient]:
    client = FakeClient()
    return ToolSet(BrowserTool(client), policy=ToolPolicy(**policy), split=split), client


def browser_listing(tools: ToolSet):
    return next(t for t in tools.listed() if t.name == "browser")


# -- the policy -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "allow, deny, actions",
    [
        ((), ("browser_act",), [a for a in ACTIONS if a != "act"]),
        ((), ("browser",), []),
        ((), ("browser_*",), []),
        ((), ("group:browser",), []),
        (("browser_snapshot",), (), ["snapshot"]),
        (("BROWSER_Snapshot", "browser_tabs"), (), ["tabs", "snapshot"]),
        (
            ("browser",),
            ("browser_open", "browser_navigate"),
            [a for a in ACTIONS if a not in ("open", "navigate")],
        ),
        (("web_*",), (), []),
    ],
)
def test_the_policy_allows_browser_actions_one_by_one(allow, deny, actions):
    policy = ToolPolicy(allow, deny)
    assert policy.browser_actions() == actions
    assert [a for a in ACTIONS if policy.allowed(f"browser_{a}")] == actions
    assert policy.allowed("browser") == bool(actions)  # the tool is offered with those actions


def test_split_names_are_valid_config_entries():
    assert (
        validate({"tools": {"deny": ["browser_act", "browser_*"], "allow": ["browser_snapshot"]}})
        == []
    )


# -- the agent tool set, single and split ----------------------------------------------------------
@pytest.mark.parametrize("split", [False, True])
@pytest.mark.parametrize(
    "arguments",
    [
        CLICK,
        {"action": "act", "request": {"kind": "click", "ref": "e1"}},
        {"request": {"action": "act", "kind": "click", "ref": "e1"}},  # OpenClaw's nesting
        {"action": "act", "kind": "no-such-kind", "ref": 5},  # denied before it is checked
        {"action": "open", "url": "https://example.test/"},
        {"action": "navigate", "url": "https://example.test/"},
    ],
)
def test_the_browser_tool_refuses_a_denied_action_in_either_mode(split, arguments):
    tools, client = toolset(split, deny=["browser_act", "browser_open", "browser_navigate"])
    result = tools.run("browser", arguments)
    assert result.is_error and result.code == "TOOL_DENIED", result.text
    assert client.calls == []


def test_a_split_tool_of_a_denied_action_is_refused_and_its_siblings_run():
    tools, client = toolset(True, deny=["browser_act"])
    denied = tools.run("browser_act", {"kind": "click", "ref": "e1"})
    assert denied.is_error and denied.code == "TOOL_DENIED" and client.calls == []
    assert not tools.run("browser_tabs", {}).is_error
    assert not tools.run("browser", {"action": "tabs"}).is_error
    assert [name for name, _, _ in client.calls] == ["tabs", "tabs"]


def test_an_allow_list_of_one_action_runs_only_that_action():
    tools, client = toolset(allow=["browser_snapshot"])
    assert tools.run("browser", {"action": "open", "url": "https://example.test/"}).code == (
        "TOOL_DENIED"
    )
    assert tools.run("browser_tabs", {}).code == "TOOL_DENIED"
    assert not tools.run("browser", {"action": "snapshot"}).is_error
    assert [name for name, _, _ in client.calls] == ["snapshot"]


def test_split_mode_lists_no_tool_for_a_denied_action():
    tools, _ = toolset(True, deny=["browser_act", "browser_pdf"])
    listed = [t.name for t in tools.listed()]
    assert "browser_act" not in listed and "browser_pdf" not in listed
    assert "browser_snapshot" in listed and listed[-2:] == ["web_search", "web_fetch"]
    only, _ = toolset(True, allow=["browser_snapshot"])
    assert [t.name for t in only.listed()] == ["browser_snapshot"]


def test_single_mode_offers_only_the_allowed_actions_and_their_fields():
    listed = browser_listing(toolset(deny=["browser_act"])[0])
    jsonschema.Draft202012Validator.check_schema(listed.schema)
    assert listed.schema["properties"]["action"]["enum"] == [a for a in ACTIONS if a != "act"]
    assert "kind" not in listed.schema["properties"]  # act's own fields went with it
    assert "url" in listed.schema["properties"]  # open's and navigate's stay
    assert "- act:" not in listed.description and "- snapshot:" in listed.description
    only = browser_listing(toolset(allow=["browser_snapshot"])[0])
    assert only.schema["properties"]["action"]["enum"] == ["snapshot"]
    assert "url" not in only.schema["properties"] and "maxChars" in only.schema["properties"]


def test_single_mode_lists_no_browser_tool_when_every_action_is_denied():
    tools, _ = toolset(deny=["browser_*"])
    assert [t.name for t in tools.listed()] == ["web_search", "web_fetch"]
    assert tools.run("browser", {"action": "tabs"}).code == "TOOL_DENIED"


def test_with_every_action_allowed_the_single_tool_is_the_shared_one():
    every = browser_listing(toolset(allow=["browser", "web_*"])[0])
    assert every.schema == browser_listing(toolset()[0]).schema


# -- the HTTP routes ------------------------------------------------------------------------------
def test_every_browser_route_belongs_to_an_action_of_the_browser_tool():
    tags = {r.tool for r in ROUTES if r.tool and r.tool.startswith("browser")}
    assert tags - {"browser"} <= {f"browser_{a}" for a in ACTIONS}
    by_route = {(r.method, r.pattern): r.tool for r in ROUTES}
    assert by_route[("POST", "/act")] == "browser_act"
    assert by_route[("GET", "/snapshot")] == "browser_snapshot"
    assert by_route[("POST", "/tabs/open")] == "browser_open"
    assert by_route[("POST", "/navigate")] == "browser_navigate"
    assert by_route[("POST", "/download")] == "browser_act"  # a download is a click
    whole = sorted(p for (m, p), tool in by_route.items() if tool == "browser")
    assert whole == ["/media/{name}", "/tabs/action"]


@pytest.mark.parametrize(
    "action, tool",
    [
        ("new", "browser_open"),
        ("close", "browser_close"),
        ("select", "browser_focus"),
        ("list", "browser_tabs"),
        ("fly", "browser"),
    ],
)
def test_tabs_action_is_checked_as_the_action_its_body_names(action, tool):
    assert body_tool("POST", "/tabs/action", {"action": action}) == tool
    assert body_tool("POST", "/act", {"action": action}) is None


@pytest.fixture(scope="module")
def denied_act(tmp_path_factory):
    """A service (no browser started) whose config denies browser_act and browser_open."""
    home = tmp_path_factory.mktemp("deny-act")
    config = support.service_config(
        home, extra={"tools": {"deny": ["browser_act", "browser_open"]}}
    )
    running = RunningService(config)
    yield running, {"Authorization": f"Bearer {running.token}"}
    running.close()


@pytest.mark.parametrize(
    "method, path, body",
    [
        ("POST", "/act", {"kind": "click", "ref": "e1"}),
        ("POST", "/act", {"kind": "evaluate", "fn": "() => 1"}),
        ("POST", "/download", {"ref": "e1"}),
        ("POST", "/cookies/set", {"cookie": {"name": "a", "value": "b", "url": "https://x.test/"}}),
        ("POST", "/tabs/open", {"url": "https://example.test/"}),
        ("POST", "/tabs/action", {"action": "new", "url": "https://example.test/"}),
    ],
)
def test_the_routes_of_a_denied_action_answer_403_tool_denied(denied_act, method, path, body):
    running, headers = denied_act
    answer = requests.request(method, running.url + path, json=body, headers=headers, timeout=10)
    assert answer.status_code == 403 and answer.json()["code"] == "TOOL_DENIED", answer.text
    assert answer.json()["tool"].startswith("browser_")
