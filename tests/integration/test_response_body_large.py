"""POST /response/body for a body past Chromium's 2 MiB pipe that the page never reads (no-store,
so Chromium never reports it finished): while the waiter is pending, matching responses are
paused at the Fetch Response stage and their bodies read there whole; the page still gets them
unchanged, and the pause ends with the wait."""

from __future__ import annotations

import base64
import contextlib
import hashlib

import pytest

from clawd import errors
from clawd.page.observe import network
from tests.integration.test_debug_bodies_and_traces import Pending, body_when
from tests.support.browser import service_config
from tests.support.page_eval import evaluate, wait_until
from tests.support.service import RunningService
from tests.support.site import answer
from tests.support.tabs import opened_tab

# 5 MiB that no compression or repetition could pass for: a hash chain
LARGE = b"".join(hashlib.sha256(b"%d" % i).digest() for i in range(5 * 2**20 // 32))
LARGE_SHA = hashlib.sha256(LARGE).hexdigest()
UNREAD = "(fetch('/debug/api/large'), 1)"  # the Response is dropped: nobody reads its body
READ = (
    "fetch('/debug/api/large').then(r => r.arrayBuffer())"
    ".then(b => crypto.subtle.digest('SHA-256', b))"
    ".then(d => Array.from(new Uint8Array(d), x => x.toString(16).padStart(2, '0')).join(''))"
)


@pytest.fixture
def large_tab(client, site):
    site.route("/debug/api/large", lambda h: answer(h, 200, LARGE, "application/octet-stream"))
    with opened_tab(client, site.url("/debug/fetch.html")) as tab:
        yield tab


def _bytes_of(got: dict) -> bytes:
    assert got["encoding"] == "base64" and got["truncated"] is False
    return base64.b64decode(got["body"])


def test_unread_5_mib_body_is_answered_whole(client, service, large_tab):
    got = body_when(
        client, service, large_tab["tabId"], "/api/large", UNREAD, timeout_ms=15000, max_chars=0
    )
    body = _bytes_of(got)
    assert got["status"] == 200 and got["complete"] is True
    assert len(body) == len(LARGE) and hashlib.sha256(body).hexdigest() == LARGE_SHA


def test_a_page_reading_a_body_a_waiter_read_gets_it_unchanged(client, service, large_tab):
    tab_id = large_tab["tabId"]
    with response_pauses(service, tab_id) as paused:
        pending = Pending(
            client.response_body, "/api/large", timeout_ms=15000, max_chars=0, target_id=tab_id
        )
        wait_until(lambda: client.status()["network"]["tabs"][tab_id]["waiting"] == 1)
        page_sha = evaluate(service, client, tab_id, READ)  # the page reads what the waiter did
        got = pending.get()
    assert [u for u in paused if u.endswith("/debug/api/large")], "the waiter read nothing"
    assert hashlib.sha256(_bytes_of(got)).hexdigest() == LARGE_SHA
    assert page_sha == LARGE_SHA


def test_response_stage_pause_lasts_only_while_a_waiter_waits(client, service, large_tab):
    tab_id = large_tab["tabId"]
    with response_pauses(service, tab_id) as paused:
        body_when(client, service, tab_id, "/api/large", UNREAD, timeout_ms=15000, max_chars=0)
        assert [u for u in paused if u.endswith("/debug/api/large")], "never paused while waiting"
        with pytest.raises(errors.ResponseTimeout):
            client.response_body("/api/never-requested", timeout_ms=300, target_id=tab_id)
        paused.clear()
        assert evaluate(service, client, tab_id, READ) == LARGE_SHA
        service.live_tab(tab_id).session.connection.events.flush(5.0)
        assert paused == []  # no waiter, no pattern: later requests go through unpaused


def test_unread_chunked_body_past_the_pipe_is_still_a_timeout_saying_why(
    client, service, site, large_tab
):
    def chunked(handler):  # no Content-Length: its size unknown, it is not read whole
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(LARGE), LARGE))

    site.route("/debug/api/large", chunked)
    with pytest.raises(errors.ResponseTimeout) as caught:
        body_when(client, service, large_tab["tabId"], "/api/large", UNREAD, timeout_ms=1500)
    assert "declares its length" in caught.value.message


def test_unread_body_past_the_cap_is_not_held_whole(client, service, site, large_tab):
    huge = b"h" * (network.BODY_CAP + 1)
    site.route("/debug/api/large", lambda h: answer(h, 200, huge, "application/octet-stream"))
    with response_pauses(service, large_tab["tabId"]) as paused:
        with pytest.raises(errors.ResponseTimeout) as caught:
            body_when(client, service, large_tab["tabId"], "/api/large", UNREAD, timeout_ms=1500)
    assert [u for u in paused if u.endswith("/debug/api/large")]  # paused, and let go unread
    assert f"up to {network.BODY_CAP >> 20} MiB" in caught.value.message


def test_strict_mode_reads_an_unread_large_body_whole_too(tmp_path_factory, site):
    config = service_config(
        tmp_path_factory.mktemp("strict-body"),
        extra={"browser": {"ssrfPolicy": {"allowedHostnames": ["site.test"], "strict": True}}},
    )
    running = RunningService(config, resolver=lambda h: ["127.0.0.1"] if h == "site.test" else [])
    client = running.client()
    try:
        client.start()
        site.route("/debug/api/large", lambda h: answer(h, 200, LARGE, "application/octet-stream"))
        with opened_tab(client, f"http://site.test:{site.port}/debug/fetch.html") as tab:
            got = body_when(
                client, running, tab["tabId"], "/api/large", UNREAD, timeout_ms=15000, max_chars=0
            )
        assert hashlib.sha256(_bytes_of(got)).hexdigest() == LARGE_SHA
    finally:
        client.close()
        running.close()


@contextlib.contextmanager
def response_pauses(service, tab_id: str):
    """The URLs of the tab's responses paused at the Fetch Response stage while in the block."""
    paused: list[str] = []
    stop = service.live_tab(tab_id).session.on(
        "Fetch.requestPaused",
        lambda p: paused.append(p["request"]["url"]) if "responseStatusCode" in p else None,
    )
    try:
        yield paused
    finally:
        stop()
