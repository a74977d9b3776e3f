"""A declarative WebMCP tool without toolautosubmit (tests/site/webmcp/booking.html): Chromium
fills its form and waits for a submit, so POST /webmcp/call answers at once that the form was
filled and awaits one (the form's ref, values, submit button), and the agent submits it by
clicking; listing says which kind a tool is (annotations.autosubmit)."""

from __future__ import annotations

import pytest

from clawd.agent.tool import BrowserTool
from clawd.agent.webmcp_tools import PageTools
from clawd.security.content import START
from tests.support.page_eval import evaluate, wait_until
from tests.support.tabs import opened_tab

PAGE = "/webmcp/booking.html"


@pytest.fixture
def booking_tab(client, site):
    with opened_tab(client, site.url(PAGE)) as tab:
        wait_until(
            lambda: any(t["name"] == "book_table" for t in _tools(client, tab["tabId"])),
            message="the booking form's tool listed",
        )
        yield tab


def _tools(client, tab_id: str) -> list[dict]:
    return client.webmcp_tools(tab_id)["tools"]


def test_a_form_tool_without_toolautosubmit_is_listed_without_autosubmit(client, booking_tab):
    (tool,) = _tools(client, booking_tab["tabId"])
    assert tool["declarative"] is True
    assert not tool["annotations"].get("autosubmit")


def test_calling_it_answers_at_once_that_the_form_is_filled_and_awaits_a_submit(
    service, client, booking_tab
):
    tab_id = booking_tab["tabId"]
    answer = client.webmcp_call(
        "book_table", {"name": "Ada", "guests": 4, "pin": "1234"}, tab_id, timeout_ms=20000
    )
    assert answer["ok"] is True and answer["status"] == "AwaitingSubmit"
    assert answer["output"] is None and answer["invocationId"]
    assert answer["form"]["values"] == {"name": "Ada", "guests": "4", "pin": "(hidden)"}
    assert answer["form"]["submit"]["name"] == "Book"
    assert answer["url"].endswith(PAGE)  # not submitted
    seen = evaluate(service, client, tab_id, "window.seen")
    assert "input name" in seen and not any(s.startswith("submit") for s in seen)


def test_with_wrap_the_filled_values_and_the_button_words_are_wrapped(client, booking_tab):
    # the form's values and its submit's words are the page's text (a field may come prefilled)
    answer = client.webmcp_call("book_table", {"name": "Ada"}, booking_tab["tabId"], wrap=True)
    assert answer["form"]["values"]["name"].startswith(f"<<<{START}")
    assert answer["form"]["submit"]["name"].startswith(f"<<<{START}")


def test_the_answer_names_the_refs_a_snapshot_gave_and_clicking_submit_sends_the_form(
    client, booking_tab
):
    tab_id = booking_tab["tabId"]
    snapshot = client.snapshot(target_id=tab_id)["refs"]
    answer = client.webmcp_call("book_table", {"name": "Ada", "guests": 2}, tab_id)
    form = answer["form"]
    assert snapshot[form["ref"]]["role"] == "form"
    assert snapshot[form["submit"]["ref"]] == {"role": "button", "name": "Book"}
    clicked = client.act("click", target_id=tab_id, ref=form["submit"]["ref"])
    assert "/webmcp/results.html?name=Ada&guests=2" in clicked["url"]


def test_a_second_call_fills_only_the_fields_it_gives(client, booking_tab):
    tab_id = booking_tab["tabId"]
    client.webmcp_call("book_table", {"name": "Ada", "guests": 4}, tab_id)
    again = client.webmcp_call("book_table", {"name": "Bob"}, tab_id)
    assert again["status"] == "AwaitingSubmit"
    assert again["form"]["values"]["name"] == "Bob" and again["form"]["values"]["guests"] == "4"


def test_the_agent_is_told_to_review_and_click_submit(client, booking_tab):
    tool = BrowserTool(client)
    tab_id = booking_tab["tabId"]
    listed = tool.run({"action": "webmcp", "targetId": tab_id})
    assert "- book_table [form, filled by the call: you submit it]: Book a table" in listed.text
    client.snapshot(target_id=tab_id)
    called = tool.run(
        {"action": "webmcp", "tool": "book_table", "input": {"name": "Ada"}, "targetId": tab_id}
    )
    assert not called.is_error
    assert "tool book_table: filled form e" in called.text and "not submitted" in called.text
    assert "review it, then click e" in called.text and ' "Book"' in called.text


def test_mcp_describes_the_tool_as_one_that_leaves_the_submit_to_the_agent(client, booking_tab):
    answer = client.webmcp_tools(booking_tab["tabId"])
    (listed,) = PageTools(client).listed(answer)
    assert listed.name == "webmcp_book_table"
    assert "fills the page's form, not submitting it" in listed.description
