"""A recording the service does not get to stop by request: SIGTERM to a real `clawd serve`
process finishes it as `shutdown`, a killed Chromium ends it as `browserGone`, a crashed
renderer as `tabCrashed`; the video plays and the sidecar lists the acts. A SIGKILLed service
still leaves the sidecar of the acts so far (stoppedBy null)."""

from __future__ import annotations

import json
import os
import pathlib
import signal

import imageio_ffmpeg
import psutil
import pytest

from clawd import errors
from clawd.page.observe import recording
from tests.e2e.daemon_process import ServeProcess
from tests.integration.test_record import ANIMATED
from tests.integration.test_record_swap import button_ref
from tests.support.browser import require_chromium, service_config
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import answer

pytestmark = pytest.mark.chromium


@pytest.fixture
def page(site):
    site.route("/record/lifecycle.html", lambda h: answer(h, 200, ANIMATED))
    return site.url("/record/lifecycle.html")


def sidecar(path: str) -> dict:
    return json.loads(pathlib.Path(path).read_text())


def assert_playable(video: pathlib.Path, side: dict) -> None:
    frames, _ = imageio_ffmpeg.count_frames_and_secs(str(video))
    assert frames == side["frames"] > 0


def test_sigterm_finishes_a_running_recording_and_writes_its_sidecar(tmp_path, page):
    require_chromium()
    serve = ServeProcess(tmp_path, service_config(tmp_path / "home"))
    try:
        client = serve.client()
        tab_id = client.open(page)["tabId"]
        started = client.record_start(target_id=tab_id, fps=10)
        client.act("click", ref=button_ref(client, tab_id), target_id=tab_id)
        assert [a["kind"] for a in sidecar(started["sidecar"])["acts"]] == ["click"]
        serve.signal(signal.SIGTERM)
        assert serve.proc.wait(15) == 0
    finally:
        serve.close()
    side = sidecar(started["sidecar"])
    assert side["stoppedBy"] == "shutdown"
    assert [a["kind"] for a in side["acts"]] == ["click"] and side["acts"][0]["ok"] is True
    assert_playable(pathlib.Path(started["path"]), side)


def test_a_killed_browser_ends_the_recording_as_browser_gone(tmp_path, page):
    running = RunningService(service_config(tmp_path / "home"))
    try:
        client = running.client()
        tab_id = client.open(page)["tabId"]
        client.record_start(target_id=tab_id, fps=10)
        rec = recording.recorder_of(running.live_tab(tab_id))
        client.act("click", ref=button_ref(client, tab_id), target_id=tab_id)
        wait_until(lambda: rec.frames_received > 2, message="frames")
        os.kill(client.status()["pid"], signal.SIGKILL)
        assert rec.done.wait(30), "the recording did not end with its browser"
    finally:
        running.close()
    assert rec.result["stoppedBy"] == "browserGone"
    side = sidecar(rec.result["sidecar"])
    assert side["stoppedBy"] == "browserGone" and [a["kind"] for a in side["acts"]] == ["click"]
    assert_playable(pathlib.Path(rec.result["path"]), side)


def test_a_recording_whose_browser_died_is_listed_with_its_files(tmp_path, page):
    # no stop can collect it (its tab is gone): GET /recordings names it and its files
    running = RunningService(service_config(tmp_path / "home"))
    try:
        client = running.client()
        tab_id = client.open(page)["tabId"]
        started = client.record_start(target_id=tab_id, fps=10)
        rec = recording.recorder_of(running.live_tab(tab_id))
        client.act("click", ref=button_ref(client, tab_id), target_id=tab_id)
        wait_until(lambda: rec.frames_received > 2, message="frames")
        (live,) = client.recordings()["recordings"]  # running: its sidecar says so
        assert live["name"] == pathlib.Path(started["path"]).name
        assert live["stoppedBy"] is None and live["tabId"] == tab_id and live["acts"] == 1
        os.kill(client.status()["pid"], signal.SIGKILL)
        assert rec.done.wait(30), "the recording did not end with its browser"
        (gone,) = client.recordings()["recordings"]
        assert gone["stoppedBy"] == "browserGone" and gone["acts"] == 1 and gone["frames"] > 0
        video = client.fetch_media(gone["mediaUrl"], tmp_path / "got.webm")
        side = client.fetch_media(gone["sidecarUrl"], tmp_path / "got.json")
        assert video.stat().st_size == gone["bytes"] > 0
        assert json.loads(side.read_text())["stoppedBy"] == "browserGone"
    finally:
        running.close()


def _children(pid: int) -> tuple[list[psutil.Process], list[psutil.Process]]:
    """The service's ffmpeg and the roots of its Chromium (a session of its own)."""
    kids = psutil.Process(pid).children(recursive=True)
    ffmpeg = [p for p in kids if "ffmpeg" in p.name().lower()]
    roots = [p for p in kids if "chrom" in p.name().lower() and p.pid == os.getpgid(p.pid)]
    return ffmpeg, roots


def test_a_killed_service_leaves_the_sidecar_of_the_acts_so_far(tmp_path, page):
    require_chromium()
    serve = ServeProcess(tmp_path, service_config(tmp_path / "home"))
    roots: list[psutil.Process] = []
    try:
        client = serve.client()
        tab_id = client.open(page)["tabId"]
        started = client.record_start(target_id=tab_id, fps=10)
        client.act("click", ref=button_ref(client, tab_id), target_id=tab_id)
        ffmpeg, roots = _children(serve.proc.pid)
        assert ffmpeg, "no encoder runs"
        serve.signal(signal.SIGKILL)
        serve.proc.wait(15)
        psutil.wait_procs(ffmpeg, timeout=20)  # its input ended: it closes the file itself
    finally:
        for root in roots:
            os.killpg(root.pid, signal.SIGKILL)
        serve.close()
    side = sidecar(started["sidecar"])
    assert side["stoppedBy"] is None and [a["kind"] for a in side["acts"]] == ["click"]
    frames, _ = imageio_ffmpeg.count_frames_and_secs(started["path"])
    assert frames > 0


def test_a_crashed_renderer_ends_the_recording_as_tab_crashed(client, service, page):
    tab_id = client.open(page)["tabId"]
    try:
        client.record_start(target_id=tab_id, fps=10)
        rec = recording.recorder_of(service.live_tab(tab_id))
        wait_until(lambda: rec.frames_received > 2, message="frames")
        with pytest.raises(errors.TabCrashed):  # the crashed renderer never answers
            service.live_tab(tab_id).session.call("Page.crash", timeout=10)
        assert rec.done.wait(30), "the recording did not end with its renderer"
    finally:
        client.close_tab(tab_id)
    assert rec.result["stoppedBy"] == "tabCrashed"
    assert_playable(pathlib.Path(rec.result["path"]), sidecar(rec.result["sidecar"]))
