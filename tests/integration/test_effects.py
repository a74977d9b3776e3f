"""An act's `effect` (DESIGN §20) on real Chromium: each kind of effect, `none` for what nobody
would notice, and nothing carried from one act into the next."""

from __future__ import annotations

import time

import pytest

from clawd import errors
from tests.support.act import Page, opened_pages


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site, answer_dialogs=True)


@pytest.fixture
def fx(page) -> Page:
    opened = page("/effects/page.html")
    opened.snapshot()
    return opened


def click(p: Page, role: str, name: str) -> dict:
    return p.act("click", ref=p.ref(role, name))["effect"]


def test_click_on_inert_text_has_no_effect(fx):
    assert click(fx, "heading", "Effects") == {"none": True}


def test_typed_text_is_the_value_before_and_after(fx):
    ref = fx.ref("textbox", "Name")
    effect = fx.act("type", ref=ref, text="hello")["effect"]
    assert effect == {"value": {"ref": ref, "before": "", "after": "hello"}}


def test_checking_a_box_is_its_checked_state_before_and_after(fx):
    ref = fx.ref("checkbox", "Agree")
    assert fx.act("click", ref=ref)["effect"]["value"] == {
        "ref": ref,
        "before": False,
        "after": True,
    }


def test_a_followed_link_is_a_navigation_with_its_status(fx, site):
    effect = click(fx, "link", "Next page")
    assert effect == {
        "navigated": {
            "from": site.url("/effects/page.html"),
            "to": site.url("/effects/next.html"),
            "status": 200,
        }
    }


def test_a_link_to_a_missing_page_says_its_status(fx):
    assert click(fx, "link", "Missing page")["navigated"]["status"] == 404


def test_an_item_added_to_a_long_list_is_one_added_line(fx):
    effect = click(fx, "button", "Add item")
    assert effect == {"changed": {"added": 1, "lines": ['+ listitem "Item 201"']}}


def test_a_removed_item_names_its_ref(fx):
    last = _last_item_ref(fx)
    effect = click(fx, "button", "Remove item")
    assert effect == {"changed": {"removed": 1, "lines": [f'- listitem "Item 200" [ref={last}]']}}


def _last_item_ref(p: Page) -> str:
    text = p.snapshot()
    line = next(line for line in text.split("\n") if "Item 200" in line)
    return line.split("[ref=")[1].split("]")[0]


def test_changed_text_is_its_element_with_the_new_text(fx):
    status = _ref_of_line(fx, "paragraph", "Draft")
    effect = click(fx, "button", "Save")
    assert effect == {"changed": {"text": 1, "lines": [f'~ paragraph "Saved" [ref={status}]']}}


def test_text_put_back_as_it_was_is_no_change(fx):
    click(fx, "button", "Save")
    assert click(fx, "button", "Save") == {"none": True}  # "Saved" set again


def _ref_of_line(p: Page, role: str, text: str) -> str:
    line = next(line for line in p.snapshot().split("\n") if f"- {role} " in line and text in line)
    return line.split("[ref=")[1].split("]")[0]


def test_a_rerender_that_puts_back_the_same_content_has_no_effect(fx):
    fx.value("document.querySelector('#box span').old = true")
    assert click(fx, "button", "Refresh") == {"none": True}
    assert fx.value("document.querySelector('#box span').old === undefined")  # new elements


def test_an_expanded_menu_is_its_state_before_and_after(fx):
    ref = fx.ref("button", "Menu")
    effect = fx.act("click", ref=ref)["effect"]
    assert effect["value"] == {"ref": ref, "before": "false", "after": "true"}


def test_a_tab_key_press_names_the_ref_now_focused(fx):
    fx.act("click", ref=fx.ref("textbox", "Name"))
    assert fx.act("press", key="Tab")["effect"] == {"focus": fx.ref("checkbox", "Agree")}


def test_a_window_opened_is_the_new_tab(fx, client):
    effect = click(fx, "button", "Open tab")
    (opened,) = effect["openedTabs"]
    client.close_tab(opened)
    assert effect == {"openedTabs": [opened]}


def test_an_alert_is_the_dialog_it_opened(fx):
    effect = click(fx, "button", "Alert")
    assert effect == {"dialog": {"type": "alert", "message": "Hello there"}}


def test_closing_the_tab_is_the_tab_closed(client, site):
    p = Page(client, client.open(site.url("/effects/next.html")))
    assert p.act("close")["effect"] == {"closedTabs": [p.id]}


def test_nothing_seen_after_an_act_reaches_the_next_act(fx):
    assert click(fx, "button", "Later") == {"none": True}  # its change comes 150 ms later
    deadline = time.monotonic() + 5
    while fx.text("status") != "Later":
        assert time.monotonic() < deadline, "the page never changed its status"
    assert click(fx, "heading", "Effects") == {"none": True}


def test_each_batched_act_has_its_own_effect(fx):
    add, save = fx.ref("button", "Add item"), fx.ref("button", "Save")
    answer = fx.act(
        "batch", actions=[{"kind": "click", "ref": add}, {"kind": "click", "ref": save}]
    )
    added, saved = (entry["effect"]["changed"] for entry in answer["results"])
    assert (added.get("added"), saved.get("text")) == (1, 1)
    assert "added" not in saved and "text" not in added


def test_changed_text_inside_a_same_origin_iframe_is_seen(fx):
    effect = click(fx, "button", "Increment")
    assert effect == {"changed": {"text": 1, "lines": ['~ paragraph "Count 1"']}}


def test_an_act_that_fails_answers_its_error_not_an_effect(fx):
    with pytest.raises(errors.RefUnknown):
        fx.act("click", ref="e99999")


# -- the targets' values: read by the page's watch in its own world, by commands of their own in a
# frame's, and from the element a re-render put in place of a role ref's
@pytest.fixture
def targets(page) -> Page:
    opened = page("/effects/targets.html")
    opened.snapshot()
    return opened


def test_a_value_typed_in_a_frame_is_its_before_and_after(targets):
    ref = targets.ref("textbox", "City")
    assert ref.startswith("f")  # a frame's ref: read by commands of its own
    effect = targets.act("type", ref=ref, text="Bergen")["effect"]
    assert effect["value"] == {"ref": ref, "before": "Oslo", "after": "Bergen"}


def test_a_box_checked_in_a_frame_is_its_checked_state_before_and_after(targets):
    ref = targets.ref("checkbox", "News")
    effect = targets.act("check", ref=ref)["effect"]
    assert effect["value"] == {"ref": ref, "before": False, "after": True}


def test_a_password_typed_is_its_length_never_its_text(targets):
    ref = targets.ref("textbox", "Secret")
    effect = targets.act("type", ref=ref, text="hunter2")["effect"]
    assert effect["value"] == {"ref": ref, "before": "", "after": "*******"}


def test_text_typed_into_an_editable_element_is_its_text_before_and_after(targets):
    ref = targets.ref("textbox", "Bio")
    effect = targets.act("type", ref=ref, text="New bio")["effect"]
    assert effect["value"]["ref"] == ref and effect["value"]["before"] == "Old bio"
    assert effect["value"]["after"] == targets.value("document.getElementById('bio').innerText")
    assert "New bio" in effect["value"]["after"]


def test_a_role_ref_found_again_after_a_rerender_compares_the_new_elements_value(client, targets):
    ref = next(
        r
        for r, info in client.snapshot(target_id=targets.id, refs="role")["refs"].items()
        if info["name"] == "Note"
    )
    targets.value("render('fresh')")  # the ref's element is gone; another has its role and name
    effect = targets.act("type", ref=ref, text="typed")["effect"]
    assert effect["value"] == {"ref": ref, "before": "fresh", "after": "typed"}


def test_two_targets_of_one_act_each_have_their_value(targets):
    note, secret = targets.ref("textbox", "Note"), targets.ref("textbox", "Secret")
    fields = [
        {"ref": note, "type": "text", "value": "new"},
        {"ref": secret, "type": "text", "value": "pw"},
    ]
    effect = targets.act("fill", fields=fields)["effect"]
    assert effect["value"] == [
        {"ref": note, "before": "old", "after": "new"},
        {"ref": secret, "before": "", "after": "**"},
    ]


# -- evaluate: the watch in the page's own world, read by the function's wrapper once it settled
def test_an_evaluate_that_adds_an_item_is_one_added_line(fx):
    effect = fx.act("evaluate", fn="() => { addItem(); }")["effect"]
    assert effect == {"changed": {"added": 1, "lines": ['+ listitem "Item 201"']}}


def test_an_evaluated_expression_that_adds_an_item_is_one_added_line(fx):
    effect = fx.act("evaluate", fn="addItem()")["effect"]
    assert effect == {"changed": {"added": 1, "lines": ['+ listitem "Item 201"']}}


def test_an_evaluate_that_changes_nothing_has_no_effect(fx):
    assert fx.act("evaluate", fn="() => document.title")["effect"] == {"none": True}


def test_an_async_evaluate_is_read_once_its_promise_settled(fx):
    fn = """async () => {
      await new Promise((done) => setTimeout(done, 50));
      document.getElementById('status').textContent = 'Awaited';
    }"""
    effect = fx.act("evaluate", fn=fn)["effect"]
    assert effect == {"changed": {"text": 1, "lines": ['~ paragraph "Awaited"']}}


def test_an_evaluate_on_a_ref_names_the_ref_it_changed(fx):
    ref = fx.ref("button", "Menu")
    fn = "(el) => el.setAttribute('aria-expanded', 'true')"
    effect = fx.act("evaluate", ref=ref, fn=fn)["effect"]
    assert effect["changed"] == {"state": 1, "lines": [f'~ button "Menu" [ref={ref}]']}


def test_a_page_s_own_clawd_global_never_names_a_ref(fx):
    spoof = """(globalThis.__clawd = {
      bindings: {get: (e) => ((globalThis.last = e), {ref: 'e1', role: 'listitem'})},
      refs: {get: () => globalThis.last}}, 1)"""
    fx.value(spoof)
    effect = fx.act("evaluate", fn="() => { addItem(); }")["effect"]
    assert effect["changed"]["lines"] == ['+ listitem "Item 201"']
