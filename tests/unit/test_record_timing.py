"""How screencast frames, which Chrome sends only when the page paints, become a constant-rate
video: each slot shows the newest frame that came before it began; a still page's last frame is
repeated to the end. Driven with a fake clock, tab and encoder (no browser, no ffmpeg)."""

from __future__ import annotations

import base64
import pathlib
import threading

import pytest

from clawd import errors
from clawd.page.observe import recording
from tests.support.page_eval import wait_until

# the smallest JPEG header with a start-of-frame segment: 33 x 17 pixels
SOF = bytes.fromhex("ffd8ffe000104a46494600010100000100010000ffc0000b080011002101011100ffd9")


class FakeSession:
    session_id = "S1"
    closed = False

    def __init__(self):
        self.connection = self
        self.events = self
        self.sent: list[str] = []
        self.handlers: dict[str, object] = {}

    def on(self, event, handler):
        self.handlers[event] = handler
        return lambda: self.handlers.pop(event, None)

    def subscribe(self, event, handler, session_id):
        return self.on(event, handler)

    def call(self, method, params=None, timeout=None):
        self.sent.append(method)
        return {}

    def send_and_forget(self, method, params=None):
        self.sent.append(method)


class FakeTab:
    tab_id, target_id = "t1", "T1"
    crashed = False

    def __init__(self):
        self.session = FakeSession()
        self.closed = threading.Event()


class FakeEncoder:
    """Keeps what it is fed: which frame each video slot got."""

    def __init__(self):
        self.process = None
        self.size = None
        self.frames = None
        self.fed: list[bytes] = []

    def open(self, first: bytes) -> None:
        self.process, self.size = object(), (34, 18)

    def write(self, frame: bytes) -> bool:
        self.fed.append(frame)
        return True

    def full(self) -> bool:
        return False

    def close(self) -> str:
        return ""


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def frame(tag: bytes) -> str:
    return base64.b64encode(tag).decode()


@pytest.fixture
def rig(tmp_path):
    clock, encoder, tab = Clock(), FakeEncoder(), FakeTab()
    limits = recording.Limits(fps=10, max_seconds=60, max_bytes=1 << 20)
    rec = recording.Recorder(tab, tmp_path / "r.webm", limits, encoder=encoder, clock=clock)
    rec.start()
    return rec, clock, encoder, tab


def paint(rec, clock, at: float, tag: bytes) -> None:
    clock.now = 100.0 + at
    rec._on_frame({"sessionId": 7, "data": frame(tag)})


def test_each_slot_shows_the_newest_frame_painted_before_it_began_and_the_last_one_lasts(rig):
    rec, clock, encoder, tab = rig
    paint(rec, clock, 0.05, b"A")
    paint(rec, clock, 0.35, b"B")  # slots 0..3 began before it: A (A also fills slot 0)
    paint(rec, clock, 0.36, b"C")  # B never shown: C came before the next slot began
    clock.now = 101.0
    done = rec.stop()
    assert encoder.fed == [b"A"] * 4 + [b"C"] * 6
    assert done["frames"] == 10 and done["seconds"] == 1.0 and done["stoppedBy"] == "stop"
    assert tab.session.sent.count("Page.screencastFrameAck") == 3  # every frame, at once
    assert "Page.stopScreencast" in tab.session.sent


def test_acts_are_noted_in_seconds_into_the_video_and_not_after_it_ended(rig):
    rec, clock, _, _ = rig
    paint(rec, clock, 0.0, b"A")
    rec.note_act("click", 100.5, 100.75, ref="e3", ok=True)
    clock.now = 102.0
    rec.stop()
    rec.note_act("press", 102.5, 102.6, ok=True)
    side = pathlib.Path(rec.sidecar).read_text()
    assert '"kind": "click"' in side and '"t": 0.5' in side and '"end": 0.75' in side
    assert "press" not in side


def test_a_closed_tab_ends_the_recording_by_itself(rig):
    rec, clock, encoder, tab = rig
    paint(rec, clock, 0.0, b"A")
    clock.now = 100.3
    tab.closed.set()  # the Browser's handler of the same event ran first
    tab.session.handlers["Target.detachedFromTarget"]({"sessionId": "S1"})
    assert rec.done.wait(10)
    assert rec.result["stoppedBy"] == "tabClosed" and encoder.fed == [b"A"] * 3


def test_jpeg_size_reads_the_start_of_frame_and_refuses_what_is_not_a_jpeg():
    assert recording.jpeg_size(SOF) == (33, 17)
    with pytest.raises(errors.RecordingFailed):
        recording.jpeg_size(b"\x89PNG\r\n\x1a\n")


class StuckEncoder(FakeEncoder):
    """An encoder that stops reading until released, as a starved ffmpeg would."""

    def __init__(self):
        super().__init__()
        self.entered, self.release = threading.Event(), threading.Event()

    def write(self, frame: bytes) -> bool:
        self.entered.set()
        assert self.release.wait(30)
        return super().write(frame)


def test_a_stuck_encoder_never_holds_up_the_event_thread_and_every_frame_is_acked(tmp_path):
    clock, encoder, tab = Clock(), StuckEncoder(), FakeTab()
    limits = recording.Limits(fps=10, max_seconds=60, max_bytes=1 << 20)
    rec = recording.Recorder(tab, tmp_path / "r.webm", limits, encoder=encoder, clock=clock)
    rec.start()
    paint(rec, clock, 0.0, b"A")
    paint(rec, clock, 0.2, b"B")  # the writer now waits in write()
    assert encoder.entered.wait(10)
    for i in range(50):  # on the event thread: each returns at once, the oldest give way
        paint(rec, clock, 0.3 + i / 100, bytes([i]))
    assert tab.session.sent.count("Page.screencastFrameAck") == 52
    encoder.release.set()
    clock.now = 101.0
    done = rec.stop()
    assert done["frames"] == 10 and encoder.fed[-1] == bytes([49])


def test_the_video_ends_when_stop_was_asked_however_far_behind_the_writer_is(tmp_path):
    clock, encoder, tab = Clock(), StuckEncoder(), FakeTab()
    limits = recording.Limits(fps=10, max_seconds=60, max_bytes=1 << 20)
    rec = recording.Recorder(tab, tmp_path / "r.webm", limits, encoder=encoder, clock=clock)
    rec.start()
    paint(rec, clock, 0.0, b"A")
    paint(rec, clock, 0.5, b"B")
    assert encoder.entered.wait(10)
    clock.now = 101.0
    stopping = threading.Thread(target=rec.stop)
    stopping.start()
    wait_until(lambda: rec._ended_at is not None, message="the stop to be taken")
    clock.now = 130.0  # the writer is released long after
    encoder.release.set()
    stopping.join(30)
    assert rec.result["frames"] == 10
