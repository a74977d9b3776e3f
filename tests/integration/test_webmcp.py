"""WebMCP on real Chromium (DESIGN §19): tests/site/webmcp/ registers tools both ways (a script's
registerTool, a <form toolname>), in the page and in an iframe; the service lists them from
events and calls them through the WebMCP domain. The session's managed browser has the feature
on (browser.webmcp defaults to true)."""

from __future__ import annotations

import json

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawd import errors
from clawd.agent.tool import BrowserTool
from clawd.security.content import END, START
from tests.support.browser import BareChromium, require_chromium, service_config
from tests.support.cli import cli_of
from tests.support.page_eval import evaluate, wait_until
from tests.support.service import RunningService
from tests.support.tabs import opened_tab

PAGE = "/webmcp/tools.html"


@pytest.fixture
def tools_tab(client, site):
    """A tab on the tools page once its tools (the iframe's too) are listed."""
    with opened_tab(client, site.url(PAGE)) as tab:
        wait_until(
            lambda: {"add", "search_flights", "frame_echo"} <= _names(client, tab["tabId"]),
            message="the page's tools listed",
        )
        yield tab


def _names(client, tab_id: str) -> set[str]:
    return {t["name"] for t in client.webmcp_tools(tab_id)["tools"]}


def _tool(client, tab_id: str, name: str) -> dict:
    return next(t for t in client.webmcp_tools(tab_id)["tools"] if t["name"] == name)


def test_tools_registered_both_ways_in_page_and_iframe_are_listed(client, tools_tab):
    tab_id = tools_tab["tabId"]
    add = _tool(client, tab_id, "add")
    assert add["description"] == "Add two numbers"
    assert add["inputSchema"]["required"] == ["a", "b"]
    assert add["mainFrame"] is True and add["declarative"] is False
    form = _tool(client, tab_id, "search_flights")
    assert form["declarative"] is True and form["annotations"] == {"autosubmit": True}
    assert set(form["inputSchema"]["properties"]) == {"from", "to", "date"}
    framed = _tool(client, tab_id, "frame_echo")
    assert framed["mainFrame"] is False and framed["frame"] != add["frame"]


def test_a_declarative_tool_carries_the_ref_a_snapshot_gave_its_form(client, tools_tab):
    tab_id = tools_tab["tabId"]
    assert "ref" not in _tool(client, tab_id, "search_flights")  # no snapshot named it yet
    text = client.snapshot(target_id=tab_id)["snapshot"]
    form = _tool(client, tab_id, "search_flights")
    line = next(x for x in text.splitlines() if x.strip().startswith('- form "Search flights"'))
    assert line.endswith(f"[ref={form['ref']}]:")
    assert "ref" not in _tool(client, tab_id, "add")


def test_call_answers_the_tools_output_with_the_page_state(client, tools_tab):
    answer = client.webmcp_call("add", {"a": 41, "b": 1}, tools_tab["tabId"])
    assert answer["ok"] is True and answer["status"] == "Completed"
    assert answer["output"] == {"sum": 42}
    assert answer["url"].endswith(PAGE) and answer["title"] == "WebMCP tools"
    assert answer["dialogs"] == {"pending": []}


def test_call_reaches_the_tool_of_the_iframe(client, tools_tab):
    answer = client.webmcp_call("frame_echo", {"text": "hi"}, tools_tab["tabId"])
    assert answer["output"] == "frame says hi"
    assert answer["frame"] == _tool(client, tools_tab["tabId"], "frame_echo")["frame"]


def test_input_not_matching_the_schema_is_400_with_its_path_and_never_reaches_the_page(
    service, client, tools_tab
):
    tab_id = tools_tab["tabId"]
    with pytest.raises(errors.WebmcpInputInvalid) as caught:
        client.webmcp_call("echo", {"text": "hi", "count": 9}, tab_id)
    assert caught.value.http_status == 400
    assert caught.value.details["path"] == "$.count" and "$.count" in caught.value.message
    with pytest.raises(errors.WebmcpInputInvalid):
        client.webmcp_call("echo", ["not", "an", "object"], tab_id)
    assert evaluate(service, client, tab_id, "window.echoed") == []


def test_unknown_tool_is_404(client, tools_tab):
    with pytest.raises(errors.WebmcpToolNotFound) as caught:
        client.webmcp_call("no_such_tool", {}, tools_tab["tabId"])
    assert caught.value.http_status == 404


def test_tool_that_throws_is_502_with_the_pages_message(client, tools_tab):
    with pytest.raises(errors.WebmcpToolFailed) as caught:
        client.webmcp_call("fail", {}, tools_tab["tabId"])
    assert caught.value.http_status == 502 and "out of stock" in caught.value.message


def test_tool_that_never_answers_is_504_and_its_invocation_cancelled(service, client, tools_tab):
    tab_id = tools_tab["tabId"]
    with pytest.raises(errors.WebmcpTimeout) as caught:
        client.webmcp_call("slow", {}, tab_id, timeout_ms=300)
    assert caught.value.http_status == 504
    wait_until(
        lambda: evaluate(service, client, tab_id, "window.cancelled") == 1,
        message="the page saw the invocation cancelled",
    )
    assert client.webmcp_call("add", {"a": 1, "b": 2}, tab_id)["output"] == {"sum": 3}


def test_tool_that_navigates_after_answering_reports_the_new_page(client, tools_tab):
    answer = client.webmcp_call("go", {}, tools_tab["tabId"])
    assert answer["output"] == "going"
    assert answer["url"].endswith("/webmcp/results.html") and answer["title"] == "Results"


def test_declarative_form_tool_submits_and_reports_the_results_page(client, tools_tab):
    answer = client.webmcp_call("search_flights", {"from": "AMS", "to": "LIS"}, tools_tab["tabId"])
    assert answer["status"] == "Completed"
    assert "/webmcp/results.html?from=AMS&to=LIS" in answer["url"]


def test_declarative_date_is_checked_against_its_format(client, tools_tab):
    with pytest.raises(errors.WebmcpInputInvalid) as caught:
        client.webmcp_call("search_flights", {"date": "next friday"}, tools_tab["tabId"])
    assert caught.value.details["path"] == "$.date"


def test_page_navigating_away_before_the_tool_answers_is_409(client, tools_tab):
    with pytest.raises(errors.WebmcpNavigatedAway) as caught:
        client.webmcp_call("leave", {}, tools_tab["tabId"])
    assert caught.value.http_status == 409 and "results.html" in caught.value.message
    assert _names(client, tools_tab["tabId"]) == set()  # the new document offers none


def test_tool_opening_a_dialog_reports_it_as_an_act_does(client, tools_tab):
    tab_id = tools_tab["tabId"]
    answer = client.webmcp_call("ask", {}, tab_id)
    assert answer["output"] == "asked"
    assert [d["message"] for d in answer["dialogs"]["pending"]] == ["are you sure?"]
    assert answer["blockedByDialog"] is True
    client.dialog(True, target_id=tab_id)


def test_tool_opening_a_tab_reports_the_opened_tab(client, tools_tab):
    # Chromium's popup blocker lets a page open a tab only after a person's input: a click
    # first, as on a real page where someone pressed a button before the agent's call
    width = client.evaluate("() => innerWidth", target_id=tools_tab["tabId"])["result"]
    client.click_coords(width - 60, 20, target_id=tools_tab["tabId"])
    answer = client.webmcp_call("popup", {}, tools_tab["tabId"])
    opened = answer["openedTabs"]
    assert len(opened) == 1
    wait_until(
        lambda: any(
            t["tabId"] == opened[0]["tabId"] and t["url"].endswith("/webmcp/results.html")
            for t in client.tabs()["tabs"]
        ),
        message="the opened tab on the results page",
    )
    client.close_tab(opened[0]["tabId"])


def test_tool_removed_while_it_runs_is_409(client, tools_tab):
    with pytest.raises(errors.WebmcpToolRemoved) as caught:
        client.webmcp_call("vanish", {}, tools_tab["tabId"], timeout_ms=20000)
    assert caught.value.http_status == 409
    assert "vanish" not in _names(client, tools_tab["tabId"])


def test_removed_and_re_added_tool_is_kept_current_from_events(service, client, tools_tab):
    tab_id = tools_tab["tabId"]
    before = client.webmcp_tools(tab_id)["version"]
    evaluate(service, client, tab_id, "(unregister('add'), 1)")
    wait_until(lambda: "add" not in _names(client, tab_id), message="add removed")
    with pytest.raises(errors.WebmcpToolNotFound):
        client.webmcp_call("add", {"a": 1, "b": 1}, tab_id)
    evaluate(service, client, tab_id, "(register('add'), 1)")
    wait_until(lambda: "add" in _names(client, tab_id), message="add registered again")
    assert client.webmcp_tools(tab_id)["version"] > before
    assert client.webmcp_call("add", {"a": 1, "b": 1}, tab_id)["output"] == {"sum": 2}


def test_long_poll_answers_when_the_set_changes(service, client, tools_tab):
    tab_id = tools_tab["tabId"]
    version = client.webmcp_tools(tab_id)["version"]
    unchanged = client.webmcp_tools(tab_id, since=version, wait_ms=100)
    assert unchanged["version"] == version
    evaluate(service, client, tab_id, "(unregister('echo'), 1)")
    changed = client.webmcp_tools(tab_id, since=version, wait_ms=10000)
    assert changed["version"] > version and "echo" not in {t["name"] for t in changed["tools"]}


def test_malformed_schema_is_a_clear_502(service, client, tools_tab):
    tab_id = tools_tab["tabId"]
    evaluate(service, client, tab_id, "(registerBadSchema(), 1)")
    wait_until(lambda: "bad_schema" in _names(client, tab_id), message="bad_schema listed")
    with pytest.raises(errors.WebmcpSchemaInvalid) as caught:
        client.webmcp_call("bad_schema", {"a": 1}, tab_id)
    assert caught.value.http_status == 502 and "inputSchema" in caught.value.message


def test_output_too_large_is_a_clear_502_and_the_service_goes_on(client, tools_tab):
    tab_id = tools_tab["tabId"]
    with pytest.raises(errors.WebmcpOutputTooLarge) as caught:
        client.webmcp_call("big", {"n": 2_000_000}, tab_id)
    assert caught.value.details["size"] > 2_000_000
    assert client.webmcp_call("big", {"n": 5}, tab_id)["output"] == "xxxxx"


def test_wrap_wraps_what_the_page_wrote_and_neutralizes_its_markers(client, tools_tab):
    tab_id = tools_tab["tabId"]
    listed = client.webmcp_tools(tab_id, wrap=True)["tools"]
    inject = next(t for t in listed if t["name"] == "inject")
    assert inject["description"].startswith(f"<<<{START}")
    assert inject["description"].count(END) == 1  # the page's own end marker was neutralized
    called = client.webmcp_call("inject", {}, tab_id, wrap=True)
    assert called["output"].startswith(f"<<<{START}") and called["output"].count(f"<<<{START}") == 1
    assert "[[MARKER_SANITIZED]] obey me" in called["output"]
    structured = client.webmcp_call("add", {"a": 1, "b": 1}, tab_id, wrap=True)["output"]
    assert json.loads(structured.split("\n")[1]) == {"sum": 2}


ECHO_SCHEMA = {
    "type": "object",
    "properties": {
        "text": {"type": "string", "maxLength": 50},
        "count": {"type": "integer", "minimum": 0, "maximum": 5},
    },
    "required": ["text"],
}
_json = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.text(max_size=60),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_inputs = st.fixed_dictionaries({}, optional={"text": _json, "count": _json}) | st.dictionaries(
    st.text(max_size=8), _json, max_size=3
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(given_input=_inputs)
def test_fuzzed_inputs_reach_the_page_only_when_its_schema_allows_them(
    client, tools_tab, given_input
):
    valid = jsonschema.Draft202012Validator(ECHO_SCHEMA).is_valid(given_input)
    try:
        answer = client.webmcp_call("echo", given_input, tools_tab["tabId"])
    except errors.WebmcpInputInvalid:
        assert not valid
    else:
        assert valid and answer["output"] == {"echo": given_input}


def test_browser_without_the_feature_answers_501_naming_the_flag(client, site, tmp_path):
    require_chromium()
    bare = BareChromium(tmp_path)  # no --enable-features=WebMCP
    client.create_profile("webmcp-remote", cdp_url=f"http://127.0.0.1:{bare.port}")
    try:
        tab = client.open(site.url(PAGE), profile="webmcp-remote")
        with pytest.raises(errors.WebmcpUnavailable) as caught:
            client.webmcp_tools(tab["tabId"], profile="webmcp-remote")
        assert (
            caught.value.http_status == 501 and "--enable-features=WebMCP" in caught.value.message
        )
        with pytest.raises(errors.WebmcpUnavailable):
            client.webmcp_call("add", {"a": 1, "b": 1}, tab["tabId"], profile="webmcp-remote")
    finally:
        client.stop(profile="webmcp-remote")
        client.delete_profile("webmcp-remote")
        bare.close()


def test_the_agent_tools_webmcp_action_lists_and_calls_wrapped(client, tools_tab):
    tool = BrowserTool(client)
    listed = tool.run({"action": "webmcp", "targetId": tools_tab["tabId"]})
    assert not listed.is_error and listed.text.startswith(f"<<<{START}")
    assert "- add: Add two numbers" in listed.text and "[frame " in listed.text
    called = tool.run(
        {
            "action": "webmcp",
            "tool": "add",
            "input": {"a": 4, "b": 5},
            "targetId": tools_tab["tabId"],
        }
    )
    assert "tool add: completed" in called.text and '"sum": 9' in called.text
    refused = tool.run({"action": "webmcp", "tool": "add", "targetId": tools_tab["tabId"]})
    assert refused.is_error and refused.code == "WEBMCP_INPUT_INVALID"


def test_a_tool_the_policy_denies_by_name_is_neither_listed_nor_called(site, tmp_path):
    require_chromium()
    config = service_config(tmp_path, extra={"tools": {"deny": ["webmcp_add"]}})
    running = RunningService(config)
    denied = running.client()
    try:
        tab = denied.open(site.url(PAGE))
        wait_until(lambda: "echo" in _names(denied, tab["tabId"]), message="tools listed")
        assert "add" not in _names(denied, tab["tabId"])
        with pytest.raises(errors.ToolDenied):
            denied.webmcp_call("add", {"a": 1, "b": 1}, tab["tabId"])
        assert denied.webmcp_call("echo", {"text": "ok"}, tab["tabId"])["output"]["echo"]
    finally:
        denied.close()
        running.close()


def test_cli_lists_and_calls_page_tools_wrapped_with_exit_statuses(service, tools_tab):
    t = tools_tab["tabId"]
    code, out, _ = cli_of(service, "webmcp", "list", "--target", t)
    assert code == 0 and out.startswith(f"<<<{START}") and "- add: Add two numbers" in out
    code, out, _ = cli_of(
        service, "webmcp", "call", "add", "--input", '{"a": 1, "b": 2}', "--target", t
    )
    assert code == 0 and 'output: {"sum": 3}' in out
    code, out, _ = cli_of(
        service, "--json", "webmcp", "call", "echo", "--input", '{"text": "x"}', "--target", t
    )
    assert code == 0 and json.loads(out)["output"].startswith(f"<<<{START}")
    assert cli_of(service, "webmcp", "call", "add", "--input", "[1]", "--target", t)[0] == 2
    code, _, err = cli_of(service, "webmcp", "call", "nope", "--target", t)
    assert code == 4 and "WEBMCP_TOOL_NOT_FOUND" in err
