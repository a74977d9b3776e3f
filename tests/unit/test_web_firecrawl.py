"""Firecrawl, web_fetch's optional last tier: a site that answers with a bot wall is read
through Firecrawl (a loopback fake checks the request); off by default, the wall is returned as
the site's own page with its status; a failing Firecrawl leaves the wall with a note."""

from __future__ import annotations

import pytest

from clawd.web.firecrawl import is_bot_wall
from tests.support.site import answer
from tests.support.web_fakes import KEYS, FakeProviders
from tests.support.webtier import tier

WALL = (
    "<html><head><title>Just a moment...</title></head><body><div id='cf-chl-widget'>"
    "Checking your browser before accessing the site.</div><script></script></body></html>"
)


@pytest.fixture(scope="module")
def fakes():
    f = FakeProviders()
    yield f
    f.close()


@pytest.fixture
def walled(site):
    cloudflare = {"cf-mitigated": "challenge"}
    site.route("/web/dyn/walled", lambda h: answer(h, 403, WALL, headers=cloudflare))
    return site.url("/web/dyn/walled")


def firecrawl_tier(fakes, **firecrawl):
    firecrawl = {
        "enabled": True,
        "apiKey": KEYS["firecrawl"],
        "baseUrl": fakes.base("firecrawl"),
        **firecrawl,
    }
    return tier({"fetch": {"cacheTtlMinutes": 0, "firecrawl": firecrawl}})


def test_a_bot_wall_is_read_through_firecrawl(fakes, walled):
    result = firecrawl_tier(fakes, proxy="stealth").reader.read(walled, render="never")
    assert (result["extractor"], result["status"]) == ("firecrawl", 200)
    assert result["title"] == "Behind the wall"
    assert result["text"] == "# Behind the wall\n\nThe real article text."
    sent = fakes.seen("firecrawl")[-1].body
    assert sent == {
        "url": walled,
        "formats": ["markdown"],
        "onlyMainContent": True,
        "maxAge": 172800000,
        "proxy": "stealth",
    }


def test_without_firecrawl_the_wall_is_the_sites_own_403(walled):
    result = tier({"fetch": {"cacheTtlMinutes": 0}}).reader.read(walled, render="never")
    assert (result["ok"], result["status"]) == (True, 403)
    assert "Checking your browser" in result["text"]


def test_the_key_may_come_from_the_environment(fakes, walled):
    firecrawl = {"enabled": True, "baseUrl": fakes.base("firecrawl")}
    web = tier(
        {"fetch": {"cacheTtlMinutes": 0, "firecrawl": firecrawl}},
        env={"FIRECRAWL_API_KEY": KEYS["firecrawl"]},
    )
    assert web.reader.read(walled, render="never")["extractor"] == "firecrawl"


def test_a_failing_firecrawl_leaves_the_wall_with_a_note(fakes, walled):
    fakes.queue("firecrawl", 500, {"error": "scrape failed"})
    result = firecrawl_tier(fakes).reader.read(walled, render="never")
    assert result["status"] == 403 and "Firecrawl failed" in result["note"]


def test_an_ordinary_page_never_goes_to_firecrawl(fakes, site):
    before = len(fakes.seen("firecrawl"))
    firecrawl_tier(fakes).reader.read(site.url("/web/article.html"))
    assert len(fakes.seen("firecrawl")) == before


@pytest.mark.parametrize(
    "status, headers, page, wall",
    [
        (403, {"cf-mitigated": "challenge"}, "", True),
        (503, {}, "<title>Just a moment...</title>", True),
        (429, {}, "<div class='g-recaptcha'>captcha</div>", True),
        (404, {}, "<title>Just a moment...</title>", False),
        (403, {}, "<h1>Forbidden</h1><p>You may not see this directory.</p>", False),
    ],
)
def test_what_counts_as_a_bot_wall(status, headers, page, wall):
    assert is_bot_wall(status, headers, page) is wall
