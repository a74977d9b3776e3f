"""The walker's shortcuts keep the output exact: ::before/::after content is looked up only
when some style sheet of the page may give it (so every kind of sheet must count), and names
known without Chrome (an unnamed table) do not ask it. Labels read from the per-tree index are
checked against Chrome in test_snapshot_names.py (names.html)."""

from __future__ import annotations

import re

import pytest

from tests.support.site import answer

SHADOW = """<p id="host"></p><script>
  document.getElementById("host").attachShadow({mode: "open"}).innerHTML =
    '<style>b::before { content: "Generated "; }</style><b>text</b>';
</script>"""
ADOPTED = """<p class="g">text</p><script>
  const sheet = new CSSStyleSheet();
  sheet.replaceSync('.g::before { content: "Generated "; }');
  document.adoptedStyleSheets = [sheet];
</script>"""

PAGES = {
    "plain-rule": '<style>.g::before { content: "Generated "; }</style><p class="g">text</p>',
    "single-colon": '<style>.g:before { content: "Generated "; }</style><p class="g">text</p>',
    "after": '<style>.g::after { content: " Generated"; }</style><p class="g">text</p>',
    "media": '<style>@media screen { .g::before { content: "Generated "; } }</style>'
    '<p class="g">text</p>',
    "supports-layer": '<style>@supports (display: block) { @layer base { '
    '.g::before { content: "Generated "; } } }'
    '</style><p class="g">text</p>',
    "nested": '<style>.g { &::before { content: "Generated "; } }</style><p class="g">text</p>',
    "import": '<style>@import url("/pseudo-import.css");</style><p class="g">text</p>',
    "link": '<link rel="stylesheet" href="/pseudo-import.css"><p class="g">text</p>',
    "shadow": SHADOW,
    "adopted": ADOPTED,
}


def serve_css(handler):
    answer(handler, body='.g::before { content: "Generated "; }', content_type="text/css")


@pytest.mark.parametrize("kind", sorted(PAGES))
def test_pseudo_content_from_every_kind_of_style_sheet_is_printed(client, site, tab, kind):
    site.route("/pseudo-import.css", serve_css)
    site.route(
        f"/pseudo-{kind}.html",
        lambda h: answer(h, body="<!doctype html><title>p</title>" + PAGES[kind]),
    )
    client.navigate(site.url(f"/pseudo-{kind}.html"), target_id=tab["tabId"])
    text = client.request("GET", "/snapshot", params={"targetId": tab["tabId"]})["snapshot"]
    generated = "text Generated" if kind == "after" else "Generated text"
    assert generated in text, text


def test_a_page_without_pseudo_rules_reads_its_plain_text(client, site, tab):
    site.route(
        "/pseudo-none.html",
        lambda h: answer(
            h,
            body="<!doctype html><title>n</title>"
            "<style>p { color: red; }</style><p>plain <b>text</b></p>",
        ),
    )
    client.navigate(site.url("/pseudo-none.html"), target_id=tab["tabId"])
    text = client.request("GET", "/snapshot", params={"targetId": tab["tabId"]})["snapshot"]
    assert re.search(r"- paragraph \[ref=e\d+\]: plain text", text), text


def test_an_unnamed_table_asks_chrome_nothing_and_a_captioned_one_asks(client, site, tab):
    cells = "<tr><td>cell</td></tr>"
    site.route(
        "/table-plain.html",
        lambda h: answer(h, body=f"<!doctype html><title>t</title><table>{cells}</table>"),
    )
    site.route(
        "/table-caption.html",
        lambda h: answer(
            h,
            body=f"<!doctype html><title>t</title><table><caption>Prices</caption>{cells}</table>",
        ),
    )
    client.navigate(site.url("/table-plain.html"), target_id=tab["tabId"])
    plain = client.request("GET", "/snapshot", params={"targetId": tab["tabId"]})
    assert plain["stats"]["chromeNames"] == 0 and "- table [ref=" in plain["snapshot"], plain
    client.navigate(site.url("/table-caption.html"), target_id=tab["tabId"])
    captioned = client.request("GET", "/snapshot", params={"targetId": tab["tabId"]})
    assert captioned["stats"]["chromeNames"] >= 1 and '- table "Prices"' in captioned["snapshot"], (
        captioned
    )
