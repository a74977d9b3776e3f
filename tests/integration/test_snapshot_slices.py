"""A long snapshot comes from the page in slices asked for together (page/snapshot/aria.py
_packed, snapshot.js clawd.slice): the text is whole, and a slice never ends between the two
halves of a surrogate pair (an emoji at the edge would come back as two broken characters)."""

from __future__ import annotations

from clawd.page.snapshot import aria, build
from tests.support.site import answer

RUN = "\U0001f600" * 60000  # 120,000 UTF-16 units: more than a slice, edges inside the run
HEAD = '<!doctype html><meta charset="utf-8">'


def snap(client, tab) -> dict:
    return client.request("GET", "/snapshot", params={"targetId": tab["tabId"], "maxChars": 0})


def test_a_long_snapshot_comes_whole_whatever_falls_on_a_slice_edge(client, site, tab, service):
    # the answers differ by one character before the run (the title; the urls are as long):
    # in one of the two an edge falls inside a pair
    for number, title in ((1, "A"), (2, "AB")):
        body = f"{HEAD}<title>{title}</title><p>{RUN}</p><button>After</button>"
        site.route(f"/slices-{number}.html", lambda h, body=body: answer(h, body=body))
        client.navigate(site.url(f"/slices-{number}.html"), target_id=tab["tabId"])
        # the service's own text: over HTTP, JSON's escapes would mend a broken pair
        own = build.take(service.live_tab(tab["tabId"]), build.Options(max_chars=0))["snapshot"]
        assert len(own.encode("utf-16-le")) // 2 > aria.SLICE, "short enough for one answer"
        assert RUN in own, f"the emoji run came back broken ({len(own)} characters)"
        assert own.encode("utf-8")  # no lone surrogate left in it
        taken = snap(client, tab)
        assert RUN in taken["snapshot"] and '- button "After"' in taken["snapshot"], taken


def test_slices_of_an_iframe_and_of_a_page_that_asks_chrome_names(client, site, tab):
    child = f"{HEAD}<p>{RUN}</p>"
    page = (
        # whitespace-only text at a link's edge inside a heading: the walker asks Chrome
        f"{HEAD}<title>n</title>"
        '<h2><span>Site</span> <a href="/x"> <span>Heading link</span></a></h2>'
        f"<p>{RUN}</p>"
        '<iframe src="/slices-child.html"></iframe>'
    )
    site.route("/slices-child.html", lambda h: answer(h, body=child))
    site.route("/slices-named.html", lambda h: answer(h, body=page))
    client.navigate(site.url("/slices-named.html"), target_id=tab["tabId"])
    taken = snap(client, tab)
    assert taken["stats"]["chromeNames"] >= 1, taken["stats"]
    assert taken["snapshot"].count(RUN) == 2, "the page's run and the iframe's"
    assert "Heading link" in taken["snapshot"]
