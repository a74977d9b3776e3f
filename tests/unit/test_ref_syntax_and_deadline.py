"""The two leaf modules every layer shares: what a ref looks like, and how long is left."""

from __future__ import annotations

import time

import pytest

from clawd import deadline, ref_syntax


@pytest.mark.parametrize(
    "written, canonical",
    [
        ("e12", "e12"),
        ("@e12", "e12"),
        ("ref=e12", "e12"),
        ("[ref=e12]", "e12"),
        (" e12 ", "e12"),
        ("12", "e12"),
        ("@12", "e12"),
        ("ref=12", "e12"),
        ("[ref=12]", "e12"),
        ("f1e3", "f1e3"),
        ("@f1e3", "f1e3"),
        ("ax7", "ax7"),
    ],
)
def test_every_written_form_of_a_ref_has_one_canonical_form(written, canonical):
    assert ref_syntax.normalize(written) == canonical and ref_syntax.is_ref(written)


@pytest.mark.parametrize("text", ["#12", "button", "e1x", "f1", "ax", "", "e-1", "div > a", "12px"])
def test_what_is_not_a_ref_is_not_one(text):
    assert not ref_syntax.is_ref(text)


def test_refs_are_found_in_snapshot_text():
    assert ref_syntax.IN_TEXT.findall(
        '- button "OK" [ref=e6]\n- iframe [ref=e8]:\n  - link [ref=f1e2]'
    ) == ["e6", "e8", "f1e2"]


def test_remaining_counts_down_has_a_floor_and_none_means_no_deadline():
    soon = deadline.at(10.0)
    assert 9.0 < deadline.remaining(soon) <= 10.0
    past = time.monotonic() - 1
    assert deadline.remaining(past) == 0.0 and deadline.remaining(past, at_least=0.1) == 0.1
    assert deadline.passed(past) and not deadline.passed(soon)
    assert deadline.remaining(None) is None


def test_left_or_raise_counts_down_and_a_passed_deadline_is_the_callers_timeout():
    assert 9 < deadline.left_or_raise(time.monotonic() + 10, TimeoutError, "late") <= 10
    with pytest.raises(TimeoutError, match="^late$"):
        deadline.left_or_raise(time.monotonic() - 0.001, TimeoutError, "late")


def test_a_tab_answer_leads_with_ok_and_the_tabs_two_ids():
    from clawd.server.answers import tab_answer

    class Tab:
        target_id, tab_id = "AB12", "t3"

    assert list(tab_answer(Tab(), url="u", title="t").items()) == [
        ("ok", True),
        ("targetId", "AB12"),
        ("tabId", "t3"),
        ("url", "u"),
        ("title", "t"),
    ]
