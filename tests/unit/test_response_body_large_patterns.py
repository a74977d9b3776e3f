"""The Fetch pattern a /response/body waiter pauses responses with: every URL its own pattern
matches (substring, or `*`/`**` globs) and Fetch's wildcards (`?`) taken literally."""

from __future__ import annotations

import pytest

from clawd.page.observe.network import BodyTap, NetworkLog


@pytest.mark.parametrize(
    ("pattern", "fetch_glob"),
    [
        ("/api/large", "*/api/large*"),
        ("http://h/**/users/*", "http://h/*/users/*"),
        ("/search?q=1", "*/search\\?q=1*"),
        ("C:\\path", "*C:\\\\path*"),
    ],
)
def test_waiter_pattern_becomes_a_response_stage_fetch_pattern(pattern, fetch_glob):
    tap = BodyTap(NetworkLog(), pattern)
    assert tap.fetch_pattern() == {"urlPattern": fetch_glob, "requestStage": "Response"}


def test_a_body_read_with_no_waiter_pending_is_not_kept():
    log = NetworkLog()
    log.took("r1", b"body")
    waiter = log.expect_response("/api")
    log.on_response(None, {"requestId": "r1", "response": {"url": "http://h/api", "status": 200}})
    assert waiter.taken is False and waiter.chunks == []


def test_a_body_read_at_its_response_stage_is_the_waiters_whole_body():
    log = NetworkLog()
    waiter = log.expect_response("/api")
    log.took("r1", b"body")
    log.on_response(None, {"requestId": "r1", "response": {"url": "http://h/api", "status": 200}})
    assert waiter.taken is True and waiter.chunks == [b"body"] and waiter.has_body()
