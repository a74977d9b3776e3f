"""The text operations on snapshot text (page/snapshot/ariatext.py) and the option rules of
page/snapshot/build.py, on literal snapshots: no browser."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.page.snapshot import ariatext
from clawd.page.snapshot.build import DEFAULT_MAX_CHARS, Options

PAGE = """\
- navigation "Main" [ref=e1]:
  - list:
    - listitem:
      - link "Home" [ref=e2] [cursor=pointer]:
        - /url: /home
    - listitem:
      - link "About us" [ref=e3] [cursor=pointer]:
        - /url: about.html
- main:
  - heading "Title" [level=1] [ref=e4]
  - paragraph: Some text
  - generic:
    - generic:
      - text: deep text
  - form "Sign in" [ref=e5]:
    - textbox "Email" [ref=e6]
    - checkbox "Remember me" [checked] [ref=e7]
    - button "OK" [ref=e8]
    - button "OK" [ref=e9] [nth=1]
  - generic [ref=e10] [cursor=pointer]: Pointer div
  - list:
    - listitem [ref=e11]: one"""


def lines(text=PAGE):
    return ariatext.parse(text)


def render(ls):
    return ariatext.render(ls)


def test_parse_and_render_round_trip_with_levels():
    parsed = lines()
    assert render(parsed) == PAGE
    assert [line.level for line in parsed[:5]] == [0, 1, 2, 3, 4]
    assert parsed[3].ref == "e2" and parsed[3].role == "link" and parsed[4].is_prop


def test_interactive_is_a_flat_list_of_refd_interactive_lines():
    assert render(ariatext.interactive(lines())).split("\n") == [
        '- link "Home" [ref=e2] [cursor=pointer]',
        '- link "About us" [ref=e3] [cursor=pointer]',
        '- textbox "Email" [ref=e6]',
        '- checkbox "Remember me" [checked] [ref=e7]',
        '- button "OK" [ref=e8]',
        '- button "OK" [ref=e9] [nth=1]',
        '- generic [ref=e10] [cursor=pointer]: Pointer div',
    ]


def test_interactive_leaves_out_named_content_with_refs():
    flat = render(ariatext.interactive(lines()))
    assert "heading" not in flat and "navigation" not in flat and "listitem" not in flat


def test_compact_drops_unnamed_structure_without_refs_below():
    out = render(ariatext.compact(lines()))
    assert "- generic:\n" not in out and "deep text" not in out
    assert "  - paragraph: Some text" in out  # inline text stays
    assert '- list:\n    - listitem:\n      - link "Home"' in out  # structure above refs stays
    assert "  - list:\n    - listitem [ref=e11]: one" in out


def test_depth_keeps_nothing_deeper_and_fixes_colons():
    out = render(ariatext.depth(lines(), 1))
    assert out.split("\n") == [
        '- navigation "Main" [ref=e1]:',
        "  - list",
        "- main:",
        '  - heading "Title" [level=1] [ref=e4]',
        "  - paragraph: Some text",
        "  - generic",
        '  - form "Sign in" [ref=e5]',
        "  - generic [ref=e10] [cursor=pointer]: Pointer div",
        "  - list",
    ]
    assert render(ariatext.depth(lines(), 0)) == '- navigation "Main" [ref=e1]\n- main'


def test_truncate_cuts_on_a_whole_line_with_the_exact_marker():
    marker = "\n\n[...TRUNCATED - page too large]"
    assert ariatext.TRUNCATION_MARKER == marker
    text, cut = ariatext.truncate(PAGE, 200)
    assert cut and text.endswith(marker) and len(text) <= 200
    kept = text[: -len(marker)]
    assert PAGE.startswith(kept) and PAGE[len(kept)] == "\n"
    assert ariatext.truncate(PAGE, 0) == (PAGE, False)
    assert ariatext.truncate(PAGE, len(PAGE)) == (PAGE, False)
    assert ariatext.truncate(PAGE, 10) == (marker, True)


def test_refs_of_dropped_lines_are_gone_after_truncation():
    text, _ = ariatext.truncate(PAGE, 200)
    assert ariatext.refs_in(text) == {"e1", "e2"}


def test_absolute_urls_from_the_url_child():
    out = render(ariatext.absolute_urls(lines(), "http://127.0.0.1:8000/dir/page.html"))
    assert '- link "Home" [ref=e2] [cursor=pointer] [url=http://127.0.0.1:8000/home]:' in out
    assert (
        '- link "About us" [ref=e3] [cursor=pointer] [url=http://127.0.0.1:8000/dir/about.html]:'
        in out
    )


def test_find_substring_is_case_insensitive_with_ref_and_ancestor_path():
    found = ariatext.find(lines(), "remember")
    assert found == [
        {
            "line": '- checkbox "Remember me" [checked] [ref=e7]',
            "ref": "e7",
            "path": ["- main", '- form "Sign in" [ref=e5]'],
        }
    ]


def test_find_text_line_reports_its_nearest_ancestor_ref():
    found = ariatext.find(lines(), "pointer div")
    assert [m["ref"] for m in found] == ["e10"]
    deep = ariatext.find(lines(), "deep text")
    assert deep[0]["ref"] is None and deep[0]["path"] == ["- main", "- generic", "- generic"]


def test_find_regex_and_limit():
    found = ariatext.find(lines(), '/^button "OK"/')
    assert [m["ref"] for m in found] == ["e8", "e9"]
    assert len(ariatext.find(lines(), "/o/i", limit=3)) == 3
    assert ariatext.find(lines(), "/^HEADING/i")[0]["ref"] == "e4"
    with pytest.raises(errors.InvalidRequest):  # a 400 naming the pattern, not a 500
        ariatext.find(lines(), "/([/")


def test_find_ignores_url_props():
    assert ariatext.find(lines(), "about.html") == []


def test_efficient_mode_fills_only_what_was_not_given():
    # no depth: a depth cut would drop deep interactive lines (a cascading menu's third level)
    opts = Options(mode="efficient").resolved()
    assert (opts.interactive, opts.compact, opts.depth, opts.max_chars) == (True, True, None, 10000)
    mine = Options(mode="efficient", interactive=False, depth=2, max_chars=0).resolved()
    assert (mine.interactive, mine.compact, mine.depth, mine.max_chars) == (False, True, 2, 0)
    plain = Options().resolved()
    assert (plain.interactive, plain.compact, plain.depth, plain.max_chars) == (
        False,
        False,
        None,
        DEFAULT_MAX_CHARS,
    )
    assert DEFAULT_MAX_CHARS == 80000


def test_cursor_pages_are_the_whole_text_and_each_moves_on():
    text = "- a\n- " + "b" * 300 + "\n- c\n- d"
    pages, start = [], 0
    while start is not None:
        page, start = ariatext.page(text, start, 100)
        pages.append(page.removesuffix(ariatext.TRUNCATION_MARKER))
    assert "\n".join(pages) == text and len(pages) == 3  # the long line alone on its page
    assert ariatext.kept_lines(ariatext.truncate(text, 40)[0]) == 1


def test_an_unnamed_interactive_line_carries_its_childrens_text_and_live_regions_stay():
    flat = render(
        ariatext.interactive(
            ariatext.parse(
                "- list [ref=e1]:\n"
                "  - listitem [ref=e2] [cursor=pointer]:\n"
                "    - strong [ref=e3]: Egypt\n"
                "    - text: Africa\n"
                "    - button \"Remove\" [ref=e4]\n"
                "  - status [ref=e5]:\n"
                "    - paragraph [ref=e6]: 3 results found\n"
                "  - status [ref=e7]"
            )
        )
    )
    assert flat == (
        "- listitem [ref=e2] [cursor=pointer]: Egypt Africa\n"
        '- button "Remove" [ref=e4]\n'
        "- status [ref=e5]: 3 results found"
    )
