"""What the agent reads after a person gave a tab back (clawd/agent/render.py): the act's answer
ends with one line of what they changed; an act without a hand-off has no such line."""

from __future__ import annotations

from clawd.agent import render

CHANGED = {
    "heldSeconds": 42.0,
    "url": {"before": "https://shop.test/pay", "after": "https://shop.test/thanks"},
    "title": {"before": "Pay", "after": "Thanks"},
    "navigated": True,
    "linesAdded": 3,
    "linesRemoved": 5,
}


def test_the_act_after_a_give_back_tells_the_model_what_the_person_changed():
    text = render.act({"tabId": "t1", "url": "https://shop.test/thanks", "handedBack": CHANGED})
    assert text.splitlines()[-1] == (
        'a person had the tab and gave it back: navigated to https://shop.test/thanks, '
        'title now "Thanks", 3 lines added, 5 removed'
    )


def test_an_act_without_a_hand_off_says_nothing_of_one():
    assert "person" not in render.act({"tabId": "t1", "url": "https://shop.test/"})


def test_the_hand_off_answer_gives_the_model_the_live_view_link():
    text = render.handoff(
        {
            "tabId": "t1",
            "handoff": {"reason": "log in"},
            "liveView": {"url": "http://127.0.0.1:1/observe/x/"},
        }
    )
    assert "log in" in text and "http://127.0.0.1:1/observe/x/" in text
    assert "HANDOFF_ACTIVE" in text
