"""Tab titles stay current (issue 14, bug 3): after a form submission, a popup, a title changed by
script, /tabs and act responses show the page's title now, not the one it had before."""

from __future__ import annotations

import pytest

from tests.support.act import opened_pages
from tests.support.page_eval import wait_until


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


def listed_title(client, tab_id: str) -> str:
    return next(t["title"] for t in client.tabs()["tabs"] if t["tabId"] == tab_id)


def test_a_form_submission_reports_the_new_pages_title(client, page):
    p = page("/titles/start.html")
    result = p.act("click", ref=p.ref("button", "Send"))
    assert (
        result["url"].endswith("/titles/after-submit.html?q=x") and result["title"] == "Submitted"
    )
    assert listed_title(client, p.id) == "Submitted"


def test_a_popup_is_reported_with_its_own_title_and_the_opener_keeps_its(client, page):
    p = page("/titles/start.html")
    result = p.act("click", ref=p.ref("button", "Open popup"))
    (popup,) = result["openedTabs"]
    try:
        assert result["title"] == "Start page"
        wait_until(
            lambda: listed_title(client, popup["tabId"]) == "Popup page",
            message=lambda: f"popup title in /tabs: {listed_title(client, popup['tabId'])!r}",
        )
        assert listed_title(client, p.id) == "Start page"
    finally:
        client.close_tab(popup["tabId"])


def test_a_title_set_by_the_action_is_in_its_response_and_in_tabs(client, page):
    p = page("/titles/start.html")
    assert p.act("click", ref=p.ref("button", "Rename now"))["title"] == "Renamed at once"
    assert listed_title(client, p.id) == "Renamed at once"


def test_a_title_set_later_by_script_reaches_tabs(client, page):
    p = page("/titles/start.html")
    p.act("click", ref=p.ref("button", "Rename later"))
    wait_until(
        lambda: listed_title(client, p.id) == "Renamed by script",
        message=lambda: f"title in /tabs: {listed_title(client, p.id)!r}",
    )


def test_a_navigation_by_link_reports_the_title_the_page_has_once_loaded(client, page):
    p = page("/titles/start.html")
    p.act("click", ref=p.ref("link", "Go slow"))
    wait_until(
        lambda: listed_title(client, p.id) == "Loaded at last",
        message=lambda: f"title in /tabs: {listed_title(client, p.id)!r}",
    )
    assert client.snapshot(target_id=p.id)["url"].endswith("/titles/slow-title.html")
