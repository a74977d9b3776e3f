"""An act's `effect` (DESIGN §20) inside a cross-origin iframe in a process of its own (OOPIF):
a dedicated service whose Chromium isolates every site and maps OTHER_SITE to 127.0.0.1 (as in
test_snapshot_frames.py). The frame gets a watch of its own next to the page's."""

from __future__ import annotations

import pytest

from tests.support.act import Page, opened_pages
from tests.support.page_eval import wait_until
from tests.support.service import OTHER_SITE, two_site_service

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(120)]


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    with two_site_service(tmp_path_factory.mktemp("clawd-oopif-effects")) as started:
        yield started


@pytest.fixture
def framed(isolated, site):
    running, client = isolated
    pages = opened_pages(client, site)
    page: Page = next(pages)(f"/effects/oopif.html?cross={OTHER_SITE}")
    tab = running.live_tab(page.id)
    wait_until(lambda: len(tab.child_sessions()) == 1, message="the cross-site frame's own target")
    wait_until(lambda: "Pay" in page.snapshot(), message="the frame's content in the snapshot")
    yield page
    next(pages, None)


def test_text_changed_in_the_frame_is_its_line_with_the_frame_s_ref(framed):
    effect = framed.act("click", ref=framed.ref("button", "Pay"))["effect"]
    assert effect["changed"]["text"] == 1
    (line,) = effect["changed"]["lines"]
    assert line.startswith('~ paragraph "Paid"')


def test_a_value_typed_in_the_frame_is_its_before_and_after(framed):
    ref = framed.ref("textbox", "Card")
    effect = framed.act("type", ref=ref, text="4242")["effect"]
    assert effect["value"] == {"ref": ref, "before": "4000", "after": "4242"}


def test_a_box_checked_in_the_frame_is_its_checked_state(framed):
    ref = framed.ref("checkbox", "Remember")
    effect = framed.act("check", ref=ref)["effect"]
    assert effect["value"] == {"ref": ref, "before": False, "after": True}


def test_a_click_in_the_frame_that_changes_nothing_has_no_effect(framed):
    framed.act("click", ref=framed.ref("button", "Pay"))
    framed.snapshot()
    assert framed.act("click", ref=framed.ref("button", "Pay"))["effect"] == {"none": True}
