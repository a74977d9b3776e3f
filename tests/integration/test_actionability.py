"""Acts land wherever a person's click would (issue 33, DESIGN.md §8 Actionability): one test
per failure the issue lists (pages under tests/site/act/actionability/, each repro as the issue
gives it), real covers still refused and named, a fading cover waited out, shadow roots."""

from __future__ import annotations

import re

import pytest

from clawd import errors
from tests.support.act import Page, opened_pages

PAGES = "/act/actionability/"


@pytest.fixture
def page(client, site):
    opened = opened_pages(client, site)
    open_page = next(opened)
    yield lambda name: open_page(PAGES + name)
    next(opened, None)


def ref_on_line(page: Page, text: str) -> str:
    """The ref on the snapshot line that shows `text` (a role-less clickable has no name)."""
    for line in page.snapshot().splitlines():
        found = re.search(r"\[ref=(e\d+)\]", line)
        if text in line and found:
            return found.group(1)
    raise AssertionError(f"no ref'd line shows {text!r}")


# -- the failures, one each -----------------------------------------------------------
def test_1_an_icon_buttons_own_pseudo_element_is_the_button(page):
    p = page("icons.html")
    p.act("click", ref=p.ref("button", "Delete todo"))  # its ::after draws the ×
    p.act("click", ref=p.ref("button", "Trash"))  # an icon font: its <i>'s ::before
    assert p.text("log") == "deleted trashed "


def test_2_a_pointer_events_none_label_over_its_checkbox_is_clicked_through(page):
    p = page("label-over.html")
    result = p.act("check", ref=p.ref("checkbox", "Newsletter"))
    assert result["changed"] is True
    assert p.value("document.getElementById('news').checked") is True


def test_2_a_click_on_the_checkboxs_own_label_drawn_over_it_reaches_it(page):
    p = page("label-over.html")
    p.act("click", ref=p.ref("checkbox", "Terms"))
    assert p.value("document.getElementById('terms').checked") is True


def test_3_an_element_clipped_by_its_scroll_box_is_scrolled_into_it(page):
    p = page("scroll-box.html")
    p.act("click", ref=ref_on_line(p, "Open me"))
    assert p.text("out") == "opened"
    assert p.value("document.getElementById('box').scrollTop") > 0


def test_3_nested_scroll_boxes_are_each_scrolled(page):
    p = page("scroll-box.html")
    p.act("click", ref=p.ref("button", "Deep inside"))
    assert p.text("out") == "nested"
    tops = "['outer', 'inner'].map(id => document.getElementById(id).scrollTop)"
    assert all(top > 0 for top in p.value(tops))


def test_4_a_cover_fading_out_is_waited_for(page):
    """A day is clicked, the datepicker fades for 400 ms over Submit; Submit, clicked at once
    (the next action of the same batch), waits for the fade to end."""
    p = page("datepicker.html")
    result = p.act(
        "batch",
        actions=[
            {"kind": "click", "ref": p.ref("link", "14")},
            {"kind": "click", "ref": p.ref("button", "Submit")},
        ],
    )
    assert [r.get("code") for r in result["results"]] == [None, None], result["results"]
    assert p.text("out") == "submitted 2025-01-14"


def test_5_select_does_not_focus_the_select_first(page):
    p = page("select-focus.html")
    result = p.act("select", ref=p.ref("combobox", "Size"), values=["Large"])
    assert result["selected"] == ["l"]
    assert p.value("events") == ["input:l", "change:l"]  # both bubbled to the document
    assert p.value("document.activeElement.id") != "size"
    assert p.value("document.getElementById('list').hidden") is True  # never opened
    p.act("click", ref=p.ref("button", "Continue"))
    assert p.value("events")[-1] == "next"


def test_6_scroll_into_view_brings_a_disabled_field_into_view(page):
    p = page("disabled-far.html")
    p.act("scrollIntoView", ref=p.ref("textbox", "Account number"))
    assert p.value(
        "(() => { const r = document.getElementById('account').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; })()"
    )


def test_6_a_disabled_field_can_be_highlighted_too(page):
    """Showing an element is no act on it: highlight takes a disabled one, as scrollIntoView."""
    p = page("disabled-far.html")
    shown = p.client.highlight(p.ref("textbox", "Account number"), target_id=p.id)
    assert shown["ok"] is True


def test_7_a_role_less_cover_is_named_by_its_tag_class_and_words(page):
    p = page("misnamed.html")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=p.ref("button", "Checkout"), timeout_ms=1500)
    message = caught.value.message
    assert 'covered by div.cookie-wall "We use cookies to make this…"' in message, message
    assert "waited" in message and "main" not in message and "RootWebArea" not in message
    assert "Checkout" not in message.split("covered by", 1)[1]  # never the target itself
    assert caught.value.details["covering"]["selector"] == "div.cookie-wall"
    assert p.text("checkout") == "Checkout"  # nothing was clicked


def test_7_an_element_its_box_cannot_scroll_to_is_said_to_be_clipped(page):
    p = page("misnamed.html")
    p.value("document.querySelector('.cookie-wall').remove()")
    with pytest.raises(errors.ActElementHidden) as caught:
        p.act("click", ref=p.ref("button", "Hidden away"), timeout_ms=1500)
    assert "clipped by div#drawer.panel" in caught.value.message, caught.value.message
    assert caught.value.details["reason"] == "clipped"


# -- real covers are still refused --------------------------------------------------------------
def test_a_modal_and_a_toast_over_buttons_are_refused_and_named(page):
    p = page("covers.html")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=p.ref("button", "Buy now"), timeout_ms=1500)
    assert "covered by dialog 'Sign in'" in caught.value.message, caught.value.message
    covering = caught.value.details["covering"]
    assert (covering["role"], covering["name"]) == ("dialog", "Sign in")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=p.ref("button", "Save"), timeout_ms=1500)
    assert 'covered by status div.toast "Saved your draft"' in caught.value.message
    assert p.value("clicked") == []


def test_a_fading_backdrop_is_waited_out_and_the_click_lands_after_it(page):
    p = page("fade.html")
    p.act("click", ref=p.ref("button", "No thanks"))  # the backdrop fades for 400 ms
    p.act("click", ref=p.ref("button", "Buy now"))
    assert p.value("events") == ["faded", "bought"]


# -- shadow roots ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["Open settings", "Close panel"])
def test_icon_buttons_in_open_and_closed_shadow_roots_are_clicked(page, name):
    p = page("shadow.html")
    p.act("click", ref=p.ref("button", name))
    assert p.text("log") == name + " "


def test_a_box_of_the_page_over_an_iframes_button_is_refused_and_named(page):
    p = page("frame-covered.html")
    pay = p.ref("button", "Pay")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=pay, timeout_ms=1500)
    assert 'covered by div#sheet.sheet "Loading your basket"' in caught.value.message
    p.value("document.getElementById('sheet').remove()")
    p.act("click", ref=pay)
    paid = "document.querySelector('iframe').contentDocument.querySelector('button').textContent"
    assert p.value(paid) == "paid"


# -- stable ---------------------------------------------------------------------------------------
def test_an_element_that_never_stops_moving_times_out_saying_so(page):
    p = page("wiggle.html")
    with pytest.raises(errors.ActTimeout) as caught:
        p.act("click", ref=p.ref("button", "Catch me"), timeout_ms=1000)
    assert "kept moving" in caught.value.message
    assert p.text("shy") == "Catch me"
