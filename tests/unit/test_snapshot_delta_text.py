"""page/snapshot/delta.py on snapshot texts: lines compared without refs and the focus marker,
each with its parent's line; None when the delta would be longer than the text."""

from __future__ import annotations

from clawd.page.snapshot.delta import diff

ITEMS = "".join(f"\n  - listitem [ref=e{i + 10}]: Item {i}" for i in range(50))
BEFORE = f"- list [ref=e1]:{ITEMS}\n- paragraph [ref=e4]: Draft\n- button \"Go\" [active] [ref=e5]"


def test_an_added_line_comes_with_its_parent_line_as_context():
    after = BEFORE.replace(ITEMS, ITEMS + "\n  - listitem [ref=e99]: Item 50")
    found = diff(BEFORE, after)
    assert found["snapshot"] == "  - list [ref=e1]:\n+   - listitem [ref=e99]: Item 50"
    assert found["added"] == [
        {"line": "- listitem [ref=e99]: Item 50", "ref": "e99", "parent": "- list [ref=e1]:"}
    ]


def test_a_line_with_the_same_ref_and_other_text_is_changed_with_the_line_before():
    found = diff(BEFORE, BEFORE.replace("Draft", "Saved"))
    assert found["changed"] == [
        {
            "line": "- paragraph [ref=e4]: Saved",
            "ref": "e4",
            "before": "- paragraph [ref=e4]: Draft",
        }
    ]
    assert (found["added"], found["removed"]) == ([], [])


def test_new_refs_on_the_same_lines_are_unchanged_with_the_refs_renamed():
    found = diff(BEFORE, BEFORE.replace("[ref=e10]", "[ref=e77]"))
    assert found["unchanged"] is True and found["renamed"] == {"e10": "e77"}


def test_the_focus_moving_alone_is_unchanged_and_says_where_it_went():
    after = BEFORE.replace(" [active]", "").replace("- paragraph [", "- paragraph [active] [")
    found = diff(BEFORE, after)
    assert found["unchanged"] is True and found["active"] == "e4"


def test_a_delta_longer_than_the_new_text_is_none():
    assert diff(BEFORE, "- heading \"Other\" [ref=e200]") is None
