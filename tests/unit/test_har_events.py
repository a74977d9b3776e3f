"""HAR recording from Network events without a browser: the events a tab's NetworkLog receives,
as Chromium sends them, become HAR 1.2 entries (redirect hops, failures, timings, bodies), read
back with haralyzer."""

from __future__ import annotations

import base64
import json

import pytest
from haralyzer import HarParser

from clawd import errors
from clawd.browser.tab import Tab
from clawd.page.observe import har
from clawd.page.observe.network import NETWORK

URL = "http://a.test/page"
TIMING = {
    "requestTime": 100.0,
    "dnsStart": 1.0,
    "dnsEnd": 3.0,
    "connectStart": 3.0,
    "connectEnd": 7.0,
    "sslStart": -1,
    "sslEnd": -1,
    "sendStart": 8.0,
    "sendEnd": 9.0,
    "receiveHeadersEnd": 20.0,
}


class BodySession:
    """Network.getResponseBody as Chromium answers it; a request id it lacks is a CDP error."""

    def __init__(self, bodies: dict[str, dict]):
        self.bodies = bodies

    def call(self, method, params=None, **_):
        assert method == "Network.getResponseBody"
        if params["requestId"] not in self.bodies:
            raise errors.CdpError("No resource with given identifier found")
        return self.bodies[params["requestId"]]


@pytest.fixture
def tab():
    made = Tab("t1", "MAIN", session=None, url="about:blank")
    made.state[NETWORK]  # noqa: B018 - what NetworkWatch.attach makes
    return made


def sent(request_id, url, *, at=100.0, kind="Document", loader=None, redirect=None, **request):
    params = {
        "requestId": request_id,
        "loaderId": loader or request_id,
        "frameId": "MAIN",
        "type": kind,
        "timestamp": at,
        "wallTime": 1_700_000_000 + at,
        "request": {"url": url, "method": "GET", "headers": {"Accept": "*/*"}, **request},
    }
    if redirect is not None:
        params["redirectResponse"] = redirect
    return params


def response(status=200, mime="text/html", headers=None, timing=TIMING):
    return {
        "status": status,
        "statusText": "OK",
        "mimeType": mime,
        "headers": headers or {"Content-Type": mime},
        "protocol": "http/1.1",
        "timing": timing,
    }


def recorded(tab, tmp_path, events, bodies=None, **start) -> dict:
    log, session = tab.state[NETWORK], BodySession(bodies or {})
    har.start(tab, **start)
    for name, params in events:
        if name == "request":
            log.on_request(params, session)
        elif name == "response":
            log.on_response(session, {"requestId": params[0], "response": params[1]})
        elif name == "finished":
            log.on_finished({"requestId": params[0], "timestamp": params[1]}, session)
        elif name == "failed":
            log.on_failed({"requestId": params[0], "timestamp": 101.0, "errorText": params[1]})
        else:
            log.on_page(name, {"timestamp": params})
    stopped = har.stop(tab, tmp_path / "har")
    return json.loads(open(stopped["path"], encoding="utf-8").read())


def test_a_page_load_becomes_a_page_and_an_entry_with_timings(tab, tmp_path):
    document = recorded(
        tab,
        tmp_path,
        [
            ("request", sent("1", URL)),
            ("response", ("1", response())),
            ("finished", ("1", 100.030)),
            ("onContentLoad", 100.050),
            ("onLoad", 100.060),
        ],
        bodies={"1": {"body": "<p>hi</p>", "base64Encoded": False}},
        content="embed",
    )
    parser = HarParser(document)
    (page,) = parser.pages
    assert page.url == URL
    assert page.page_id == "page_2"  # page_1, open before recording, had nothing: left out
    timings = document["log"]["pages"][0]["pageTimings"]
    assert timings == {"onContentLoad": 50.0, "onLoad": 60.0}
    entry = document["log"]["entries"][0]
    assert entry["timings"] == {
        "blocked": 1.0,
        "dns": 2.0,
        "connect": 4.0,
        "send": 1.0,
        "wait": 11.0,
        "receive": 10.0,
        "ssl": -1,
    }
    assert entry["time"] == 29.0 and entry["response"]["content"]["text"] == "<p>hi</p>"
    assert entry["startedDateTime"].endswith("Z") and page.entries[0].status == 200


def test_each_redirect_hop_is_an_entry_and_failures_keep_their_error(tab, tmp_path):
    hop = response(302, headers={"Location": "/new"})
    document = recorded(
        tab,
        tmp_path,
        [
            ("request", sent("1", URL)),
            ("request", sent("1", "http://a.test/new", at=100.01, redirect=hop)),
            ("response", ("1", response())),
            ("finished", ("1", 100.03)),
            ("request", sent("2", "http://a.test/gone", kind="Fetch", loader="1")),
            ("failed", ("2", "net::ERR_CONNECTION_REFUSED")),
        ],
    )
    by_url = {e["request"]["url"]: e for e in document["log"]["entries"]}
    assert by_url[URL]["response"]["status"] == 302
    assert by_url[URL]["response"]["redirectURL"] == "http://a.test/new"
    assert by_url["http://a.test/new"]["response"]["status"] == 200
    gone = by_url["http://a.test/gone"]["response"]
    assert gone["status"] == 0 and gone["_error"] == "net::ERR_CONNECTION_REFUSED"
    assert {e["pageref"] for e in document["log"]["entries"]} == {"page_2"}
    assert len(document["log"]["entries"]) == 3


def test_binary_bodies_embed_as_base64_and_attach_as_files(tab, tmp_path):
    png = b"\x89PNG\r\n\x1a\n-bytes"
    events = [
        ("request", sent("9", "http://a.test/p.png", kind="Image", loader="L")),
        ("response", ("9", response(mime="image/png"))),
        ("finished", ("9", 100.01)),
    ]
    bodies = {"9": {"body": base64.b64encode(png).decode(), "base64Encoded": True}}
    content = recorded(tab, tmp_path, events, bodies, content="embed")["log"]["entries"][0][
        "response"
    ]["content"]
    assert content["encoding"] == "base64" and base64.b64decode(content["text"]) == png
    document = recorded(tab, tmp_path, events, bodies, content="attach")
    attached = document["log"]["entries"][0]["response"]["content"]
    assert "text" not in attached and attached["_file"].endswith(".png")
    written = sorted((tmp_path / "har").glob(f"*/{attached['_file'].split('/')[1]}"))
    assert written and written[0].read_bytes() == png


def test_post_data_query_string_and_url_filter(tab, tmp_path):
    document = recorded(
        tab,
        tmp_path,
        [
            (
                "request",
                sent(
                    "3",
                    "http://a.test/api?q=1&r=two",
                    kind="Fetch",
                    loader="L",
                    method="POST",
                    postData="a=1",
                    headers={"Content-Type": "application/x-www-form-urlencoded"},
                ),
            ),
            ("request", sent("4", "http://a.test/style.css", kind="Stylesheet", loader="L")),
        ],
        url_filter="**/api*",
    )
    (entry,) = document["log"]["entries"]
    request = entry["request"]
    assert request["queryString"] == [{"name": "q", "value": "1"}, {"name": "r", "value": "two"}]
    assert request["postData"] == {
        "mimeType": "application/x-www-form-urlencoded",
        "text": "a=1",
    }
    assert entry["response"]["status"] == 0  # never answered while recording


def test_body_chromium_no_longer_has_is_noted_not_fatal(tab, tmp_path):
    document = recorded(
        tab,
        tmp_path,
        [
            ("request", sent("5", URL)),
            ("response", ("5", response())),
            ("finished", ("5", 100.01)),
        ],
        content="embed",
    )
    content = document["log"]["entries"][0]["response"]["content"]
    assert "text" not in content and "not available" in content["comment"]
