"""The tool policy (config tools: {allow, deny}): names, * wildcards, groups, deny wins, an empty
allow list allows all, split browser_<action> tools count as the browser tool."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.config.loader import config_from_data, validate
from clawd.security.tools import ALLOW_ALL, TOOLS, ToolPolicy


@pytest.mark.parametrize(
    "allow, deny, allowed",
    [
        ((), (), {"browser", "web_fetch", "web_search"}),
        (("web_fetch",), (), {"web_fetch"}),
        (("web_*",), (), {"web_fetch", "web_search"}),
        (("group:web",), (), {"web_fetch", "web_search"}),
        (("group:browser",), (), {"browser"}),
        ((), ("group:web",), {"browser"}),
        ((), ("*",), set()),
        (("group:web",), ("web_search",), {"web_fetch"}),  # deny wins
        (("*",), ("group:browser",), {"web_fetch", "web_search"}),
        (("WEB_FETCH",), (), {"web_fetch"}),  # names compare case-insensitively
    ],
)
def test_allow_and_deny(allow, deny, allowed):
    policy = ToolPolicy(allow, deny)
    assert {name for name in TOOLS if policy.allowed(name)} == allowed
    assert policy.offered(TOOLS) == [name for name in TOOLS if name in allowed]


def test_split_browser_tools_follow_the_browser_tool():
    assert not ToolPolicy((), ("browser",)).allowed("browser_open")
    assert ToolPolicy(("group:browser",), ()).allowed("browser_snapshot")
    assert not ToolPolicy(("web_*",), ()).allowed("browser_open")
    assert not ToolPolicy((), ("browser_open",)).allowed("browser_open")
    assert ToolPolicy((), ("browser_open",)).allowed("browser_snapshot")


def test_check_raises_403_tool_denied_naming_the_tool():
    with pytest.raises(errors.ToolDenied) as caught:
        ToolPolicy((), ("web_fetch",)).check("web_fetch")
    assert (caught.value.http_status, caught.value.code) == (403, "TOOL_DENIED")
    assert caught.value.to_dict()["tool"] == "web_fetch"
    ALLOW_ALL.check("web_fetch")


def test_the_policy_comes_from_the_config():
    config = config_from_data({"tools": {"allow": ["group:web"], "deny": ["web_search"]}}, env={})
    policy = ToolPolicy.from_config(config.tools)
    assert policy.offered(TOOLS) == ["web_fetch"]


def test_unknown_groups_and_odd_names_are_config_errors():
    assert validate({"tools": {"allow": ["group:everything"]}})[0].startswith("$.tools.allow[0]")
    assert validate({"tools": {"deny": ["web fetch"]}})[0].startswith("$.tools.deny[0]")
    assert validate({"tools": {"allow": ["group:web", "web_*", "browser"]}}) == []
