"""Same-origin iframes that show nothing (an about:blank ad slot) are left out of the walk: the
parent's world sees their empty document, so no world, script or build is spent in them, and the
snapshot reads as if they had been walked (`- iframe [ref=...]:` with nothing under it). Frames
with anything to show (elements, text, generated content, a closed shadow root on the body, a
document of their own) are walked, and a frame filled after one snapshot shows in the next. A
frame that failed to load shows Chrome's error page, walked without looking for closed roots."""

from __future__ import annotations

import re

import pytest

from clawd.page.snapshot import aria

EMPTY = {"blank", "blank-src", "whitespace"}
SHOWN = {"filled", "scripted", "generated", "child", "shadowed"}


@pytest.fixture
def walked(monkeypatch):
    """The frame ids aria.walk_frame is asked to walk, in order."""
    seen: list[str] = []
    real = aria.walk_frame

    def spy(walk, base):
        seen.append(walk.frame_id)
        return real(walk, base)

    monkeypatch.setattr(aria, "walk_frame", spy)
    return seen


def frame_names(service, tab_id: str) -> dict[str, str]:
    """frame id -> the name attribute of its <iframe>, for the page's child frames."""
    tab = service.live_tab(tab_id)
    tree = tab.session.call("Page.getFrameTree", timeout=10)["frameTree"]
    return {child["frame"]["id"]: child["frame"].get("name", "") for child in tree["childFrames"]}


def iframe_blocks(text: str) -> list[str]:
    """Each `- iframe` line with the lines nested under it."""
    blocks, lines = [], text.split("\n")
    for index, line in enumerate(lines):
        if line.lstrip().startswith("- iframe"):
            indent = len(line) - len(line.lstrip())
            block = [line]
            for inner in lines[index + 1 :]:
                if len(inner) - len(inner.lstrip()) <= indent:
                    break
                block.append(inner)
            blocks.append("\n".join(block))
    return blocks


def test_empty_same_origin_frames_are_not_walked_and_print_as_walked(
    client, site, tab, service, walked
):
    tab_id = tab["tabId"]
    client.navigate(site.url("/snapshot/empty-frames.html"), target_id=tab_id)
    names = frame_names(service, tab_id)
    assert sorted(names.values()) == sorted(EMPTY | SHOWN), names

    text = client.request("GET", "/snapshot", params={"targetId": tab_id})["snapshot"]

    walked_names = {names[frame_id] for frame_id in walked if frame_id in names}
    assert walked_names == SHOWN, f"walked {walked_names}, page:\n{text}"
    blocks = iframe_blocks(text)
    assert len(blocks) == 8, text
    empty = [b for b in blocks if "\n" not in b]
    assert len(empty) == 3 and all(
        re.fullmatch(r" *- iframe \[ref=e\d+\]( \[nth=\d\])?:", b) for b in empty
    ), blocks
    shown = "\n".join(blocks)
    for inside in (
        r"- paragraph \[ref=f\d+e\d+\]: Filled paragraph",
        r'- button "Scripted button" \[ref=f\d+e\d+\]',
        r"Generated text",
        r'- button "Inside" \[ref=f\d+e\d+\]',
        r'- button "Shadow button" \[ref=f\d+e\d+\]',
    ):
        assert re.search(inside, shown), f"{inside!r} not under an iframe:\n{shown}"


def test_a_frame_filled_after_a_snapshot_shows_in_the_next(client, site, tab, service, walked):
    tab_id = tab["tabId"]
    client.navigate(site.url("/snapshot/empty-frames.html"), target_id=tab_id)
    first = client.request("GET", "/snapshot", params={"targetId": tab_id})["snapshot"]
    assert "Late button" not in first
    client.evaluate('() => fill("blank", "<button>Late button</button>")', target_id=tab_id)
    walked.clear()

    second = client.request("GET", "/snapshot", params={"targetId": tab_id})
    found = re.search(r'- button "Late button" \[ref=(f\d+e\d+)\]', second["snapshot"])
    assert found, second["snapshot"]
    assert "blank" in {frame_names(service, tab_id).get(f) for f in walked}
    client.act("click", ref=found.group(1), target_id=tab_id)  # its ref acts like any other


def test_a_frame_that_failed_to_load_shows_chromes_error_page_without_a_closed_root_probe(
    client, site, tab, monkeypatch
):
    # Chrome's error page hosts no shadow root and no page script reaches it: its empty icon box
    # is not handed to Chrome to describe (nor is anything else on this page)
    probed: list[int] = []
    real = aria.attach_closed_roots

    def spy(walk, context, hosts):
        probed.append(len(hosts))
        return real(walk, context, hosts)

    monkeypatch.setattr(aria, "attach_closed_roots", spy)
    client.navigate(site.url("/snapshot/error-frame.html"), target_id=tab["tabId"])
    body = client.request("GET", "/snapshot", params={"targetId": tab["tabId"], "maxChars": 0})
    [block] = iframe_blocks(body["snapshot"])
    assert "127.0.0.1" in block and len(block.split("\n")) > 1, body["snapshot"]
    assert 'button "After the frame"' in body["snapshot"]
    assert probed == [], probed
