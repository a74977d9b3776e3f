"""Click and hover on elements inside iframes when the page, the frame, or a box around the frame
is scrolled: the event lands on the element, for same-origin frames (same process) and
cross-origin ones (out-of-process, a dedicated service whose Chromium isolates every site and
maps other.test to 127.0.0.1, as in test_snapshot_frames.py)."""

from __future__ import annotations

import time

import pytest

from tests.support.act import Page, opened_pages
from tests.support.service import OTHER_SITE, two_site_service

OTHER = OTHER_SITE
PAGE = "/act/scrolled-frames.html"
FRAME_HEIGHT = 200  # the iframes' height in scrolled-frames.html
LANDED = {"click": "clicked 1, hovered 1", "hover": "clicked 0, hovered 1"}


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    with two_site_service(tmp_path_factory.mktemp("clawd-oopif-scrolled")) as started:
        yield started


@pytest.fixture(params=["same-origin", "cross-origin"])
def frames_page(request, client, site):
    """scrolled-frames.html opened with its two frames from this site or from another one."""
    running, acting, query = None, client, ""
    if request.param == "cross-origin":
        running, acting = request.getfixturevalue("isolated")
        query = f"?cross={OTHER}"
    pages = opened_pages(acting, site)
    page = next(pages)(PAGE + query)
    if running is not None:
        children = running.live_tab(page.id).child_sessions()
        assert len(children) == 2, (
            f"both cross-site frames must be out-of-process targets: {children}"
        )
    yield page
    next(pages, None)  # closes the page


def scroll_page(page: Page, expression: str) -> int:
    """Scroll the top document to `expression` (a y offset); the scrollY it got."""
    return page.value(f"(scrollTo(0, {expression}), scrollY)")


def frame_top(page: Page, frame_id: str) -> float:
    return page.value(f"document.getElementById({frame_id!r}).getBoundingClientRect().top")


def act_on(page: Page, kind: str, name: str) -> None:
    page.snapshot()
    page.act(kind, ref=page.ref("button", name))


def assert_landed(page: Page, name: str, kind: str) -> None:
    """The button counted exactly the events of one `kind` (its name says what it got)."""
    expected = f"{name}: {LANDED[kind]}"
    deadline = time.monotonic() + 5
    while True:
        buttons = [
            info["name"]
            for info in page.client.snapshot(target_id=page.id)["refs"].values()
            if info["role"] == "button"
        ]
        if expected in buttons or time.monotonic() > deadline:
            break
    assert expected in buttons, (
        f"the {kind} did not land on {name!r}: the frames' buttons read {buttons}"
    )


@pytest.mark.parametrize("kind", ["click", "hover"])
def test_click_and_hover_land_in_a_frame_the_scrolled_page_shows_without_scrolling_it(
    frames_page, kind
):
    page = frames_page
    # the frame near the bottom of the viewport: the button is far below the frame's own height
    scrolled = scroll_page(
        page, f"document.getElementById('frame').offsetTop + {FRAME_HEIGHT} + 20 - innerHeight"
    )
    assert scrolled > 0 and frame_top(page, "frame") > FRAME_HEIGHT, (
        f"the page must be scrolled and the frame low in the viewport: scrollY {scrolled}, "
        f"frame top {frame_top(page, 'frame')}"
    )
    act_on(page, kind, "Near in frame")
    assert_landed(page, "Near in frame", kind)
    assert page.value("scrollY") == scrolled, "an element already in view must not scroll the page"


@pytest.mark.parametrize("kind", ["click", "hover"])
def test_click_and_hover_scroll_a_frame_below_the_fold_into_view_and_land(frames_page, kind):
    page = frames_page
    assert frame_top(page, "frame") > page.value("innerHeight"), (
        "the frame must start below the fold"
    )
    act_on(page, kind, "Near in frame")
    assert_landed(page, "Near in frame", kind)
    assert page.value("scrollY") > 0, "the page must have scrolled to the frame"


@pytest.mark.parametrize("kind", ["click", "hover"])
def test_click_and_hover_land_on_a_button_below_the_fold_of_its_own_frame(frames_page, kind):
    page = frames_page
    scroll_page(
        page, f"document.getElementById('frame').offsetTop + {FRAME_HEIGHT} + 20 - innerHeight"
    )
    act_on(page, kind, "Deep in frame")
    assert_landed(page, "Deep in frame", kind)


@pytest.mark.parametrize("kind", ["click", "hover"])
def test_click_and_hover_land_in_a_frame_scrolled_out_of_view_inside_a_box(frames_page, kind):
    page = frames_page
    # the box in view at the top of the page; the frame is far down inside it, the box unscrolled
    scroll_page(page, "document.getElementById('box').offsetTop - 20")
    assert page.value("document.getElementById('box').scrollTop") == 0
    act_on(page, kind, "Near in boxed")
    assert_landed(page, "Near in boxed", kind)
    assert page.value("document.getElementById('box').scrollTop") > 0, (
        "the box must have scrolled to the frame"
    )
