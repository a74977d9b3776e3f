"""The render tier's decisions, with a stand-in for the browser: which pages are read again
through it (thin static text and scripts), what a failed render leaves (the static text and a
note, not cached), and render always without a browser."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.web.render import Rendered
from tests.support.webtier import tier

DRAWN = (
    "<html><head><title>Drawn</title></head><body><article><h1>Drawn</h1>"
    + "<p>Words the script drew once it ran, enough of them to be an article. </p>" * 8
    + "</article></body></html>"
)


class FakeBrowser:
    def __init__(self, fail: Exception | None = None):
        self.fail, self.asked = fail, []

    def read(self, url: str, timeout: float) -> Rendered:
        self.asked.append(url)
        if self.fail is not None:
            raise self.fail
        return Rendered(url, 200, "text/html", "Drawn", DRAWN)


@pytest.fixture
def web():
    return tier()


def test_a_thin_page_with_scripts_is_rendered(web, site):
    browser = FakeBrowser()
    result = web.reader.read(site.url("/web/spa.html"), browser=browser)
    assert (result["extractor"], result["title"]) == ("browser", "Drawn")
    assert "Words the script drew" in result["text"]
    assert browser.asked == [site.url("/web/spa.html")]


def test_a_page_with_enough_text_is_not_rendered(web, site):
    browser = FakeBrowser()
    result = web.reader.read(site.url("/web/article.html"), browser=browser)
    assert result["extractor"] == "trafilatura"
    assert browser.asked == []


def test_a_thin_page_without_scripts_is_not_rendered(web, site):
    browser = FakeBrowser()
    page = site.url("/web/meta-latin1.html")  # short, and no script at all
    assert web.reader.read(page, browser=browser)["extractor"] != "browser" and not browser.asked


def test_a_failed_render_keeps_the_static_text_with_a_note_and_is_not_cached(web, site):
    failing = FakeBrowser(errors.BrowserGone("the browser went away"))
    result = web.reader.read(site.url("/web/spa.html"), browser=failing)
    assert result["extractor"] != "browser" and "BROWSER_GONE" in result["note"]
    again = web.reader.read(site.url("/web/spa.html"), browser=FakeBrowser())
    assert (again["cached"], again["extractor"]) == (False, "browser")


def test_render_always_without_a_browser_is_503_browser_disabled(web, site):
    with pytest.raises(errors.BrowserDisabled) as caught:
        web.reader.read(site.url("/web/article.html"), render="always", browser=None)
    assert caught.value.http_status == 503


def test_render_never_never_asks_the_browser(web, site):
    browser = FakeBrowser()
    web.reader.read(site.url("/web/spa.html"), render="never", browser=browser)
    assert browser.asked == []
