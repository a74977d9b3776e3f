"""The navigation policy in the browser: sub-frame documents judged before they load, and the
last line of defence that closes a tab resting on a blocked URL."""

from __future__ import annotations

import time

import pytest

from clawd import errors
from tests.support.site import answer


def test_tab_that_lands_on_a_blocked_url_is_quarantined(client, service, site):
    opened = client.open(site.url("/index.html"), label="doomed-tab")
    tab = service.live_tab(opened["tabId"])
    # Every request a tab makes is paused and judged first, so no real navigation lands on a
    # blocked URL; what this last line guards against (a load that made no request) is fed to
    # the live event bus as Chromium would report it.
    tab.session.connection.events.publish(
        "Page.frameNavigated",
        {
            "frame": {"id": tab.target_id, "url": "http://10.0.0.1/admin", "loaderId": "x"},
            "type": "Navigation",
        },
        tab.session.session_id,
    )
    deadline = time.monotonic() + 10
    while opened["tabId"] in {t["tabId"] for t in client.tabs()["tabs"]}:
        assert time.monotonic() < deadline, "the tab was not closed"
        time.sleep(0.05)
    for key in (opened["tabId"], opened["targetId"], "doomed-tab"):
        with pytest.raises(errors.TabQuarantined):
            client.navigate(site.url("/index.html"), target_id=key)


def test_iframe_of_a_blocked_host_is_not_loaded(client, site, tab):
    site.route(
        "/framed-private",
        lambda h: answer(
            h,
            200,
            f'<title>outer</title><iframe src="http://localhost:{site.port}/index.html?frame=1"></iframe>',
        ),
    )
    client.navigate(site.url("/framed-private"), target_id=tab["tabId"])
    assert "/index.html?frame=1" not in site.hits


def test_browser_initiated_file_navigation_is_blocked_before_it_loads(client, service, site, tab):
    live = service.live_tab(tab["tabId"])
    live.session.call("Page.navigate", {"url": "file:///etc/hostname"})
    text = live.session.call(
        "Runtime.evaluate",
        {"expression": "document.body ? document.body.innerText : ''", "returnByValue": True},
    )["result"]["value"]
    assert live.url.startswith("file:") is False or "hostname" not in text
    assert (
        client.navigate(site.url("/index.html"), target_id=tab["tabId"])["title"]
        == "clawd test site"
    )


def test_an_action_reports_the_navigation_it_caused_that_was_blocked(client, site, tab):
    site.route(
        "/to-blocked",
        lambda h: answer(
            h,
            200,
            f"""<title>links</title>
        <a id="bad" href="http://localhost:{site.port}/index.html?via-click">bad link</a>
        <a id="good" href="/long.html">good link</a>""",
        ),
    )
    client.navigate(site.url("/to-blocked"), target_id=tab["tabId"])
    snapshot = client.snapshot(target_id=tab["tabId"])
    refs = {info["name"]: ref for ref, info in snapshot["refs"].items()}
    blocked = client.click(refs["bad link"], target_id=tab["tabId"])
    assert blocked["navigationBlocked"]["code"] == "NAVIGATION_BLOCKED"
    assert blocked["navigationBlocked"]["url"].startswith("http://localhost:")
    assert not any("via-click" in h for h in site.hits)
    client.navigate(site.url("/to-blocked"), target_id=tab["tabId"])
    refs = {
        info["name"]: ref for ref, info in client.snapshot(target_id=tab["tabId"])["refs"].items()
    }
    fine = client.click(refs["good link"], target_id=tab["tabId"])
    assert "navigationBlocked" not in fine and fine["title"] == "Long page"
