"""Which requests a handed-off tab refuses (clawd/page/handoff.py): every passive path is a real
POST route (the list cannot drift from the route table unseen), reads pass, changes are 409."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.page import handoff
from clawd.server.routes import ROUTES


class _State:
    def __init__(self, held):
        self.held = held

    def peek(self, key):
        return self.held if key is handoff.HANDOFF else None


class _Tab:
    tab_id = "t1"

    def __init__(self, reason: str | None):
        held = handoff.HandOff()
        held.reason = reason
        self.state = _State(held)


def test_every_passive_path_is_a_post_route():
    posts = {r.pattern for r in ROUTES if r.method == "POST"}
    assert sorted(handoff.PASSIVE - posts) == []


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/act"), ("POST", "/navigate"), ("DELETE", "/tabs/t1"), ("POST", "/handoff")],
)
def test_a_request_that_changes_the_page_is_refused_while_a_person_holds_it(method, path):
    with pytest.raises(errors.HandoffActive):
        handoff.check(_Tab("pay"), method, path)
    handoff.check(_Tab(None), method, path)  # given back: the agent's again


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/snapshot"), ("POST", "/screenshot"), ("POST", "/handoff/done")]
)
def test_reads_and_the_give_back_pass(method, path):
    handoff.check(_Tab("pay"), method, path)
