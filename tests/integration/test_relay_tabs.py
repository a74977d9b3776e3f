"""Which tabs an act opened: only windows its own tab opened (Chromium's openerId), never one
another tab opened while the act ran; with or without the opener kept (noopener), and from an
iframe of the tab. The relay's own popups and downloads are in test_effects_drivers.py."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.support.act import Page, opened_pages
from tests.support.page_eval import wait_until
from tests.support.service import OTHER_SITE, two_site_service
from tests.support.site import answer

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(120)]

OPENER = "/relay-tabs/opener.html"
OPENED = "/relay-tabs/opened.html"
HOLD = "/relay-tabs/hold"


@pytest.fixture
def page(client, site) -> Iterator:
    yield from opened_pages(client, site)


def _new_tabs(client, known: set[str]) -> list[str]:
    return [t["tabId"] for t in client.tabs()["tabs"] if t["tabId"] not in known]


def _close(client, tab_ids) -> None:
    for tab_id in tab_ids:
        client.close_tab(tab_id)


class Hold:
    """A site route that answers only once released: an act whose click fetches it is still
    settling while the test does something else."""

    def __init__(self, site):
        self.entered = threading.Event()
        self.released = threading.Event()
        site.route(HOLD, self._answer)

    def _answer(self, handler) -> None:
        self.entered.set()
        self.released.wait(30)
        answer(handler, body=b"{}", content_type="application/json")


def test_an_act_never_lists_a_window_another_tab_opened_while_it_ran(client, site, page):
    opener, other = page(OPENER), page(OPENER)
    hold, answers = Hold(site), []
    acting = threading.Thread(
        target=lambda: answers.append(other.act("click", ref=other.ref("button", "Hold")))
    )
    known = {t["tabId"] for t in client.tabs()["tabs"]}
    acting.start()
    popups: list[str] = []
    try:
        assert hold.entered.wait(30), "the held click never fetched"
        # the other tab opens a window while `other`'s act is still settling on its fetch
        opener.act("click", ref=opener.ref("button", "Open window"))
        popups = wait_until(lambda: _new_tabs(client, known), message="the popup listed")
    finally:
        hold.released.set()
        acting.join(60)
        _close(client, popups)
    (done,) = answers
    assert "openedTabs" not in done and "openedTabs" not in done["effect"], done


@pytest.mark.parametrize(
    ("role", "name"),
    [("button", "Open window"), ("link", "Blank link"), ("link", "Noopener link")],
)
def test_a_window_the_tab_opens_is_its_opened_tab_with_or_without_an_opener(
    client, page, role, name
):
    opener = page(OPENER)
    done = opener.act("click", ref=opener.ref(role, name))
    opened = [t["tabId"] for t in done.get("openedTabs", [])]
    _close(client, opened)
    assert len(opened) == 1 and done["effect"].get("openedTabs") == opened, done


def test_a_window_an_iframe_of_the_tab_opens_is_its_opened_tab(client, page):
    opener = page(OPENER)
    ref = _ref_named(opener, "Open from frame")  # the iframe's button: a frame ref
    done = opener.act("click", ref=ref)
    opened = [t["tabId"] for t in done.get("openedTabs", [])]
    _close(client, opened)
    assert len(opened) == 1, done


def test_a_popup_knows_its_opener_even_without_access_to_it(service, client, page):
    """Measured on Chromium 156: openerId is the opener's targetId for window.open, target=_blank
    and rel=noopener alike (only canAccessOpener differs), so filtering on it keeps noopener."""
    opener: Page = page(OPENER)
    known = {t["tabId"] for t in client.tabs()["tabs"]}
    opener.act("click", ref=opener.ref("link", "Noopener link"))
    (popup,) = wait_until(lambda: _new_tabs(client, known), message="the popup listed")
    try:
        assert service.live_tab(popup).opener_id == service.live_tab(opener.id).target_id
    finally:
        client.close_tab(popup)


def test_a_window_a_cross_site_iframe_opens_is_its_tab_s_opened_tab(tmp_path, site):
    """A frame in a process of its own is a target of its own, yet its window's openerId names
    the tab's own target (measured on Chromium 156)."""
    with two_site_service(tmp_path) as (running, client):
        pages = opened_pages(client, site)
        try:
            opener = next(pages)(f"/relay-tabs/cross-opener.html?cross={OTHER_SITE}")
            tab = running.live_tab(opener.id)
            wait_until(lambda: len(tab.child_sessions()) == 1, message="the frame's own target")
            ref = wait_until(lambda: _ref_named(opener, "Open from frame"), message="its button")
            done = opener.act("click", ref=ref)
            opened = [t["tabId"] for t in done.get("openedTabs", [])]
            _close(client, opened)
            assert len(opened) == 1, done
        finally:
            next(pages, None)


def _ref_named(page: Page, name: str) -> str | None:
    page.snapshot()
    return next((r for r, info in page.refs.items() if info["name"] == name), None)
