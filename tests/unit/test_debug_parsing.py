"""The pure parts of console, network, storage and emulation: ring buffers, URL patterns, console
text, error entries, cookie and header validation, device lookup."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.browser.tab import RingBuffer
from clawd.page.observe import console, network
from clawd.page.state import devices, emulation, overrides, storage


def test_ring_buffer_keeps_the_newest_and_reports_what_it_dropped():
    ring = RingBuffer(3)
    assert [ring.append(i) for i in range(5)] == [None, None, None, 0, 1]
    assert ring.items() == [2, 3, 4] and ring.dropped == 2
    assert ring.drain() == [2, 3, 4] and len(ring) == 0


@pytest.mark.parametrize(
    "pattern, url, hit",
    [
        ("https://a.test/api/items", "https://a.test/api/items", True),
        ("/api/items", "https://a.test/api/items?page=2", True),
        ("/api/other", "https://a.test/api/items", False),
        ("**/api/*", "https://a.test/api/items", True),
        ("**/api/*", "https://a.test/api/v1/items", False),
        ("**/api/**", "https://a.test/api/v1/items", True),
        ("https://a.test/*.png", "https://a.test/x.png", True),
        ("https://a.test/*.png", "https://a.test/img/x.png", False),
        ("**/x.png?v=1", "https://a.test/x.png?v=1", True),  # regex characters are literal
    ],
)
def test_url_matcher(pattern, url, hit):
    assert network.url_matcher(pattern)(url) is hit


def test_network_log_tracks_redirect_hops_and_failures():
    log = network.NetworkLog(capacity=10)
    request = {"method": "GET", "url": "http://a.test/old"}
    log.on_request(
        {"requestId": "7", "request": request, "type": "Document", "wallTime": 1700000000.5}
    )
    log.on_request(
        {
            "requestId": "7",
            "request": {"method": "GET", "url": "http://a.test/new"},
            "type": "Document",
            "redirectResponse": {"status": 301},
        }
    )
    log.on_response(
        None, {"requestId": "7", "response": {"url": "http://a.test/new", "status": 200}}
    )
    log.on_request(
        {
            "requestId": "8",
            "request": {"method": "POST", "url": "http://a.test/api"},
            "type": "Fetch",
        }
    )
    log.on_failed({"requestId": "8", "errorText": "net::ERR_FAILED"})
    rows = log.requests()
    assert [(r["id"], r["url"][-3:], r["status"], r["ok"]) for r in rows] == [
        ("7.0", "old", 301, True),
        ("7", "new", 200, True),
        ("8", "api", None, False),
    ]
    assert rows[0]["timestamp"] == 1700000000500.0 and rows[2]["failureText"] == "net::ERR_FAILED"
    assert [r["id"] for r in log.requests(contains="api", clear=True)] == ["8"]
    assert log.requests() == []


def test_timestamps_are_floats_even_when_chrome_sends_a_whole_number():
    # Chrome's JSON writes 1795655052878.0 as 1795655052878: read back as an int
    entry = console.console_entry({"type": "log", "args": [], "timestamp": 1795655052878})
    assert entry["timestamp"] == 1795655052878.0 and isinstance(entry["timestamp"], float)
    assert isinstance(console.log_entry({"timestamp": 1795655052878})["timestamp"], float)
    assert isinstance(console.error_entry({}, 1795655052878)["timestamp"], float)
    log = network.NetworkLog(capacity=2)
    log.on_request(
        {
            "requestId": "1",
            "request": {"method": "GET", "url": "http://a.test/"},
            "wallTime": 1795655052,
        }
    )
    assert log.requests()[0]["timestamp"] == 1795655052000.0
    assert isinstance(log.requests()[0]["timestamp"], float)


def test_network_log_forgets_evicted_requests():
    log = network.NetworkLog(capacity=2)
    for n in range(3):
        log.on_request(
            {"requestId": str(n), "request": {"method": "GET", "url": f"http://a.test/{n}"}}
        )
    log.on_response(None, {"requestId": "0", "response": {"url": "http://a.test/0", "status": 500}})
    assert [r["id"] for r in log.requests()] == ["1", "2"] and all(
        r["status"] is None for r in log.requests()
    )


def test_response_waiter_binds_the_first_matching_response_only():
    log = network.NetworkLog()
    waiter = log.expect_response("/data")
    assert log.waiting() == 1
    log.on_response(
        "s", {"requestId": "1", "response": {"url": "http://a.test/other", "status": 200}}
    )
    log.on_response(
        "s", {"requestId": "2", "response": {"url": "http://a.test/data", "status": 200}}
    )
    log.on_response(
        "s", {"requestId": "3", "response": {"url": "http://a.test/data", "status": 500}}
    )
    assert waiter.request_id == "2" and log.waiting() == 0
    assert waiter.wait_matched(0.01) and not waiter.finished  # not finished loading yet
    log.on_finished({"requestId": "2"})
    assert waiter.finished and waiter.failure is None


@pytest.mark.parametrize(
    "args, text",
    [
        ([{"type": "string", "value": "plain"}], "plain"),
        (
            [
                {"type": "string", "value": "%s=%d%%"},
                {"type": "string", "value": "n"},
                {"type": "number", "value": 4.7},
            ],
            "n=4%",
        ),
        (
            [{"type": "string", "value": "%cstyled"}, {"type": "string", "value": "color: red"}],
            "styled",
        ),
        (
            [
                {"type": "number", "value": 1.0},
                {"type": "boolean", "value": False},
                {"type": "undefined"},
                {"type": "object", "subtype": "null", "value": None},
                {"type": "number", "unserializableValue": "NaN"},
            ],
            "1 false undefined null NaN",
        ),
        (
            [
                {
                    "type": "object",
                    "className": "Object",
                    "description": "Object",
                    "preview": {
                        "type": "object",
                        "description": "Object",
                        "overflow": True,
                        "properties": [{"name": "a", "type": "number", "value": "1"}],
                    },
                }
            ],
            "{a: 1, …}",
        ),
        (
            [
                {
                    "type": "object",
                    "subtype": "error",
                    "description": "Error: x\n    at f",
                    "preview": {"properties": []},
                }
            ],
            "Error: x\n    at f",
        ),
    ],
)
def test_console_text_reads_like_devtools(args, text):
    assert console.format_args(args) == text


def test_error_entry_from_a_thrown_error_and_a_thrown_string():
    thrown = {
        "text": "Uncaught",
        "exception": {
            "type": "object",
            "subtype": "error",
            "className": "TypeError",
            "description": "TypeError: bad\n    at f (http://a.test/x.js:1:2)",
        },
        "stackTrace": {
            "callFrames": [
                {
                    "functionName": "f",
                    "url": "http://a.test/x.js",
                    "lineNumber": 0,
                    "columnNumber": 1,
                }
            ]
        },
    }
    entry = console.error_entry(thrown, 1700000000000.0)
    assert (entry["name"], entry["message"]) == ("TypeError", "bad")
    assert (
        entry["stack"].startswith("TypeError: bad")
        and entry["location"]["url"] == "http://a.test/x.js"
    )
    primitive = console.error_entry(
        {
            "text": "Uncaught",
            "exception": {"type": "string", "value": "boom"},
            "stackTrace": {
                "callFrames": [
                    {
                        "functionName": "",
                        "url": "http://a.test/",
                        "lineNumber": 4,
                        "columnNumber": 0,
                    }
                ]
            },
        },
        None,
    )
    assert (primitive["name"], primitive["message"]) == ("", "boom")
    assert primitive["stack"] == "    at <anonymous> (http://a.test/:5:1)"


@pytest.mark.parametrize(
    "level, value",
    [(None, 0), ("debug", 0), ("log", 1), ("INFO", 1), ("warn", 2), ("warning", 2), ("error", 3)],
)
def test_levels(level, value):
    assert console.parse_level(level) == value


def test_cookie_params_defaults_and_normalises():
    params = storage.cookie_params(
        {"name": "a", "value": "", "sameSite": "lax", "expires": 2e9}, "https://a.test/p"
    )
    assert params == {
        "name": "a",
        "value": "",
        "url": "https://a.test/p",
        "sameSite": "Lax",
        "expires": 2e9,
    }
    by_domain = storage.cookie_params({"name": "a", "value": "b", "domain": ".a.test"})
    assert by_domain["path"] == "/"
    with pytest.raises(errors.InvalidCookie, match="cookie.url or cookie.domain"):
        storage.cookie_params({"name": "a", "value": "b"}, "about:blank")


def test_header_map_accepts_objects_and_json_text():
    assert emulation.header_map({"X-A": "1", "X-N": 2}) == {"X-A": "1", "X-N": "2"}
    assert emulation.header_map('{"X-B": "v"}') == {"X-B": "v"}
    with pytest.raises(errors.InvalidHeaders, match="line breaks"):
        emulation.header_map({"X-A": "a\r\nInjected: 1"})
    with pytest.raises(errors.InvalidHeaders, match="headers.X-B"):
        emulation.header_map({"X-B": True})


def test_accept_language_adds_the_bare_language():
    assert overrides.accept_language("de-DE") == "de-DE,de"
    assert overrides.accept_language("fr") == "fr"


def test_page_origin():
    assert emulation.page_origin(None, "http://127.0.0.1:8000/a?b") == "http://127.0.0.1:8000"
    assert emulation.page_origin(None, "about:blank") is None
    assert emulation.page_origin("https://example.com/", "") == "https://example.com"
    with pytest.raises(errors.InvalidRequest, match="origin"):
        emulation.page_origin("https://example.com/path", "")


def test_device_lookup_ignores_case_and_spacing_and_suggests_close_names():
    assert devices.find("  ipad   MINI ").name == "iPad Mini"
    with pytest.raises(errors.UnknownDevice) as caught:
        devices.find("Galaxy S24")
    assert "Galaxy S23" in caught.value.details["closest"]
    assert "Chrome/156.0" in devices.find("Pixel 7").agent("156.0.1.2")
    assert len({d.name.lower() for d in devices.DEVICES}) == len(devices.DEVICES)
