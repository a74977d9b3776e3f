"""POST /response/body for a response the page fetched and never read: for a response it does not
cache (the test site answers Cache-Control: no-store, as APIs do) Chromium never reports such a
fetch() finished, so the body is read at its response stage when it declares its length, else
comes from what reached the page, whole up to 2 MiB (past them: test_response_body_large.py)."""

from __future__ import annotations

import pytest

from tests.integration.test_debug_bodies_and_traces import body_when
from tests.support.site import answer
from tests.support.tabs import opened_tab

CHUNKED = b"a chunked body " * 40
UNREAD = "(fetch('/debug/api/unread'), 1)"  # the Response is dropped: nobody reads its body


@pytest.fixture
def fetch_tab(client, site):
    with opened_tab(client, site.url("/debug/fetch.html")) as tab:
        yield tab


@pytest.mark.parametrize("size", [100, 1_000_000])
def test_response_body_of_a_fetch_the_page_never_reads(client, service, site, fetch_tab, size):
    body = "u" * size
    site.route("/debug/api/unread", lambda h: answer(h, 200, body, "text/plain"))
    got = body_when(
        client, service, fetch_tab["tabId"], "/api/unread", UNREAD, timeout_ms=10000, max_chars=0
    )
    assert got["status"] == 200 and got["body"] == body
    assert got["complete"] is True and got["response"]["body"] == body


def test_unread_chunked_body_is_answered_once_it_came(client, service, site, fetch_tab):
    def chunked(handler):
        handler.send_response(200)
        handler.send_header("Content-Type", "text/plain")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"%x\r\n%s\r\n0\r\n\r\n" % (len(CHUNKED), CHUNKED))

    site.route("/debug/api/unread", chunked)
    got = body_when(client, service, fetch_tab["tabId"], "/api/unread", UNREAD, timeout_ms=10000)
    assert got["body"] == CHUNKED.decode()  # no Content-Length: a pause after it ends the wait
