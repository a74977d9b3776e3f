"""render: pages that build their text with scripts are read through the real browser, in a
throwaway tab that is strict for its whole life and is closed afterwards, leaving the agent's
own tab in use."""

from __future__ import annotations

import pytest

from tests.support.page_eval import wait_until
from tests.support.site import answer


@pytest.fixture(scope="module")
def web(service):
    return service


def fetch(client, url: str, **body) -> dict:
    return client.request("POST", "/web/fetch", json={"url": url, "wrap": False, **body})


def test_render_auto_reads_a_single_page_app_through_the_browser(web, client, site):
    result = fetch(client, site.url("/web/spa.html"))
    assert result["extractor"] == "browser" and result["status"] == 200
    assert result["title"] == "Lighthouse Keepers of the Bay"
    assert "keepers of the bay lit the lamp at dusk" in result["text"]
    assert result["url"] == site.url("/web/spa.html")


def test_render_never_keeps_the_static_text(web, client, site):
    result = fetch(client, site.url("/web/spa.html"), render="never")
    assert result["extractor"] != "browser" and "Lighthouse" not in result["text"]


def test_render_always_reads_even_a_plain_article_through_the_browser(web, client, site):
    result = fetch(client, site.url("/web/article.html"), render="always")
    assert result["extractor"] == "browser"
    assert "## What lives in the pools" in result["text"]


def test_a_page_with_enough_static_text_is_not_rendered(web, client, site):
    assert fetch(client, site.url("/web/article.html"))["extractor"] == "trafilatura"


def test_the_throwaway_tab_is_closed_and_the_agents_tab_stays_in_use(web, client, site, tab):
    before = client.tabs()["tabs"]
    fetch(client, site.url("/web/spa.html"), render="always", maxChars=150)
    after = client.tabs()["tabs"]
    assert [t["tabId"] for t in after] == [t["tabId"] for t in before]
    assert next(t for t in after if t["active"])["tabId"] == tab["tabId"]


def test_the_render_tab_is_strict_where_an_ordinary_tab_is_not(web, client, site, tab):
    site.route("/web/dyn/leak.png", lambda h: answer(h, 404, "", "image/png"))

    def leaked(tag):
        return any(h.startswith(f"/web/dyn/leak.png?tag={tag}") for h in site.hits)

    client.navigate(site.url("/web/leaky.html?tag=ordinary"), target_id=tab["tabId"])
    wait_until(lambda: leaked("ordinary"), message="the control tab letting the image out")
    result = fetch(client, site.url("/web/leaky.html?tag=render"), render="always")
    assert "harbour master keeps a chalkboard" in result["text"]
    assert not leaked("render")


def test_a_blocked_url_is_refused_before_any_tab_opens(web, client):
    before = len(client.tabs()["tabs"])
    with pytest.raises(Exception) as caught:
        fetch(client, "http://localhost:9/", render="always")
    assert getattr(caught.value, "code", None) == "NAVIGATION_BLOCKED"
    assert len(client.tabs()["tabs"]) == before
