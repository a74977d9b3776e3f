"""Console messages, page errors and requests per tab: recorded from the first script, filtered,
bounded, freed with the tab, kept for popups, and printed by the CLI."""

from __future__ import annotations

import json

import pytest

from clawd import errors
from tests.support.cli import cli_of as cli
from tests.support.page_eval import evaluate, wait_until
from tests.support.site import answer


@pytest.fixture
def page(client, site):
    """Opens a debug page in a fresh tab: page("/debug/console.html") -> tab dict."""
    opened = []

    def open_page(path: str) -> dict:
        tab = client.open(site.url(path))
        opened.append(tab["tabId"])
        return tab

    yield open_page
    for tab_id in opened:
        try:
            client.close_tab(tab_id)
        except errors.ClawdError:
            pass


def texts(result: dict) -> list[str]:
    return [m["text"] for m in result["messages"]]


def drained(handler, status: int, body: str, content_type: str = "application/json"):
    """Answer a POST after reading its body (an unread body would be parsed as the next request)."""
    handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
    answer(handler, status, body, content_type)


# -- console ------------------------------------------------------------------------------------
def test_console_messages_from_page_load_are_recorded_with_type_text_and_location(
    client, page, site
):
    tab = page("/debug/console.html")
    result = client.console(target_id=tab["tabId"])
    assert result["tabId"] == tab["tabId"]
    by_text = {m["text"]: m for m in result["messages"]}
    assert by_text["debug line"]["type"] == "debug"
    assert by_text["info line"]["type"] == "info"
    assert by_text["warning line"]["type"] == "warning"
    assert by_text["error line"]["type"] == "error"
    assert 'log line 42 {a: 1, b: "x"} [1, 2]' in by_text
    assert "cart has 3 items" in by_text
    entry = by_text["warning line"]
    assert entry["location"]["url"] == site.url("/debug/console.html")
    assert entry["location"]["lineNumber"] == 9  # 0-based, as CDP reports it
    assert isinstance(entry["timestamp"], float) and entry["timestamp"] > 1.6e12


def test_console_level_filter_keeps_that_level_and_above(client, page):
    tab = page("/debug/console.html")
    tab_id = tab["tabId"]
    every = texts(client.console(target_id=tab_id))
    assert "debug line" in every
    log_and_up = texts(client.console(level="log", target_id=tab_id))
    assert (
        "debug line" not in log_and_up
        and "info line" in log_and_up
        and "cart has 3 items" in log_and_up
    )
    assert texts(client.console(level="info", target_id=tab_id)) == log_and_up
    assert set(texts(client.console(level="warning", target_id=tab_id))) == {
        "warning line",
        "error line",
    }
    assert texts(client.console(level="error", target_id=tab_id)) == ["error line"]


def test_console_level_that_is_not_a_level_is_400_naming_the_field(client, page):
    tab = page("/debug/console.html")
    with pytest.raises(errors.InvalidRequest) as caught:
        client.console(level="loud", target_id=tab["tabId"])
    assert caught.value.code == "INVALID_REQUEST" and "level" in caught.value.message


def test_a_burst_of_600_messages_keeps_the_newest_500(client, page, service):
    tab = page("/debug/console.html")
    tab_id = tab["tabId"]
    client.request("GET", "/console", params={"targetId": tab_id, "clear": "true"})
    assert evaluate(service, client, tab_id, "burst(600)") == 600
    result = wait_until(
        lambda: (r := client.console(target_id=tab_id)) and "burst 599" in texts(r) and r,
        message="the last burst message",
    )
    got = texts(result)
    assert len(got) == 500
    assert got[0] == "burst 100" and got[-1] == "burst 599"
    status = client.status()
    assert status["console"]["tabs"][tab_id]["messages"] == 500


def test_console_clear_forgets_what_was_read(client, page):
    tab = page("/debug/console.html")
    first = client.request("GET", "/console", params={"targetId": tab["tabId"], "clear": "true"})
    assert "info line" in texts(first)
    assert client.console(target_id=tab["tabId"])["messages"] == []


def test_console_wrap_marks_page_text_as_untrusted(client, page):
    tab = page("/debug/console.html")
    result = client.request(
        "GET", "/console", params={"targetId": tab["tabId"], "wrap": "true", "level": "error"}
    )
    [message] = result["messages"]
    assert message["text"].startswith("<<<EXTERNAL_UNTRUSTED_CONTENT id=")
    assert "error line" in message["text"]


# -- page errors --------------------------------------------------------------------------------
def test_an_error_thrown_by_the_first_script_is_recorded(client, page, site):
    tab = page("/debug/errors.html")
    [error] = client.errors(target_id=tab["tabId"])["errors"]
    assert error["name"] == "RangeError"
    assert error["message"] == "out of range on load"
    assert "explode" in error["stack"] and site.url("/debug/errors.html") in error["stack"]
    assert error["timestamp"] > 1.6e12


def test_uncaught_errors_and_rejections_are_recorded_and_clear_forgets_them(client, page, service):
    tab = page("/debug/console.html")
    tab_id = tab["tabId"]
    evaluate(service, client, tab_id, "(throwLater('bad thing'), rejectLater('no promise'), 1)")
    found = wait_until(
        lambda: len(r := client.errors(target_id=tab_id)["errors"]) >= 2 and r,
        message="two page errors",
    )
    by_message = {e["message"]: e for e in found}
    assert by_message["bad thing"]["name"] == "TypeError"
    assert by_message["bad thing"]["stack"].startswith("TypeError: bad thing\n    at ")
    assert by_message["bad thing"]["location"]["url"].endswith("/debug/console.html")
    assert by_message["no promise"]["name"] == "Error"
    cleared = client.errors(clear=True, target_id=tab_id)["errors"]
    assert len(cleared) == 2
    assert client.errors(target_id=tab_id)["errors"] == []


# -- requests -----------------------------------------------------------------------------------
def test_requests_record_method_status_type_and_failures(client, page, site, service):
    site.route("/debug/api/created", lambda h: drained(h, 201, '{"made": true}'))
    tab = page("/debug/fetch.html")
    tab_id = tab["tabId"]
    evaluate(service, client, tab_id, "load('/debug/api/created', {method: 'POST', body: 'x'})")
    evaluate(service, client, tab_id, "load('/debug/nothing-here.json')")
    evaluate(service, client, tab_id, "load('http://127.0.0.1:1/refused')")
    # an image of a URL no renderer has seen: the page's own <img> may come from the memory cache
    evaluate(
        service,
        client,
        tab_id,
        "new Promise(done => { const i = new Image(); i.onload = () => done(1); "
        "i.src = '/debug/pixel.png?as-image=' + Date.now(); document.body.append(i); })",
    )
    rows = wait_until(
        lambda: [
            r
            for r in client.requests(target_id=tab_id)["requests"]
            if r["status"] is not None or r["failureText"]
        ],
        message="finished requests",
    )
    rows = {r["url"]: r for r in client.requests(target_id=tab_id)["requests"]}
    document = rows[site.url("/debug/fetch.html")]
    assert document["method"] == "GET" and document["resourceType"] == "Document"
    assert document["status"] == 200 and document["ok"] is True and document["failureText"] is None
    image = [r for url, r in rows.items() if url.startswith(site.url("/debug/pixel.png?as-image="))]
    assert len(image) == 1 and image[0]["resourceType"] == "Image" and image[0]["status"] == 200
    created = rows[site.url("/debug/api/created")]
    assert (created["method"], created["status"], created["ok"], created["resourceType"]) == (
        "POST",
        201,
        True,
        "Fetch",
    )
    missing = rows[site.url("/debug/nothing-here.json")]
    assert missing["status"] == 404 and missing["ok"] is False
    refused = wait_until(
        lambda: {r["url"]: r for r in client.requests(target_id=tab_id)["requests"]}[
            "http://127.0.0.1:1/refused"
        ]["failureText"],
        message="refused request to fail",
    )
    assert refused.startswith("net::ERR_")
    assert all(
        set(r)
        == {"id", "timestamp", "method", "url", "resourceType", "status", "ok", "failureText"}
        for r in rows.values()
    )


def test_requests_filter_by_substring_and_clear(client, page, site, service):
    tab = page("/debug/fetch.html")
    tab_id = tab["tabId"]
    # a fresh URL: the page's own <img> may come from Blink's memory cache, which makes no request
    evaluate(service, client, tab_id, "load('/debug/pixel.png?fresh=1')")
    only_png = client.requests(filter="pixel", target_id=tab_id)["requests"]
    assert only_png and all("pixel.png" in r["url"] for r in only_png)
    assert site.url("/debug/pixel.png?fresh=1") in [r["url"] for r in only_png]
    assert len(client.requests(clear=True, target_id=tab_id)["requests"]) >= 2
    assert client.requests(target_id=tab_id)["requests"] == []


def test_a_redirect_keeps_each_hop(client, page, site, service):
    site.route(
        "/debug/api/moved", lambda h: answer(h, 302, "", headers={"Location": "/debug/api/landed"})
    )
    site.route("/debug/api/landed", lambda h: answer(h, 200, "landed", "text/plain"))
    tab = page("/debug/fetch.html")
    assert evaluate(service, client, tab["tabId"], "load('/debug/api/moved')") == "landed"
    rows = client.requests(filter="/debug/api/", target_id=tab["tabId"])["requests"]
    assert [(r["url"].rsplit("/", 1)[1], r["status"]) for r in rows] == [
        ("moved", 302),
        ("landed", 200),
    ]
    assert rows[0]["id"] != rows[1]["id"]


# -- lifetime -----------------------------------------------------------------------------------
def test_closing_a_tab_frees_its_buffers(client, site):
    tab = client.open(site.url("/debug/console.html"))
    tab_id = tab["tabId"]
    before = client.status()
    assert before["console"]["tabs"][tab_id]["messages"] >= 6
    assert before["network"]["tabs"][tab_id]["requests"] >= 1
    client.close_tab(tab_id)
    after = client.status()
    assert tab_id not in after["console"]["tabs"] and tab_id not in after["network"]["tabs"]
    assert (
        after["console"]["buffersFreed"] == before["console"]["buffersFreed"] + 2
    )  # messages and errors
    assert after["network"]["buffersFreed"] == before["network"]["buffersFreed"] + 1
    assert after["tabsFreed"] == before["tabsFreed"] + 1
    with pytest.raises(errors.TabNotFound):
        client.console(target_id=tab_id)


def test_a_popup_has_its_own_console_from_its_first_script(client, page, service):
    opener = page("/debug/popup.html")
    known = {t["tabId"] for t in client.tabs()["tabs"]}
    evaluate(service, client, opener["tabId"], "openPopup('/debug/errors.html')")
    popup = wait_until(
        lambda: [t for t in client.tabs()["tabs"] if t["tabId"] not in known], message="popup"
    )[0]
    try:
        found = wait_until(
            lambda: client.errors(target_id=popup["tabId"])["errors"], message="popup error"
        )
        assert found[0]["message"] == "out of range on load"
        assert client.errors(target_id=opener["tabId"])["errors"] == []
    finally:
        client.close_tab(popup["tabId"])


# -- CLI ----------------------------------------------------------------------------------------
def test_cli_console_errors_and_requests_print_what_the_api_returns(service, page, site):
    tab = page("/debug/errors.html")
    status, out, err = cli(service, "console", "--target", tab["tabId"])
    assert status == 0, err
    status, out, err = cli(service, "errors", "--target", tab["tabId"])
    assert status == 0 and "out of range on load" in out
    status, out, err = cli(service, "requests", "--target", tab["tabId"], "--filter", "errors.html")
    assert status == 0 and f"GET 200 {site.url('/debug/errors.html')}" in out
    status, out, err = cli(service, "--json", "errors", "--target", tab["tabId"], "--clear")
    assert status == 0 and json.loads(out)["errors"][0]["name"] == "RangeError"
    assert cli(service, "errors", "--target", tab["tabId"])[1].strip() == "(no page errors)"


def test_cli_console_prints_level_text_and_location(service, page, site):
    tab = page("/debug/console.html")
    status, out, err = cli(service, "console", "--target", tab["tabId"], "--level", "warning")
    assert status == 0, err
    lines = out.strip().splitlines()
    assert (
        lines[0].startswith("[warning] warning line")
        and site.url("/debug/console.html") in lines[0]
    )
    assert lines[1].startswith("[error] error line")
    assert len(lines) == 2
