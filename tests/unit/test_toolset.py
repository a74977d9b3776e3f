"""The agent's tool set: browser (single or split) beside web_fetch and web_search, listed and run
as the tool policy (tools.allow/deny) says; and the HTTP routes of a denied tool."""

from __future__ import annotations

import requests

from clawd.agent.tool import BrowserTool
from clawd.agent.toolset import ToolSet
from clawd.security.tools import ToolPolicy
from tests.support import browser as support
from tests.support.service import RunningService
from tests.unit.test_agent_tool import FakeClient


def names(toolset: ToolSet) -> list[str]:
    return [tool.name for tool in toolset.listed()]


def test_every_tool_is_listed_when_the_policy_allows_all():
    assert names(ToolSet(BrowserTool(FakeClient()))) == ["browser", "web_search", "web_fetch"]
    split = names(ToolSet(BrowserTool(FakeClient()), split=True))
    assert split[-2:] == ["web_search", "web_fetch"] and "browser_snapshot" in split


def test_denied_tools_are_not_listed_and_answer_tool_denied():
    client = FakeClient()
    toolset = ToolSet(BrowserTool(client), policy=ToolPolicy(deny=["group:web"]))
    assert names(toolset) == ["browser"]
    result = toolset.run("web_fetch", {"url": "https://example.test/"})
    assert result.is_error and result.code == "TOOL_DENIED" and client.calls == []


def test_an_allow_list_offers_only_its_tools_split_browser_included():
    toolset = ToolSet(BrowserTool(FakeClient()), policy=ToolPolicy(allow=["web_*"]), split=True)
    assert names(toolset) == ["web_search", "web_fetch"]
    denied = toolset.run("browser_tabs", {})
    assert denied.is_error and denied.code == "TOOL_DENIED"


def test_an_unknown_tool_is_an_invalid_request_result():
    result = ToolSet(BrowserTool(FakeClient())).run("browser_fly", {})
    assert result.is_error and result.code == "INVALID_REQUEST"


def test_a_denied_browser_tool_closes_its_http_routes_but_not_status(tmp_path):
    config = support.service_config(tmp_path / "home", extra={"tools": {"deny": ["browser"]}})
    running = RunningService(config)
    try:
        headers = {"Authorization": f"Bearer {running.token}"}
        tabs = requests.get(running.url + "/tabs", headers=headers, timeout=10)
        assert tabs.status_code == 403 and tabs.json()["code"] == "TOOL_DENIED", tabs.text
        assert requests.get(running.url + "/", headers=headers, timeout=10).ok
        assert requests.get(running.url + "/doctor", headers=headers, timeout=10).ok
    finally:
        running.close()
