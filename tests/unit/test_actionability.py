"""The act's waiting (page/act/actionability.Patience): Playwright's backoff between tries, the
deadline kept, a short grace for disabled and hidden elements, none for a detached one."""

from __future__ import annotations

from clawd.page.act import actionability
from clawd.page.act.actionability import BACKOFF, RESERVE, STATE_GRACE, Patience


class Clock:
    """A clock that moves only when the code under test sleeps."""

    def __init__(self):
        self.now = 100.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(round(seconds, 6))
        self.now += seconds


def tries(state: str, timeout: float) -> list[float]:
    clock = Clock()
    patience = Patience(clock.now + timeout, clock=clock)
    while patience.again(state, sleep=clock.sleep):
        pass
    return clock.slept


def test_a_cover_is_retried_with_backoff_until_the_deadline_less_the_reserve():
    slept = tries("covered", 2.0)
    assert tuple(slept[: len(BACKOFF)]) == BACKOFF
    assert all(pause == BACKOFF[-1] for pause in slept[len(BACKOFF) : -1])
    assert abs(sum(slept) - (2.0 - RESERVE)) < 1e-6  # the last pause ends at the limit


def test_disabled_and_hidden_are_waited_for_only_the_grace():
    for state in ("disabled", "hidden", "zero-size"):
        assert abs(sum(tries(state, 8.0)) - STATE_GRACE) < 1e-6


def test_a_detached_element_is_never_waited_for():
    assert tries("detached", 8.0) == []


def test_a_deadline_already_past_gives_no_retry():
    assert tries("covered", actionability.RESERVE / 2) == []


def test_a_covers_fields_are_all_of_one_element():
    """A named top element is described by its own tag and selector, the box around it as `in`;
    a nameless one by the box (the cookie wall, not the paragraph in it)."""
    link = {"tag": "a", "selector": "a.ui-datepicker-prev", "text": "Prev"}
    picker = {"tag": "div", "id": "dp", "selector": "div#dp.ui-datepicker", "text": "Prev Next"}
    named = actionability._cover_dict({"role": "link", "name": "Prev"}, link, picker)
    assert named["selector"] == "a.ui-datepicker-prev" and named["tag"] == "a"
    assert named["in"] == "div#dp.ui-datepicker" and "id" not in named
    assert named["label"] == "link 'Prev' in div#dp.ui-datepicker"
    words = {"tag": "p", "selector": "p", "text": "We use cookies"}
    wall = {"tag": "div", "selector": "div.cookie-wall", "text": "We use cookies Accept"}
    nameless = actionability._cover_dict({}, words, wall)
    assert nameless["selector"] == "div.cookie-wall" and "in" not in nameless
    assert nameless["label"] == 'div.cookie-wall "We use cookies Accept"'
