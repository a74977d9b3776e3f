"""From a cdpUrl to the browser websocket URL (DESIGN.md §4), with a fake http_get: no network."""

from __future__ import annotations

import base64
import urllib.parse

import pytest
import requests

from clawd import errors
from clawd.cdp import discovery
from clawd.cdp.discovery import discover, rewrite_ws_host, websocket_url, ws_host

BROWSER_PATH = "/devtools/browser/5f2c"


class FakeResponse:
    def __init__(self, payload=None, status=200, body_error: Exception | None = None):
        self.payload = payload
        self.status_code = status
        self.body_error = body_error

    def raise_for_status(self):
        if self.status_code >= 400:
            raise requests.HTTPError(f"{self.status_code} Server Error")

    def json(self):
        if self.body_error is not None:
            raise self.body_error
        return self.payload


class FakeHttp:
    """http_get that answers from a table {url: FakeResponse | Exception}; anything else refuses."""

    def __init__(self, answers=None):
        self.answers = answers or {}
        self.asked: list[tuple[str, float]] = []

    def __call__(self, url, *, timeout):
        self.asked.append((url, timeout))
        answer = self.answers.get(url)
        if answer is None:
            raise requests.ConnectionError(
                f"HTTPConnectionPool: Max retries exceeded with url: {url}"
            )
        if isinstance(answer, Exception):
            raise answer
        return answer


def version(ws_url: str) -> FakeResponse:
    return FakeResponse({"Browser": "Chrome/120.0", "webSocketDebuggerUrl": ws_url})


def no_http(url, *, timeout):
    raise AssertionError(f"no HTTP expected, got {url}")


# -- http(s):// -> /json/version ------------------------------------------------------------------
@pytest.mark.parametrize(
    "reported_host", ["127.0.0.1:9222", "localhost:9222", "0.0.0.0:9222", "[::1]:9222", "[::]:9222"]
)
def test_a_loopback_or_unspecified_host_is_rewritten_to_the_cdp_url_host_and_port(reported_host):
    http = FakeHttp(
        {"http://browser.lan:9333/json/version": version(f"ws://{reported_host}{BROWSER_PATH}")}
    )
    assert (
        websocket_url("http://browser.lan:9333", http_get=http)
        == f"ws://browser.lan:9333{BROWSER_PATH}"
    )
    assert http.asked == [("http://browser.lan:9333/json/version", 1.5)]


def test_a_non_loopback_host_in_the_answer_is_kept_when_allowed():
    http = FakeHttp(
        {"http://proxy.lan:80/json/version": version(f"ws://10.0.0.5:9222{BROWSER_PATH}")}
    )
    assert (
        websocket_url("http://proxy.lan:80", http_get=http, allow_other_host=True)
        == f"ws://10.0.0.5:9222{BROWSER_PATH}"
    )


def test_an_answer_that_points_at_another_host_is_refused_by_default():
    http = FakeHttp(
        {"http://proxy.lan:80/json/version": version(f"ws://10.0.0.5:9222{BROWSER_PATH}")}
    )
    with pytest.raises(errors.CdpEndpointRefused):
        websocket_url("http://proxy.lan:80", http_get=http)
    bare = FakeHttp(
        {"http://proxy.lan:80/json/version": version(f"ws://10.0.0.5:9222{BROWSER_PATH}")}
    )
    with pytest.raises(errors.CdpEndpointRefused):  # no fallback to the bare URL: it answered
        websocket_url("ws://proxy.lan:80", http_get=bare)


def test_the_query_token_is_sent_to_discovery_and_kept_in_the_websocket_url():
    http = FakeHttp(
        {
            "http://pool.test:3000/json/version?token=s3cret": version(
                f"ws://127.0.0.1:9222{BROWSER_PATH}"
            )
        }
    )
    assert (
        websocket_url("http://pool.test:3000/?token=s3cret", http_get=http)
        == f"ws://pool.test:3000{BROWSER_PATH}?token=s3cret"
    )


def test_a_query_the_browser_reports_wins_over_ours():
    http = FakeHttp(
        {
            "http://pool.test/json/version?token=ours": version(
                f"ws://127.0.0.1:9222{BROWSER_PATH}?token=theirs"
            )
        }
    )
    assert (
        websocket_url("http://pool.test/?token=ours", http_get=http)
        == f"ws://pool.test{BROWSER_PATH}?token=theirs"
    )


def test_userinfo_is_kept_and_https_maps_to_wss():
    http = FakeHttp(
        {
            "https://agent:pw@chrome.example/json/version": version(
                f"ws://127.0.0.1:9222{BROWSER_PATH}"
            )
        }
    )
    assert (
        websocket_url("https://agent:pw@chrome.example", http_get=http)
        == f"wss://agent:pw@chrome.example{BROWSER_PATH}"
    )


def test_userinfo_is_added_to_a_kept_non_loopback_host():
    http = FakeHttp(
        {"https://agent:pw@gw.example/json/version": version(f"wss://edge.example{BROWSER_PATH}")}
    )
    assert (
        websocket_url("https://agent:pw@gw.example", http_get=http, allow_other_host=True)
        == f"wss://agent:pw@edge.example{BROWSER_PATH}"
    )


def test_a_path_prefix_and_trailing_slash_lead_to_one_json_version():
    http = FakeHttp(
        {"https://host.example/chrome/json/version": version(f"ws://127.0.0.1:9222{BROWSER_PATH}")}
    )
    assert (
        discover("https://host.example/chrome/", http_get=http)
        == f"wss://host.example{BROWSER_PATH}"
    )


def test_the_timeout_is_passed_to_http_get():
    http = FakeHttp({"http://h:1/json/version": version(f"ws://127.0.0.1:1{BROWSER_PATH}")})
    websocket_url("http://h:1", timeout=0.25, http_get=http)
    assert http.asked == [("http://h:1/json/version", 0.25)]


# -- ws(s):// -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        f"ws://127.0.0.1:18800{BROWSER_PATH}",
        "wss://agent:pw@pool.example/devtools/page/ABC?token=t",
    ],
)
def test_a_devtools_websocket_url_is_used_directly_without_http(url):
    assert websocket_url(url, http_get=no_http) == url


def test_a_bare_websocket_root_tries_discovery_on_its_http_twin_first():
    http = FakeHttp(
        {"http://browser.lan:9333/json/version": version(f"ws://127.0.0.1:9222{BROWSER_PATH}")}
    )
    assert (
        websocket_url("ws://browser.lan:9333", http_get=http)
        == f"ws://browser.lan:9333{BROWSER_PATH}"
    )


def test_a_bare_wss_root_with_a_token_discovers_over_https():
    http = FakeHttp(
        {"https://pool.example/json/version?token=t": version(f"ws://0.0.0.0:3000{BROWSER_PATH}")}
    )
    assert (
        websocket_url("wss://pool.example?token=t", http_get=http)
        == f"wss://pool.example{BROWSER_PATH}?token=t"
    )


@pytest.mark.parametrize(
    "failure",
    [
        None,
        FakeResponse(status=404),
        FakeResponse({"Browser": "x"}),
        FakeResponse(body_error=ValueError("not json")),
    ],
)
def test_a_bare_websocket_root_falls_back_to_itself_when_discovery_fails(failure):
    answers = (
        {} if failure is None else {"https://chrome.browserless.io/json/version?token=t": failure}
    )
    http = FakeHttp(answers)
    assert (
        websocket_url("wss://chrome.browserless.io?token=t", http_get=http)
        == "wss://chrome.browserless.io?token=t"
    )
    assert [url for url, _ in http.asked] == ["https://chrome.browserless.io/json/version?token=t"]


# -- failures -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "answer",
    [
        None,
        requests.Timeout("read timed out"),
        FakeResponse(status=500),
        FakeResponse({"Browser": "x"}),
        FakeResponse(["a list"]),
        FakeResponse(body_error=ValueError("Expecting value")),
    ],
)
def test_an_unreachable_or_odd_endpoint_is_cdp_unreachable(answer):
    answers = {} if answer is None else {"http://h:9/json/version": answer}
    with pytest.raises(errors.CdpUnreachable) as raised:
        websocket_url("http://h:9", http_get=FakeHttp(answers))
    assert raised.value.http_status == 502
    assert "http://h:9/json/version" in str(raised.value)


def test_the_unreachable_message_carries_neither_the_token_nor_the_password():
    with pytest.raises(errors.CdpUnreachable) as raised:
        websocket_url(
            "https://agent:hunter2@pool.example:443/?token=s3cret-token", http_get=FakeHttp()
        )
    message = str(raised.value) + " " + repr(raised.value.to_dict())
    assert "s3cret-token" not in message and "hunter2" not in message and "agent" not in message
    assert "https://pool.example:443/json/version" in message


@pytest.mark.parametrize("url", ["ftp://h:1", "h:9222", "file:///tmp/x"])
def test_a_cdp_url_with_another_scheme_is_an_invalid_request(url):
    with pytest.raises(errors.InvalidRequest):
        websocket_url(url, http_get=no_http)


# -- helpers --------------------------------------------------------------------------------------
def test_rewrite_ws_host_directly():
    base = urllib.parse.urlsplit("http://10.1.1.1:9333")
    assert (
        rewrite_ws_host(f"ws://localhost:9222{BROWSER_PATH}", base)
        == f"ws://10.1.1.1:9333{BROWSER_PATH}"
    )


def test_ws_host_names_the_host():
    assert ws_host(f"wss://u:p@Pool.Example:443{BROWSER_PATH}") == "pool.example"
    assert ws_host(f"ws://[::1]:9222{BROWSER_PATH}") == "::1"


def test_userinfo_becomes_a_basic_header_and_leaves_the_url():
    url, headers = discovery.userinfo_as_header(
        "wss://agent:p%40ss%3Aword@pool.test:443/devtools/browser/x?token=t"
    )
    assert url == "wss://pool.test:443/devtools/browser/x?token=t"
    assert headers == ["Authorization: Basic " + base64.b64encode(b"agent:p@ss:word").decode()]
    assert discovery.userinfo_as_header("ws://127.0.0.1:9222/devtools/browser/x") == (
        "ws://127.0.0.1:9222/devtools/browser/x",
        [],
    )
