"""HAR cookies from the ExtraInfo events, without a browser: each hop gets its own (whichever
event comes first, a hop not recorded taking none of another's), odd Set-Cookie lines neither
break the HAR nor pass for cookies; and a response waiter's streamed body."""

from __future__ import annotations

import json
import threading
import time

import pytest
from haralyzer import HarParser

from clawd.browser.tab import Tab
from clawd.page.observe import har, network
from clawd.page.observe.network import NETWORK
from tests.unit.test_har_events import response, sent

URL = "http://a.test/login"


@pytest.fixture
def tab():
    made = Tab("t1", "MAIN", session=None, url="about:blank")
    made.state[NETWORK]  # noqa: B018 - what NetworkWatch.attach makes
    return made


def request_extra(request_id, cookie):
    return {
        "requestId": request_id,
        "headers": {"Host": "a.test", "Cookie": cookie} if cookie else {"Host": "a.test"},
        "associatedCookies": [
            {
                "cookie": {
                    "name": "sid",
                    "value": "s1",
                    "path": "/",
                    "domain": "a.test",
                    "expires": -1,
                    "httpOnly": True,
                    "secure": False,
                },
                "blockedReasons": [],
            },
        ],
    }


def response_extra(request_id, *set_cookies, blocked=()):
    return {
        "requestId": request_id,
        "headers": {"Set-Cookie": "\n".join(set_cookies)} if set_cookies else {},
        "blockedCookies": [
            {"cookieLine": line, "blockedReasons": ["DomainMismatch"]} for line in blocked
        ],
    }


def recorded(tab, tmp_path, events, **start) -> dict:
    log = tab.state[NETWORK]
    har.start(tab, **start)
    for name, params in events:
        if name == "request":
            log.on_request(params)
        elif name == "response":
            log.on_response(None, {"requestId": params[0], "response": params[1]})
        elif name == "finished":
            log.on_finished({"requestId": params, "timestamp": 100.05})
        else:
            log.on_extra(name.removesuffix("-extra"), params)
    document = json.loads(open(har.stop(tab, tmp_path)["path"], encoding="utf-8").read())
    HarParser(document)  # readers take it
    return {e["request"]["url"]: e for e in document["log"]["entries"]}


def test_extra_info_before_or_after_its_request_lands_on_the_right_hop(tab, tmp_path):
    hop = response(302, headers={"Location": "/home"})
    entries = recorded(
        tab,
        tmp_path,
        [
            ("request-extra", request_extra("1", "")),  # before its requestWillBeSent
            ("request", sent("1", URL, kind="Fetch", loader="L")),
            ("response-extra", response_extra("1", "sid=s1; Path=/; HttpOnly")),
            (
                "request",
                sent("1", "http://a.test/home", at=100.01, kind="Fetch", loader="L", redirect=hop),
            ),
            ("response", ("1", response())),
            ("request-extra", request_extra("1", "sid=s1")),
            ("response-extra", response_extra("1")),
            ("finished", "1"),
        ],
    )
    first, home = entries[URL], entries["http://a.test/home"]
    assert first["request"]["cookies"] == [] and home["response"]["cookies"] == []
    assert first["response"]["cookies"] == [
        {"name": "sid", "value": "s1", "path": "/", "httpOnly": True}
    ]
    assert {"name": "Host", "value": "a.test"} in first["request"]["headers"]
    assert home["request"]["cookies"] == [
        {
            "name": "sid",
            "value": "s1",
            "path": "/",
            "domain": "a.test",
            "httpOnly": True,
            "secure": False,
        }
    ]


def test_a_hop_left_out_by_the_filter_keeps_its_extra_info(tab, tmp_path):
    hop = response(302, headers={"Location": "/api/me"})
    entries = recorded(
        tab,
        tmp_path,
        [
            ("request", sent("1", "http://a.test/old", kind="Fetch", loader="L")),
            ("request-extra", request_extra("1", "old=1")),
            (
                "request",
                sent(
                    "1", "http://a.test/api/me", at=100.01, kind="Fetch", loader="L", redirect=hop
                ),
            ),
            ("request-extra", request_extra("1", "sid=s1")),
            ("response", ("1", response())),
            ("finished", "1"),
        ],
        url_filter="**/api/*",
    )
    assert list(entries) == ["http://a.test/api/me"]
    assert [c["name"] for c in entries["http://a.test/api/me"]["request"]["cookies"]] == ["sid"]


def test_odd_set_cookie_lines_neither_break_the_har_nor_pass_for_cookies(tab, tmp_path):
    lines = (
        "long=1; Max-Age=99999999999999999999",
        "gone=1; Max-Age=-99999999999999999999",
        "when=1; Expires=not a date",
        "dated=1; Expires=Wed, 21 Oct 2037 07:28:00 GMT; Secure",
        "no equals sign",
        "=nameless",
        "stray=1; Domain=b.test",
    )
    entries = recorded(
        tab,
        tmp_path,
        [
            ("request", sent("1", URL)),
            ("response", ("1", response())),
            ("response-extra", response_extra("1", *lines, blocked=["stray=1; Domain=b.test"])),
            ("finished", "1"),
        ],
    )
    cookies = {c["name"]: c for c in entries[URL]["response"]["cookies"]}
    assert list(cookies) == ["long", "gone", "when", "dated", "stray"]
    assert cookies["gone"]["expires"] < cookies["long"]["expires"]
    assert cookies["long"]["expires"] < "2030"  # capped at 400 days, not an overflow
    assert "expires" not in cookies["when"]
    assert cookies["dated"]["expires"] == "2037-10-21T07:28:00.000Z" and cookies["dated"]["secure"]
    assert cookies["stray"]["comment"] == "not stored: DomainMismatch"
    set_cookie = [h for h in entries[URL]["response"]["headers"] if h["name"] == "Set-Cookie"]
    assert len(set_cookie) == len(lines)


def test_a_streamed_body_is_whole_at_its_content_length():
    waiter = network.ResponseWaiter("/data")
    waiter.bind(None, "1", {"url": "http://a.test/data", "headers": {"Content-Length": "6"}})
    waiter.streamed(b"abc")
    threading.Timer(0.05, waiter.add, (b"def",)).start()
    waiter.wait_body(time.monotonic() + 10, quiet=10)
    assert waiter.whole() and not waiter.finished and b"".join(waiter.chunks) == b"abcdef"


def test_a_gzipped_streamed_body_is_never_taken_for_whole():
    waiter = network.ResponseWaiter("/data")
    headers = {"content-length": "3", "content-encoding": "gzip"}
    waiter.bind(None, "1", {"url": "http://a.test/data", "headers": headers})
    waiter.streamed(b"decoded body, longer than what came on the wire")
    assert not waiter.whole() and waiter.has_body()
