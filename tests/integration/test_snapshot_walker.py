"""clawd's own walker shows what an agent needs to act (issue 35, part 2): a clickable named only
by its title prints the title, as Playwright's ai mode does; a control inside aria-hidden content
(which still takes a click) gets a line marked [aria-hidden] and a ref; a WebMCP declarative tool
(<form toolname>) says [tool=<name>]. refs=false still reads as Playwright's text."""

from __future__ import annotations

import re

PAGE = "/snapshot/walker.html"


def taken(client, site, tab, **params) -> dict:
    client.navigate(site.url(PAGE), target_id=tab["tabId"])
    return client.request(
        "GET", "/snapshot", params={"targetId": tab["tabId"], "maxChars": 0, **params}
    )


def line_with(text: str, pattern: str) -> re.Match:
    found = re.search(pattern, text, re.MULTILINE)
    assert found, f"no line {pattern!r} in:\n{text}"
    return found


def test_a_clickable_named_only_by_its_title_prints_the_title(client, site, tab):
    body = taken(client, site, tab)
    found = line_with(body["snapshot"], r'^\s*- generic "Prev" \[ref=(e\d+)\] \[cursor=pointer\]$')
    assert body["refs"][found.group(1)]["name"] == "Prev"


def test_a_control_inside_aria_hidden_content_gets_a_marked_line_and_a_ref(client, site, tab):
    body = taken(client, site, tab)
    text = body["snapshot"]
    button = line_with(text, r"^\s*- button \[aria-hidden\] \[ref=(e\d+)\]: Up$")
    link = line_with(text, r"^\s*- link \[aria-hidden\] \[ref=(e\d+)\] \[cursor=pointer\]:$")
    assert body["refs"][button.group(1)]["role"] == "button"
    assert body["refs"][link.group(1)]["role"] == "link"
    assert "decoration only" not in text, "the rest of the hidden content stays out"


def test_the_aria_hidden_control_takes_a_click_by_its_ref(client, site, tab):
    body = taken(client, site, tab)
    ref = line_with(body["snapshot"], r"- button \[aria-hidden\] \[ref=(e\d+)\]").group(1)
    client.act("click", ref=ref, target_id=tab["tabId"])
    clicked = client.act(
        "evaluate",
        fn="() => document.querySelector('.spinner button').dataset.clicked || ''",
        target_id=tab["tabId"],
    )
    assert clicked["result"] == "yes"


def test_a_webmcp_form_tool_says_its_tool_name(client, site, tab):
    body = taken(client, site, tab)
    form = line_with(body["snapshot"], r"^\s*- generic \[tool=search_flights\] \[ref=(e\d+)\]:$")
    assert form.group(1) in body["refs"]


def test_refs_false_prints_none_of_the_ai_marks(client, site, tab):
    text = taken(client, site, tab, refs="false")["snapshot"]
    assert "[aria-hidden]" not in text and "[tool=" not in text and "Up" not in text
