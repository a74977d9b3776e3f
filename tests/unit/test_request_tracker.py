"""The per-tab request tracker behind networkidle and the post-action settle
(clawd/page/act/settle.py), fed Network events by hand."""

from __future__ import annotations

import threading
import time

from clawd.page.act.settle import RequestTracker


def request(rid: str, url: str = "http://127.0.0.1/x", *, document_of: str | None = None) -> dict:
    params = {"requestId": rid, "request": {"url": url}, "type": "Script", "frameId": "F1"}
    if document_of:
        params.update(type="Document", frameId=document_of)
    return params


def test_idle_once_nothing_is_in_flight_for_the_quiet_time():
    tracker = RequestTracker()
    tracker.started("s", request("1"))
    assert tracker.idle(time.monotonic() + 0.1, quiet=0.05) is False
    ended = []

    def finish():
        ended.append(time.monotonic())
        tracker.finished("s", {"requestId": "1"})

    threading.Timer(0.05, finish).start()
    assert tracker.idle(time.monotonic() + 5, quiet=0.05) is True
    # measured from the end itself: a loaded machine may start this thread late,
    # never the quiet early
    assert time.monotonic() - ended[0] >= 0.05


def test_a_redirect_keeps_its_request_id_and_counts_once():
    tracker = RequestTracker()
    tracker.started("s", request("1", "http://127.0.0.1/a"))
    tracker.started("s", request("1", "http://127.0.0.1/b"))
    assert tracker.seq == 1
    tracker.finished("s", {"requestId": "1"})
    assert tracker.in_flight() == ""


def test_the_same_request_id_on_two_sessions_is_two_requests():
    tracker = RequestTracker()
    tracker.started("main", request("1"))
    tracker.started("child", request("1"))
    tracker.finished("main", {"requestId": "1"})
    assert tracker.in_flight().startswith("http://127.0.0.1/x (")


def test_in_flight_names_the_oldest_requests_for_the_error_message():
    tracker = RequestTracker()
    for i in range(5):
        tracker.started("s", request(str(i), f"http://127.0.0.1/r{i}"))
    text = tracker.in_flight(most=2)
    assert text.startswith("http://127.0.0.1/r0 (") and "http://127.0.0.1/r1 (" in text
    assert text.endswith("and 3 more") and "/r2" not in text


def test_settle_returns_at_once_when_the_action_started_no_request():
    tracker = RequestTracker()
    tracker.started("s", request("old"))  # in flight before the action: not waited for
    since = tracker.seq
    began = time.monotonic()
    assert tracker.settle(since, time.monotonic() + 5) is True
    assert time.monotonic() - began < 0.05


def test_a_frame_that_stopped_loading_ends_its_document_request_and_nothing_else():
    tracker = RequestTracker()
    tracker.started("s", request("doc", "http://127.0.0.1/page", document_of="F1"))
    tracker.started("s", request("other-doc", "http://127.0.0.1/frame", document_of="F2"))
    tracker.started("s", request("script", "http://127.0.0.1/app.js"))
    tracker.started(
        "t", request("doc", "http://127.0.0.1/child", document_of="F1")
    )  # another session
    tracker.frame_stopped("s", "F1")
    tracker.frame_stopped("s", None)
    left = tracker.in_flight(most=10)
    assert "/page" not in left
    assert all(url in left for url in ("/frame", "/app.js", "/child")), left
