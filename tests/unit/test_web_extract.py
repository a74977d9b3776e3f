"""What web_fetch makes of what it fetched: main content in markdown and text modes, markdown
passed through, JSON pretty-printed, text as is, binaries refused, charsets, the site's own error
pages, the character limit and the cache."""

from __future__ import annotations

import json

import pytest

from clawd import errors
from clawd.web import decode, extract
from clawd.web.cache import TtlCache
from clawd.words import EXTRACT_MODES
from tests.support.site import SITE_ROOT, answer
from tests.support.webtier import tier


def site_file(name: str) -> str:
    return (SITE_ROOT / name).read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def web():
    return tier({"fetch": {"cacheTtlMinutes": 0}})


# -- HTML -----------------------------------------------------------------------------------------
def test_markdown_keeps_headings_lists_links_and_tables(web, site):
    result = web.reader.read(site.url("/web/article.html"))
    text = result["text"]
    assert result["extractor"] == "trafilatura" and result["status"] == 200
    assert result["title"] == "Tide Pools of the Northern Coast | Field Notes"
    assert "## What lives in the pools" in text
    assert "- Giant green anemones, which close when touched" in text
    assert "[regional tide tables](https://tides.example.org/tables)" in text
    assert "| June | -1.8 ft | 05:42 |" in text
    assert result["length"] == len(text) and result["truncated"] is False


def test_text_mode_is_plain_and_keeps_the_structure_as_lines(web, site):
    text = web.reader.read(site.url("/web/article.html"), mode="text")["text"]
    assert "What lives in the pools" in text and "##" not in text
    assert "regional tide tables" in text and "](https://" not in text
    assert "Giant green anemones" in text and "June" in text


def test_reader_comments_and_navigation_are_left_out(web, site):
    text = web.reader.read(site.url("/web/article.html"))["text"]
    assert "Great guide" not in text and "Subscribe" not in text and "Privacy" not in text


def test_a_page_the_extractor_finds_nothing_in_falls_back_to_the_whole_body(web, site):
    page = '<html><body><div id="comments"><p>Only a comment here.</p></div></body></html>'
    site.route("/web/dyn/tiny.html", lambda h: answer(h, 200, page))
    result = web.reader.read(site.url("/web/dyn/tiny.html"))
    assert (result["extractor"], result["text"]) == ("fallback", "Only a comment here.")


def test_readability_off_returns_the_whole_body_text(site):
    result = tier({"fetch": {"readability": False}}).reader.read(site.url("/web/article.html"))
    assert result["extractor"] == "fallback"
    assert "Subscribe" in result["text"] and "Leave no trace" in result["text"]


def test_an_empty_html_page_is_an_empty_text_not_an_error(web, site):
    site.route("/web/dyn/empty.html", lambda h: answer(h, 200, ""))
    assert web.reader.read(site.url("/web/dyn/empty.html"))["text"] == ""


# -- other content types --------------------------------------------------------------------------
def test_a_site_serving_markdown_is_passed_through_as_is(web, site):
    seen = {}
    body = "# Agents welcome\n\nThis page *is* markdown already.\n"

    def markdown(h):
        seen["accept"] = h.headers["Accept"]
        answer(h, 200, body, "text/markdown; charset=utf-8", headers={"x-markdown-tokens": "12"})

    site.route("/web/dyn/md", markdown)
    result = web.reader.read(site.url("/web/dyn/md"))
    assert (result["extractor"], result["text"]) == ("markdown", body)
    assert result["title"] == "Agents welcome"
    assert seen["accept"].startswith("text/markdown")


def test_json_is_pretty_printed(web, site):
    data = '{"a":[1,{"b":"ü"}]}'
    site.route("/web/dyn/data.json", lambda h: answer(h, 200, data, "application/json"))
    result = web.reader.read(site.url("/web/dyn/data.json"))
    assert result["extractor"] == "json"
    assert json.loads(result["text"]) == {"a": [1, {"b": "ü"}]} and "\n  " in result["text"]


def test_a_3_mb_json_is_cut_at_the_byte_limit_and_returned_as_text(web, site):
    big = json.dumps({"items": ["x" * 100] * 30000}).encode()
    assert len(big) > 3_000_000
    site.route("/web/dyn/big.json", lambda h: answer(h, 200, big, "application/json"))
    result = tier({"fetch": {"maxChars": 200000}}).reader.read(site.url("/web/dyn/big.json"))
    assert result["truncated"] is True and result["extractor"] == "text"
    assert len(result["text"]) == 200000


def test_plain_text_is_returned_as_is(web, site):
    result = web.reader.read(site.url("/act/plain.txt"))
    assert result["extractor"] == "text"
    assert result["text"] == (site_file("act/plain.txt"))


@pytest.mark.parametrize(
    "content_type, body",
    [
        ("image/png", b"\x89PNG\r\n\x1a\n" + bytes(200)),
        ("application/zip", b"PK\x03\x04" + bytes(200)),
        ("application/octet-stream", b"\x00\x01\x02binary" * 50),
        ("", bytes(range(256))),
    ],
)
def test_images_and_binaries_answer_415(web, site, content_type, body):
    site.route("/web/dyn/blob", lambda h: answer(h, 200, body, content_type))
    with pytest.raises(errors.WebUnsupportedContent) as caught:
        web.reader.read(site.url("/web/dyn/blob"))
    assert caught.value.http_status == 415


def test_unlabelled_html_is_read_as_html(web, site):
    site.route("/web/dyn/unlabelled", lambda h: answer(h, 200, site_file("web/article.html"), ""))
    assert web.reader.read(site.url("/web/dyn/unlabelled"))["extractor"] == "trafilatura"


@pytest.mark.parametrize("status", [404, 500, 503])
def test_the_sites_own_errors_are_content_with_their_status(web, site, status):
    page = f"<title>Oops</title><body><h1>Error {status}</h1><p>Nothing here.</p></body>"
    site.route(f"/web/dyn/status-{status}", lambda h: answer(h, status, page))
    result = web.reader.read(site.url(f"/web/dyn/status-{status}"))
    assert result["ok"] is True and result["status"] == status
    assert f"Error {status}" in result["text"] and result["title"] == "Oops"


# -- charsets ------------------------------------------------------------------------------------
RUSSIAN = "Маяк на северном берегу"


def test_the_header_charset_decodes_the_page(web, site):
    body = (SITE_ROOT / "web" / "cp1251.html").read_bytes()
    labelled = "text/html; charset=windows-1251"
    site.route("/web/dyn/cp1251", lambda h: answer(h, 200, body, labelled))
    assert web.reader.read(site.url("/web/dyn/cp1251"))["title"] == RUSSIAN


def test_meta_charset_decodes_a_page_whose_header_names_none(web, site):
    result = web.reader.read(site.url("/web/meta-latin1.html"))
    assert result["title"] == "Café crème" and "garçon connaît déjà" in result["text"]


def test_an_undeclared_charset_is_detected(web, site):
    assert web.reader.read(site.url("/web/cp1251.html"))["title"] == RUSSIAN


def test_an_invalid_charset_label_is_ignored_not_fatal(web, site):
    body = "<title>Ünïcödé ok</title><p>naïve café</p>".encode()
    bogus = "text/html; charset=no-such-charset"
    site.route("/web/dyn/badcharset", lambda h: answer(h, 200, body, bogus))
    assert web.reader.read(site.url("/web/dyn/badcharset"))["title"] == "Ünïcödé ok"


def test_decode_prefers_a_bom_and_reads_latin1_as_windows_1252():
    assert decode.decode(b"\xef\xbb\xbfhi", "text/plain; charset=latin1", "text") == (
        "hi",
        "utf-8-sig",
    )
    assert decode.decode(b"\x93q\x94", "text/plain; charset=iso-8859-1", "text")[0] == "“q”"


# -- maxChars and the cache -----------------------------------------------------------------------
def test_max_chars_cuts_the_text_and_marks_it(web, site):
    result = web.reader.read(site.url("/web/article.html"), max_chars=100)
    assert (result["length"], result["truncated"]) == (100, True)


def test_a_second_fetch_is_answered_from_the_cache(site):
    hits = []

    def counted(h):
        hits.append(1)
        answer(h, 200, "counted", "text/plain")

    site.route("/web/dyn/counted", counted)
    cached = tier()
    first = cached.reader.read(site.url("/web/dyn/counted"))
    second = cached.reader.read(site.url("/web/dyn/counted"))
    other = cached.reader.read(site.url("/web/dyn/counted"), max_chars=150)
    assert (first["cached"], second["cached"], other["cached"]) == (False, True, False)
    assert second["text"] == "counted" and len(hits) == 2


def test_the_cache_expires_entries_and_keeps_at_most_100():
    now = [0.0]
    cache = TtlCache(60, clock=lambda: now[0])
    for i in range(150):
        cache.put(i, {"n": i})
    assert len(cache) == 100 and cache.get(0) is None and cache.get(149) == {"n": 149}
    now[0] = 61
    assert cache.get(149) is None


def test_the_cache_hands_out_copies():
    cache = TtlCache(60)
    cache.put("k", {"list": [1]})
    cache.get("k")["list"].append(2)
    assert cache.get("k") == {"list": [1]}


def test_extract_options_never_take_the_fast_path():
    for mode in EXTRACT_MODES:
        assert "fast" not in extract.options(mode) and "no_fallback" not in extract.options(mode)


def test_pathological_bodies_are_read_without_an_error():
    deep_json = extract.extract("[" * 100000 + "]" * 100000, "json", "markdown")
    assert deep_json.extractor == "text" and len(deep_json.text) == 200000
    deep_html = extract.extract("<div>" * 20000 + "deep" + "</div>" * 20000, "html", "markdown")
    assert deep_html.extractor in ("trafilatura", "fallback")
