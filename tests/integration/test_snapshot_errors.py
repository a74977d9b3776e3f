"""Bad snapshot input answers a 400/404/409/408 with a code and a clear message, never a hang:
unknown options, bad numbers, selectors and frames that match nothing or no iframe, a tab still
loading, busy or crashed (these last three in a service of their own: they stall or kill a
renderer)."""

from __future__ import annotations

import threading
import time

import pytest

from clawd import errors
from tests.support.browser import ENV_FLAGS, require_chromium, service_config
from tests.support.service import RunningService


def snap(client, tab_id, **params):
    return client.request("GET", "/snapshot", params={"targetId": tab_id, **params})


def refused(client, tab_id, **params) -> errors.ClawdError:
    with pytest.raises(errors.ClawdError) as caught:
        snap(client, tab_id, **params)
    return caught.value


@pytest.mark.parametrize(
    "params, word",
    [
        ({"depth": "-1"}, "depth"),
        ({"maxChars": "abc"}, "maxChars"),
        ({"bogus": "1"}, "bogus"),
        ({"format": "xml"}, "format"),
        ({"mode": "fast"}, "mode"),
        ({"limit": "0", "format": "aria"}, "limit"),
        ({"interactive": "maybe"}, "interactive"),
        ({"timeoutMs": "5"}, "timeoutMs"),
    ],
)
def test_bad_options_are_400_invalid_request_naming_the_option(client, site, tab, params, word):
    client.navigate(site.url("/snapshot/dups.html"), target_id=tab["tabId"])
    error = refused(client, tab["tabId"], **params)
    assert type(error) is errors.InvalidRequest and error.code == "INVALID_REQUEST"
    assert word in error.message


def test_selector_matching_nothing_is_404_and_bad_css_is_400(client, site, tab):
    client.navigate(site.url("/snapshot/dups.html"), target_id=tab["tabId"])
    error = refused(client, tab["tabId"], selector="#nothing-here")
    assert (
        error.code == "SELECTOR_NOT_FOUND"
        and error.http_status == 404
        and "#nothing-here" in error.message
    )
    error = refused(client, tab["tabId"], selector="[[")
    assert error.code == "INVALID_REQUEST" and "not a valid CSS selector" in error.message


def test_frame_that_is_not_an_iframe_is_400_and_missing_frame_404(client, site, tab):
    client.navigate(site.url("/snapshot/frames.html"), target_id=tab["tabId"])
    error = refused(client, tab["tabId"], frame="h1")
    assert (
        error.code == "INVALID_REQUEST"
        and "<h1>" in error.message
        and "not an iframe" in error.message
    )
    assert refused(client, tab["tabId"], frame="#no-such-frame").code == "FRAME_NOT_FOUND"
    refs = snap(client, tab["tabId"])["refs"]
    button = next(ref for ref, info in refs.items() if info["role"] == "button")
    error = refused(client, tab["tabId"], frame=button)
    assert error.code == "INVALID_REQUEST" and "not an iframe" in error.message
    assert refused(client, tab["tabId"], frame="e99999").code == "REF_UNKNOWN"


@pytest.fixture(scope="module")
def own(tmp_path_factory, site):
    require_chromium()
    config = service_config(
        tmp_path_factory.mktemp("clawd-snap-errors"),
        extra={"browser": {"extraArgs": [*ENV_FLAGS, "--site-per-process"]}},
    )
    running = RunningService(config)
    client = running.client()
    client.start()
    yield running, client
    client.close()
    running.close()


def test_tab_still_loading_is_409_tab_loading_then_snapshots_once_loaded(own, site):
    running, client = own
    release = threading.Event()

    def slow(handler):  # the head of the page now, the rest when the test lets it go
        handler.send_response(200)
        handler.send_header("Content-Type", "text/html")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(
            b"<!doctype html><title>Slow</title><body><h1>Partial</h1>" + b" " * 2048
        )
        handler.wfile.flush()
        release.wait(15)
        handler.wfile.write(b"<button>Done</button></body>")
        handler.close_connection = True

    site.route("/snapshot/slow.html", slow)
    tab_id = client.open(site.url("/snapshot/dups.html"))["tabId"]
    live = running.live_tab(tab_id)
    try:
        live.session.call("Page.navigate", {"url": site.url("/snapshot/slow.html")}, timeout=10)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            state = live.session.call(
                "Runtime.evaluate",
                {
                    "expression": "document.readyState + !!document.querySelector('h1')",
                    "returnByValue": True,
                },
            )["result"]["value"]
            if state == "loadingtrue":
                break
            time.sleep(0.05)
        error = refused(client, tab_id)
        assert (
            error.code == "TAB_LOADING" and error.http_status == 409 and "loading" in error.message
        )
    finally:
        release.set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            assert 'button "Done"' in snap(client, tab_id)["snapshot"]
            break
        except errors.TabLoading:
            time.sleep(0.05)
    else:
        pytest.fail("the page never finished loading")
    client.close_tab(tab_id)


def test_busy_page_answers_408_within_timeout_ms(own, site):
    running, client = own
    tab_id = client.open(site.url("/snapshot/dups.html"))["tabId"]
    live = running.live_tab(tab_id)
    # the renderer runs commands of a session in order: the snapshot's calls queue behind this
    live.session.send_and_forget(
        "Runtime.evaluate",
        {"expression": "{ const end = Date.now() + 4000; while (Date.now() < end); }"},
    )
    started = time.monotonic()
    error = refused(client, tab_id, timeoutMs="1000")
    elapsed = time.monotonic() - started
    assert error.code == "TIMEOUT" and error.http_status == 408 and "timeoutMs" in error.message
    assert elapsed < 2.5, elapsed
    live.session.call("Runtime.evaluate", {"expression": "1"}, timeout=10)  # the loop ended
    assert "button" in snap(client, tab_id)["snapshot"]
    client.close_tab(tab_id)


def test_crashed_tab_is_409_tab_crashed(own, site):
    running, client = own
    tab_id = client.open(site.url("/snapshot/dups.html"))["tabId"]
    live = running.live_tab(tab_id)
    with pytest.raises(errors.TabCrashed):
        live.session.call("Page.crash", timeout=10)
    deadline = time.monotonic() + 10
    while not live.crashed and time.monotonic() < deadline:
        time.sleep(0.05)
    error = refused(client, tab_id)
    assert error.code == "TAB_CRASHED" and error.http_status == 409 and "crashed" in error.message
    error = refused(client, tab_id, format="aria")
    assert error.code == "TAB_CRASHED"
    client.close_tab(tab_id)
