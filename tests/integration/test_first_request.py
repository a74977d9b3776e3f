"""Request capture is armed before a page's first request: the fetch a page's first script makes
is in GET /requests for a new tab, the first tab of a freshly launched (or restarted) browser, and
a popup with or without its opener. A new tab's renderer can still be starting when the tab is
handed out; a navigation sent then ran the first script before Network.enable reached it, and the
fetch was never reported (1 in 5 new tabs; bench/first_request.py runs 50 fresh starts)."""

from __future__ import annotations

import pytest

from tests.support.browser import require_chromium, service_config
from tests.support.page_eval import evaluate, wait_until
from tests.support.service import RunningService

PAGE = "/debug/first-fetch.html"  # its first script fetches DATA, then sets the title
OPENER = "/debug/first-fetch-opener.html"  # openPopup(noopener) opens PAGE in a popup
DATA = "first-fetch.json"


def missed(running, client, tab_id: str) -> bool:
    """Once the page says its first fetch finished: True when /requests does not list it."""
    wait_until(
        lambda: (evaluate(running, client, tab_id, "document.title") or "").startswith("fetched"),
        message=f"the first fetch of {tab_id}",
    )
    return not client.requests(filter=DATA, target_id=tab_id)["requests"]


def open_popup(running, client, opener_id: str, noopener: bool) -> str:
    known = {t["tabId"] for t in client.tabs()["tabs"]}
    evaluate(running, client, opener_id, f"openPopup({'true' if noopener else 'false'})")
    return wait_until(
        lambda: [t["tabId"] for t in client.tabs()["tabs"] if t["tabId"] not in known],
        message="the popup",
    )[0]


@pytest.mark.timeout(100)
def test_the_first_fetch_of_every_new_tab_is_listed(service, client, site):
    misses = []
    for _ in range(24):
        tab_id = client.open(site.url(PAGE))["tabId"]
        try:
            if missed(service, client, tab_id):
                misses.append(tab_id)
        finally:
            client.close_tab(tab_id)
    assert misses == [], f"{len(misses)} of 24 new tabs have no {DATA} in /requests"


@pytest.mark.timeout(100)
def test_the_first_fetch_of_a_popup_is_listed_with_or_without_its_opener(service, client, site):
    opener = client.open(site.url(OPENER))["tabId"]
    misses = []
    try:
        for _ in range(6):
            for noopener in (False, True):
                popup = open_popup(service, client, opener, noopener)
                try:
                    if missed(service, client, popup):
                        misses.append(("noopener " if noopener else "") + popup)
                finally:
                    client.close_tab(popup)
    finally:
        client.close_tab(opener)
    assert misses == [], f"popups without {DATA} in /requests: {misses}"


@pytest.mark.timeout(110)
def test_the_first_fetch_on_a_fresh_browser_and_after_restarts_is_listed(tmp_path, site):
    """A new service's browser, then three restarts (POST /stop, POST /start): each time a new tab
    and the browser's own first tab (navigated without a targetId) fetch from their first script."""
    require_chromium()
    running = RunningService(service_config(tmp_path / "home"))
    misses = []
    try:
        client = running.client()
        for start in range(4):
            if start:
                client.stop()
            client.start()
            first = client.navigate(site.url(PAGE))["tabId"]  # the tab the browser started with
            opened = client.open(site.url(PAGE))["tabId"]
            misses += [
                f"start {start}: {kind} {tab_id}"
                for kind, tab_id in (("first tab", first), ("new tab", opened))
                if missed(running, client, tab_id)
            ]
        client.close()
    finally:
        running.close()
    assert misses == [], f"tabs without {DATA} in /requests: {misses}"
