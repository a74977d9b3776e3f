"""GET /snapshot?delta=true (DESIGN §20) on real Chromium: only the lines added, removed or changed
since the tab's last snapshot, with refs exactly those of a full snapshot; `unchanged` for a
re-render that changed nothing visible; the whole snapshot (`full: true`) for a new document,
another scope, or a delta longer than the text."""

from __future__ import annotations

import pytest

from clawd import errors
from tests.support.act import Page, opened_pages


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


@pytest.fixture
def fx(page) -> Page:
    opened = page("/effects/page.html")
    opened.snapshot()
    return opened


def delta(p: Page, **opts) -> dict:
    return p.client.snapshot(target_id=p.id, delta=True, **opts)


def full_lines(p: Page) -> set[str]:
    return {line.strip() for line in p.snapshot().split("\n")}


def test_the_first_snapshot_of_a_tab_is_full(page):
    p = page("/effects/next.html")
    body = delta(p)
    assert body["full"] is True and "Next" in body["snapshot"]


def test_an_item_added_is_one_added_line_under_its_list(fx):
    fx.act("click", ref=fx.ref("button", "Add item"))
    body = delta(fx)
    (added,) = body["added"]
    assert body["delta"] is True and (body["removed"], body["changed"]) == ([], [])
    assert added["line"].startswith("- listitem [ref=") and added["line"].endswith(": Item 201")
    assert added["parent"].startswith("- list [ref=")
    assert set(body["refs"]) == {added["ref"]}
    assert added["line"] in full_lines(fx)  # the ref a full snapshot gives it


def test_a_removed_item_names_its_ref(fx):
    last = next(line for line in fx.snapshot().split("\n") if "Item 200" in line).strip()
    fx.act("click", ref=fx.ref("button", "Remove item"))
    body = delta(fx)
    assert [r["line"] for r in body["removed"]] == [last] and body["added"] == []


def test_changed_text_keeps_its_ref_with_the_line_before(fx):
    fx.act("click", ref=fx.ref("button", "Save"))
    (changed,) = delta(fx)["changed"]
    assert changed["line"].endswith(": Saved") and changed["before"].endswith(": Draft")
    assert changed["line"] in full_lines(fx)


def test_a_rerender_that_changes_nothing_visible_is_unchanged(fx):
    fx.act("click", ref=fx.ref("button", "Refresh"))
    body = delta(fx)
    assert body["unchanged"] is True and "added" not in body
    assert delta(fx)["unchanged"] is True


def test_nothing_done_is_unchanged(fx):
    assert delta(fx)["unchanged"] is True


def test_a_navigation_answers_the_full_snapshot(fx):
    fx.act("click", ref=fx.ref("link", "Next page"))
    body = delta(fx)
    assert body["full"] is True and "The second page." in body["snapshot"]


def test_another_scope_answers_the_full_snapshot(fx):
    body = delta(fx, interactive=True)
    assert body["full"] is True and body["snapshot"]
    assert delta(fx, interactive=True)["unchanged"] is True


def test_a_change_inside_an_iframe_is_a_line_of_the_frame(fx):
    fx.act("click", ref=fx.ref("button", "Increment"))
    (changed,) = delta(fx)["changed"]
    assert changed["ref"].startswith("f") and changed["line"].endswith("Count 1")


def test_a_delta_longer_than_the_text_answers_the_full_snapshot(fx):
    fx.value("document.body.innerHTML = '<p>All new</p>'")
    body = delta(fx)
    assert body["full"] is True and "All new" in body["snapshot"]


def test_delta_of_a_format_aria_snapshot_is_400(fx):
    with pytest.raises(errors.InvalidRequest):
        delta(fx, format="aria")
