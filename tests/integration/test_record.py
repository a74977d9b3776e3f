"""POST /record/start and /record/stop on real Chromium: WebM files a decoder (imageio-ffmpeg's
ffmpeg) counts the frames of, the sidecar's acts, the limits, a tab closed while recording."""

from __future__ import annotations

import json
import pathlib

import imageio_ffmpeg
import pytest

from clawd import errors
from clawd.page.observe import recording
from tests.support.cli import cli_of
from tests.support.page_eval import wait_until
from tests.support.site import answer
from tests.support.tabs import opened_tab

pytestmark = pytest.mark.chromium

# a square that moves every frame: Chrome paints, so the screencast keeps sending
ANIMATED = """<!doctype html><title>moving</title>
<body style="margin:0"><div id="box" style="position:absolute;width:80px;height:80px;
background:#c33"></div><button id="go" onclick="this.textContent='pressed'">go</button>
<input id="field" aria-label="field">
<script>
let x = 0;
(function step() { x = (x + 7) % 500; box.style.left = x + 'px'; requestAnimationFrame(step); })();
</script>"""

# noise on a canvas every frame: a codec's worst case, for the byte cap
NOISE = """<!doctype html><title>noise</title><canvas id="c" width="320" height="200"></canvas>
<script>
const g = c.getContext('2d'), img = g.createImageData(320, 200);
(function step() {
  for (let i = 0; i < img.data.length; i++) img.data[i] = Math.random() * 256;
  g.putImageData(img, 0, 0); requestAnimationFrame(step);
})();
</script>"""


@pytest.fixture(scope="module")
def pages(site):
    site.route("/record/animated.html", lambda h: answer(h, 200, ANIMATED))
    site.route("/record/noise.html", lambda h: answer(h, 200, NOISE))
    return site


@pytest.fixture
def animated(client, pages):
    with opened_tab(client, pages.url("/record/animated.html")) as tab:
        yield tab


def decoded_frames(path: str) -> int:
    frames, _ = imageio_ffmpeg.count_frames_and_secs(path)
    return frames


def recorder(service, tab_id: str) -> recording.Recorder:
    found = recording.recorder_of(service.live_tab(tab_id))
    assert found is not None, "no recording runs"
    return found


def ended_by_itself(service, tab_id: str) -> recording.Recorder:
    rec = recorder(service, tab_id)
    assert rec.done.wait(60), "the recording did not end by itself"
    return rec


def test_a_recording_that_reaches_max_seconds_decodes_to_fps_times_seconds_frames(
    client, service, animated
):
    started = client.record_start(target_id=animated["tabId"], fps=10, max_seconds=2)
    assert started["recording"] is True and started["path"].endswith(".webm")
    ended_by_itself(service, animated["tabId"])
    done = client.record_stop(target_id=animated["tabId"])
    assert done["stoppedBy"] == "maxSeconds"
    assert done["frames"] == 20 and done["seconds"] == 2.0
    assert done["screencastFrames"] > 1  # a moving page sends frames, not one to repeat
    assert decoded_frames(done["path"]) == 20
    assert pathlib.Path(done["path"]).parent == service.service.layout.recordings
    side = json.loads(pathlib.Path(done["sidecar"]).read_text())
    assert side["video"] == pathlib.Path(done["path"]).name and side["frames"] == 20


def test_the_sidecar_lists_each_act_with_its_moment_and_outcome(client, service, animated):
    tab_id = animated["tabId"]
    snap = client.snapshot(target_id=tab_id)["snapshot"]
    ref = next(
        line.split("ref=")[1].split("]")[0] for line in snap.splitlines() if "button" in line
    )
    client.record_start(target_id=tab_id, fps=10)
    wait_until(lambda: recorder(service, tab_id).frames_received > 0, message="a first frame")
    client.act("click", ref=ref, target_id=tab_id)
    client.act("press", key="Tab", target_id=tab_id)
    with pytest.raises(errors.ClawdError) as failed:
        client.act("click", ref="e9999", target_id=tab_id)
    done = client.record_stop(target_id=tab_id)
    assert done["stoppedBy"] == "stop" and done["acts"] == 3
    acts = json.loads(pathlib.Path(done["sidecar"]).read_text())["acts"]
    assert [a["kind"] for a in acts] == ["click", "press", "click"]
    assert acts[0]["ref"] == ref and acts[0]["ok"] is True and acts[1]["key"] == "Tab"
    assert acts[2]["ok"] is False and acts[2]["code"] == failed.value.code
    moments = [m for a in acts for m in (a["t"], a["end"])]
    assert moments == sorted(moments) and 0 <= moments[0] and moments[-1] <= done["seconds"]
    assert decoded_frames(done["path"]) == done["frames"]


def test_the_byte_cap_stops_a_recording_with_a_playable_file(client, service, pages):
    with opened_tab(client, pages.url("/record/noise.html")) as tab:
        client.record_start(target_id=tab["tabId"], fps=10, max_bytes=1 << 20)
        ended_by_itself(service, tab["tabId"])
        done = client.record_stop(target_id=tab["tabId"])
    assert done["stoppedBy"] == "maxBytes"
    assert 0 < done["bytes"] <= (1 << 20) + (1 << 17)  # the cap, then a frame at most
    assert decoded_frames(done["path"]) == done["frames"] > 0


def test_a_tab_closed_while_recording_finishes_the_file(client, service, pages):
    with opened_tab(client, pages.url("/record/animated.html")) as tab:
        client.record_start(target_id=tab["tabId"], fps=10)
        rec = recorder(service, tab["tabId"])
        wait_until(lambda: rec.frames_received > 2, message="frames")
    assert rec.done.wait(30), "closing the tab did not end the recording"
    assert rec.result["stoppedBy"] == "tabClosed"
    assert rec.result["frames"] > 0
    assert decoded_frames(rec.result["path"]) == rec.result["frames"]
    side = json.loads(pathlib.Path(rec.result["sidecar"]).read_text())
    assert side["stoppedBy"] == "tabClosed"


def test_a_second_start_on_a_recording_tab_is_a_409(client, animated):
    client.record_start(target_id=animated["tabId"])
    try:
        with pytest.raises(errors.RecordingRunning) as again:
            client.record_start(target_id=animated["tabId"])
        assert again.value.http_status == 409
    finally:
        client.record_stop(target_id=animated["tabId"])


def test_stop_without_a_recording_is_a_409_that_says_how_to_start(client, animated):
    with pytest.raises(errors.RecordingNotRunning) as missing:
        client.record_stop(target_id=animated["tabId"])
    assert missing.value.http_status == 409 and "/record/start" in str(missing.value)


@pytest.mark.parametrize(
    "body, field",
    [({"fps": 0}, "fps"), ({"maxSeconds": 100000}, "maxSeconds"), ({"maxBytes": 10}, "maxBytes")],
)
def test_limits_beyond_their_bounds_are_a_400_naming_the_field(client, animated, body, field):
    with pytest.raises(errors.InvalidRequest) as bad:
        client.request("POST", "/record/start", json={"targetId": animated["tabId"], **body})
    assert field in str(bad.value)
    with pytest.raises(errors.RecordingNotRunning):
        client.record_stop(target_id=animated["tabId"])


def test_the_cli_records_a_tab_and_fetches_the_video_and_sidecar_over_http(
    service, animated, tmp_path
):
    tab_id = animated["tabId"]
    started = cli_of(service, "record", "start", "--target", tab_id, "--fps", "5")
    assert started.status == 0 and "recording: yes" in started.out and ".webm" in started.out
    out = tmp_path / "run.webm"
    stopped = cli_of(service, "record", "stop", "--target", tab_id, "--out", str(out))
    assert stopped.status == 0 and stopped.out.strip() == str(out)
    done = json.loads((tmp_path / "run.json").read_text())
    assert done["fps"] == 5 and done["stoppedBy"] == "stop"
    assert decoded_frames(str(out)) == done["frames"] > 0
    missing = cli_of(service, "record", "stop", "--target", tab_id)
    assert missing.status == 1 and "RECORDING_NOT_RUNNING" in missing.err


def test_a_recording_is_served_by_name_and_nothing_outside_recordings_is(
    client, animated, tmp_path
):
    client.record_start(target_id=animated["tabId"])
    done = client.record_stop(target_id=animated["tabId"])
    got = client.fetch_media(done["mediaUrl"], tmp_path)
    assert got.read_bytes() == pathlib.Path(done["path"]).read_bytes()
    side = client.fetch_media(done["sidecarUrl"], tmp_path)
    assert json.loads(side.read_text())["video"] == got.name
    with pytest.raises(errors.MediaNotFound):
        client.request("GET", "/recordings/..%2Fauth-token")


def test_a_viewport_resized_while_recording_is_fitted_into_the_first_canvas(
    client, service, animated
):
    tab_id = animated["tabId"]
    client.record_start(target_id=tab_id, fps=10)
    rec = recorder(service, tab_id)
    wait_until(lambda: rec.frames_received > 2, message="frames")
    client.set_viewport(501, 333, target_id=tab_id)
    seen = rec.frames_received
    wait_until(lambda: rec.frames_received > seen + 5, message="frames after the resize")
    done = client.record_stop(target_id=tab_id)
    assert done["stoppedBy"] == "stop" and "failure" not in done
    assert decoded_frames(done["path"]) == done["frames"] > 0
    reader = imageio_ffmpeg.read_frames(done["path"])
    meta = next(reader)
    reader.close()
    assert tuple(meta["size"]) == (done["width"], done["height"]) != (501, 333)
