"""mode=efficient is short and hides nothing an agent acts on: every interactive element however
deep (a cascading menu's third level), the text of an unnamed clickable on its line (an
autocomplete suggestion, a mail row), and live regions (status, alert, log) with their text."""

from __future__ import annotations

import pytest


def lines(client, site, tab, **params) -> list[str]:
    client.navigate(site.url("/snapshot/efficient.html"), target_id=tab["tabId"])
    taken = client.request("GET", "/snapshot", params={"targetId": tab["tabId"], **params})
    return taken["snapshot"].split("\n")


def line_of(found: list[str], start: str) -> str:
    return next((line for line in found if line.startswith(start)), f"(no line {start!r})")


def test_efficient_lists_a_cascading_menus_deepest_items(client, site, tab):
    found = lines(client, site, tab, mode="efficient")
    for name in ("Products", "Laptops", "Ultrabooks", "Thin 14 inch"):
        assert any(line.startswith(f'- menuitem "{name}" [ref=') for line in found), found


def test_an_unnamed_clickable_carries_its_text_on_its_line(client, site, tab):
    found = lines(client, site, tab, mode="efficient")
    assert "Egypt" in line_of(found, "- listitem [ref="), found
    row = line_of(found, "- generic [ref=")
    assert "[cursor=pointer]" in row and "Ann" in row and "Lunch on Friday?" in row, found


@pytest.mark.parametrize(
    "role, said", [("status", "3 results found"), ("alert", "Card declined"), ("log", "higher!")]
)
def test_live_regions_are_kept_with_their_text(client, site, tab, role, said):
    found = lines(client, site, tab, mode="efficient")
    assert said in line_of(found, f"- {role} [ref="), found
    assert sum(line.startswith("- status") for line in found) == 1, "the empty one says nothing"


def test_an_explicit_depth_says_how_many_interactive_lines_it_cut(client, site, tab):
    found = lines(client, site, tab, interactive="true", depth="5")
    assert not any("Thin 14 inch" in line for line in found), found
    assert "deeper than depth=5 not shown; ask without depth" in found[-1], found
