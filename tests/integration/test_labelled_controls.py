"""Bootstrap's .btn-check toggle (the checkbox clipped away, pointer-events:none, its label the
button a person sees): a checkbox with its state and a ref, toggled through its label; a clipped
checkbox with no label gets no ref. On Bootstrap from the npm cache (tests/support/widgets.py)."""

from __future__ import annotations

import re

from tests.integration.test_zoo import page, zoo_site  # noqa: F401 (the zoo's fixtures)
from tests.support.page_eval import wait_until


def _line(snapshot: str, role: str, name: str) -> str:
    found = [line for line in snapshot.splitlines() if f'- {role} "{name}"' in line]
    assert len(found) == 1, snapshot
    return found[0]


def _checked(p, element_id: str) -> bool:
    return p.value(f"document.getElementById({element_id!r}).checked")


def test_a_btn_check_toggle_shows_as_a_checkbox_with_a_ref_and_its_state(page):
    p = page("bootstrap.html")
    assert re.search(r"\[ref=e\d+\]", _line(p.snapshot(), "checkbox", "Bold"))
    assert "[checked]" not in _line(p.snapshot(), "checkbox", "Bold")
    p.act("click", ref=p.ref("checkbox", "Bold"))
    assert _checked(p, "bold") is True
    assert "[checked]" in _line(p.snapshot(), "checkbox", "Bold")


def test_clicking_a_btn_check_ref_toggles_it_both_ways(page):
    p = page("bootstrap.html")
    bold = p.ref("checkbox", "Bold")
    p.act("click", ref=bold)
    assert _checked(p, "bold") is True
    p.act("click", ref=bold)
    assert _checked(p, "bold") is False


def test_check_and_uncheck_of_a_btn_check_ref_reach_the_state_asked(page):
    p = page("bootstrap.html")
    bold = p.ref("checkbox", "Bold")
    assert p.act("check", ref=bold)["changed"] is True
    assert _checked(p, "bold") is True
    assert p.act("uncheck", ref=bold)["changed"] is True
    assert _checked(p, "bold") is False


def test_a_btn_check_is_clicked_on_its_label_even_far_from_where_the_input_sits(page):
    """The clipped input's own box (top left here) is not what a person clicks: its label is."""
    p = page("bootstrap.html")
    p.value(
        "(() => { const input = document.getElementById('bold');"
        " Object.assign(input.style, {top: '0', left: '0'});"
        " document.body.append(input.labels[0]); return true; })()"
    )
    p.act("click", ref=p.ref("checkbox", "Bold"))
    assert _checked(p, "bold") is True


def test_a_clipped_checkbox_without_a_label_gets_no_ref(page):
    p = page("bootstrap.html")
    assert "[ref=" not in _line(p.snapshot(), "checkbox", "Italic")


def test_the_visually_hidden_checkbox_and_the_switch_still_toggle_by_ref(page):
    p = page("bootstrap.html")
    p.act("click", ref=p.ref("checkbox", "Remember me"))
    p.act("click", ref=p.ref("switch", "Wi-Fi"))
    assert (_checked(p, "remember"), _checked(p, "wifi")) == (True, True)
    p.snapshot()
    p.act("uncheck", ref=p.ref("checkbox", "Remember me"))
    assert _checked(p, "remember") is False


def test_a_clipped_checkbox_in_an_iframe_is_clicked_on_its_label(page):
    p = page("bootstrap.html")
    p.value(
        "(() => { const frame = document.createElement('iframe');"
        " frame.id = 'inner'; frame.style.height = '300px';"
        " frame.srcdoc = '<input type=checkbox id=u style=\"position:absolute;top:0;left:0;"
        "clip:rect(0,0,0,0);pointer-events:none\"><div style=\"height:150px\"></div>"
        "<label for=u style=\"padding:8px;border:1px solid\">Underline</label>';"
        " document.body.prepend(frame); return true; })()"
    )
    wait_until(
        lambda: p.value(
            "!!(document.getElementById('inner').contentDocument"
            " && document.getElementById('inner').contentDocument.getElementById('u'))"
        ),
        timeout=10,
        message="the iframe's checkbox loaded",
    )
    p.act("click", ref=p.ref("checkbox", "Underline"))
    assert p.value("document.getElementById('inner').contentDocument.getElementById('u').checked")
