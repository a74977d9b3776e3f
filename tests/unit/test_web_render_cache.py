"""The web_fetch cache and render: an answer a profile's browser rendered is kept for that profile
only (its scope), so no profile is ever handed another's rendered page from the cache."""

from __future__ import annotations

from clawd.web.render import Rendered
from tests.support.webtier import tier


class ScopedBrowser:
    """A stand-in for BrowserReader: draws the page with the name of whose browser it is."""

    def __init__(self, scope: str):
        self.scope = scope
        self.asked: list[str] = []

    def read(self, url: str, timeout: float) -> Rendered:
        self.asked.append(url)
        text = f"<p>Drawn in the browser of {self.scope}. </p>" * 10
        return Rendered(url, 200, "text/html", self.scope, f"<html><body>{text}</body></html>")


def test_one_profiles_rendered_answer_is_never_anothers(site):
    web = tier({"fetch": {"cacheTtlMinutes": 5}})
    url = site.url("/web/spa.html")
    alice, bob = ScopedBrowser("alice"), ScopedBrowser("bob")
    first = web.reader.read(url, render="always", browser=alice)
    second = web.reader.read(url, render="always", browser=bob)
    assert (second["cached"], second["title"]) == (False, "bob") and bob.asked == [url]
    assert "alice" not in second["text"] and "alice" in first["text"]


def test_a_profiles_own_rendered_answer_comes_from_the_cache(site):
    web = tier({"fetch": {"cacheTtlMinutes": 5}})
    url = site.url("/web/spa.html")
    alice = ScopedBrowser("alice")
    web.reader.read(url, render="always", browser=alice)
    again = web.reader.read(url, render="always", browser=ScopedBrowser("alice"))
    assert (again["cached"], again["title"]) == (True, "alice") and alice.asked == [url]
