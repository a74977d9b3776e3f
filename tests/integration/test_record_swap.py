"""A recording across a cross-site navigation (--site-per-process: the tab's renderer changes):
the recording goes on, frames of the new page come, the act after it is in the sidecar."""

from __future__ import annotations

import json
import pathlib

import imageio_ffmpeg
import pytest

from clawd.page.observe import recording
from tests.integration.test_record import ANIMATED
from tests.support.page_eval import wait_until
from tests.support.service import OTHER_SITE, two_site_service
from tests.support.site import answer

pytestmark = pytest.mark.chromium


@pytest.fixture(scope="module")
def isolated(tmp_path_factory, site):
    site.route("/record/swap.html", lambda h: answer(h, 200, ANIMATED))
    with two_site_service(tmp_path_factory.mktemp("record-swap")) as (running, client):
        yield running, client


@pytest.fixture
def recorded(isolated, site):
    """A tab on 127.0.0.1 being recorded, its Recorder, and the same page on the other site."""
    running, client = isolated
    tab = client.open(site.url("/record/swap.html"))
    try:
        client.record_start(target_id=tab["tabId"], fps=10)
        rec = recording.recorder_of(running.live_tab(tab["tabId"]))
        wait_until(lambda: rec.frames_received > 2, message="frames before the navigation")
        yield tab["tabId"], rec, f"http://{OTHER_SITE}:{site.port}/record/swap.html"
    finally:
        client.close_tab(tab["tabId"])


def button_ref(client, tab_id: str) -> str:
    snap = client.snapshot(target_id=tab_id)["snapshot"]
    line = next(line for line in snap.splitlines() if "button" in line)
    return line.split("ref=")[1].split("]")[0]


def record_across(client, tab_id: str, rec: recording.Recorder, url: str) -> dict:
    """Navigate cross-site while recording, wait for frames of the new page, click, stop."""
    client.navigate(url, target_id=tab_id)
    after = rec.frames_received
    wait_until(lambda: rec.frames_received > after + 3, message="frames after the navigation")
    client.act("click", ref=button_ref(client, tab_id), target_id=tab_id)
    return client.record_stop(target_id=tab_id)


def assert_whole(done: dict, navigated_at: float) -> None:
    assert done["stoppedBy"] == "stop" and "failure" not in done
    frames, _ = imageio_ffmpeg.count_frames_and_secs(done["path"])
    assert frames == done["frames"] > 0
    side = json.loads(pathlib.Path(done["sidecar"]).read_text())
    assert side["stoppedBy"] == "stop"
    assert [a["kind"] for a in side["acts"]] == ["click"] and side["acts"][0]["ok"] is True
    assert side["acts"][0]["t"] >= navigated_at


def test_a_cross_site_navigation_does_not_end_the_recording(isolated, recorded):
    _, client = isolated
    tab_id, rec, other = recorded
    navigated_at = rec.clock() - rec.started
    done = record_across(client, tab_id, rec, other)
    assert_whole(done, navigated_at)


def test_a_screencast_stopped_under_the_recording_starts_again_on_the_next_navigation(
    isolated, recorded
):
    """What a renderer swap can do to a screencast, done by hand: the navigation after it
    brings frames again."""
    running, client = isolated
    tab_id, rec, other = recorded
    running.live_tab(tab_id).session.call("Page.stopScreencast")
    navigated_at = rec.clock() - rec.started
    done = record_across(client, tab_id, rec, other)
    assert_whole(done, navigated_at)
