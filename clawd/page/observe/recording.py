"""Video recordings of a tab: Page.startScreencast frames, sampled at a constant frame rate and
piped as JPEGs into an ffmpeg subprocess (imageio-ffmpeg's binary) that writes WebM (VP8) under
$CLAWD_HOME/recordings, with a sidecar JSON of the acts' moments (rewritten after each act, so
even a killed service leaves it). The HTTP side is server/api/record.py."""

from __future__ import annotations

import base64
import json
import logging
import math
import os
import pathlib
import queue
import secrets
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from clawd import errors
from clawd.browser.tab import StateKey, Tab

log = logging.getLogger("clawd.recording")

QUALITY = 80  # the screencast's JPEG quality: what the encoder starts from
MAX_SIDE = (1920, 1080)  # a HiDPI tab is scaled down to this by Chrome, not by us
QUEUE = 4  # frames waiting for the writer; older ones give way (the newest is what counts)
CLOSED_POLL = 1.0  # a backstop: the tab's detach event normally wakes the writer at once
MIN_CLUSTER, MAX_CLUSTER = 16384, 1 << 20  # bytes: a WebM cluster's bounds (Encoder.open)
FIRST_FRAME = 2.0  # seconds a stop waits for a first frame that has not come yet
ENCODER_EXIT = 20.0  # seconds ffmpeg gets to write the file's end once its input ends
_STOP = object()
SCREENCAST = {
    "format": "jpeg",
    "quality": QUALITY,
    "maxWidth": MAX_SIDE[0],
    "maxHeight": MAX_SIDE[1],
    "everyNthFrame": 1,  # more would skip the one frame a still page paints
}


# libvpx's fastest real-time mode, one thread, no look-ahead (frames leave as they come, so
# the byte cap sees them); crf 10 under a 2 Mb/s ceiling keeps page text sharp
VP8 = ["-cpu-used", "8", "-lag-in-frames", "0", "-crf", "10", "-b:v", "2M", "-threads", "1"]


@dataclass(frozen=True)
class Limits:
    fps: int
    max_seconds: float
    max_bytes: int


def _ffmpeg() -> str:
    """imageio-ffmpeg's ffmpeg (IMAGEIO_FFMPEG_EXE overrides it), imported at the first
    recording only."""
    try:
        import imageio_ffmpeg
    except ImportError:
        raise errors.RecordingFailed(
            "recording needs the imageio-ffmpeg package (pip install imageio-ffmpeg)"
        ) from None
    try:
        return imageio_ffmpeg.get_ffmpeg_exe()
    except RuntimeError as exc:
        raise errors.RecordingFailed(f"no ffmpeg to encode with: {exc}") from None


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame segment (ITU T.81 B.2.2)."""
    at = 2
    while at + 9 <= len(data) and data[at] == 0xFF:
        marker, length = data[at + 1], int.from_bytes(data[at + 2 : at + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            height = int.from_bytes(data[at + 5 : at + 7], "big")
            return int.from_bytes(data[at + 7 : at + 9], "big"), height
        at += 2 + length
    raise errors.RecordingFailed("a screencast frame was not a JPEG with a size")


class Encoder:
    """ffmpeg reading JPEGs on its standard input at `fps` and writing one WebM file; the
    canvas is the first frame's size (a frame of another size is fitted in, letterboxed)."""

    def __init__(self, path: pathlib.Path, limits: Limits, launch: Callable = subprocess.Popen):
        self.path, self.limits, self._launch = path, limits, launch
        self.process: subprocess.Popen | None = None
        self.size: tuple[int, int] | None = None
        self.cluster = min(MAX_CLUSTER, max(MIN_CLUSTER, limits.max_bytes // 16))
        self.progress = path.with_suffix(".progress")
        self.frames: int | None = None  # what ffmpeg encoded, once it ended

    def open(self, first: bytes) -> None:
        width, height = (2 * math.ceil(n / 2) for n in jpeg_size(first))  # 4:2:0 wants even
        fit = (
            f"scale={width}:{height}:force_original_aspect_ratio=decrease,"
            f"pad={width}:{height}:(ow-iw)/2:(oh-ih)/2,format=yuv420p"
        )
        args = [_ffmpeg(), "-hide_banner", "-loglevel", "error", "-nostdin"]
        args += ["-f", "image2pipe", "-c:v", "mjpeg", "-framerate", str(self.limits.fps)]
        args += ["-i", "pipe:0", "-vf", fit, "-c:v", "libvpx", "-deadline", "realtime"]
        args += VP8
        # the WebM muxer holds a cluster in memory until it closes, and -fs sees only what was
        # written: with small clusters and -fs a cluster short of the cap, the file ends at
        # most a frame (and its index) over the cap
        args += ["-cluster_size_limit", str(self.cluster), "-cluster_time_limit", "1000"]
        args += ["-fs", str(self.limits.max_bytes - self.cluster)]
        args += ["-progress", str(self.progress), "-nostats"]  # frames encoded, read at the end
        args += ["-f", "webm", "-y", str(self.path)]
        try:
            self.process = self._launch(
                args, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
            )
        except OSError as exc:
            raise errors.RecordingFailed(f"ffmpeg did not start: {exc}") from None
        self.size = (width, height)

    def write(self, frame: bytes) -> bool:
        """False once ffmpeg stopped reading (it reached -fs, or failed)."""
        try:
            self.process.stdin.write(frame)
            return True
        except (BrokenPipeError, ValueError):
            return False

    def _encoded(self) -> int | None:
        """The last frame=N of ffmpeg's -progress file (then the file goes)."""
        try:
            lines = self.progress.read_text().splitlines()
            self.progress.unlink()
        except OSError:
            return None
        counts = [line[6:] for line in lines if line.startswith("frame=")]
        return int(counts[-1]) if counts and counts[-1].isdigit() else None

    def full(self) -> bool:
        """Whether the file is near the byte cap, so the recording ends cleanly before -fs cuts
        it (ffmpeg holds frames in its queues, a cluster in memory: they must fit)."""
        try:
            written = self.path.stat().st_size
        except FileNotFoundError:
            return False
        return written + 4 * self.cluster >= self.limits.max_bytes

    def close(self) -> str:
        """End the input and wait for the file to be finished; ffmpeg's complaint, if any."""
        if self.process is None:
            return ""
        try:
            self.process.stdin.close()
        except BrokenPipeError:
            pass
        try:
            self.process.wait(ENCODER_EXIT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return "ffmpeg did not finish the file in time"
        err = self.process.stderr.read()  # -loglevel error: a few lines at most
        self.process.stderr.close()
        self.frames = self._encoded()
        if self.process.returncode != 0:
            return err.decode("utf-8", "replace").strip()[-500:] or "ffmpeg failed"
        return ""


class Recorder:
    """One recording of one tab. Frames are acknowledged on the event thread at once, so Chrome
    keeps sending, and queued; a writer thread of its own decodes them and feeds the encoder,
    so a slow encoder never holds up the CDP reader or its dispatcher."""

    def __init__(
        self,
        tab: Tab,
        path: pathlib.Path,
        limits: Limits,
        *,
        encoder: Encoder | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.tab, self.path, self.limits, self.clock = tab, path, limits, clock
        self.sidecar = path.with_suffix(".json")
        self.encoder = encoder or Encoder(path, limits)
        self._frames: queue.Queue = queue.Queue(QUEUE)
        self._acts: list[dict] = []
        self._lock = threading.Lock()
        self._unsubscribe: list[Callable[[], None]] = []
        self._latest: bytes | None = None
        self._written = self._received = 0
        self._stop_reason = "stop"
        self._ended_at: float | None = None
        self._url: str | None = None  # the tab's last URL seen in Target.targetInfoChanged
        self._sidecar_lock = threading.Lock()  # one writer at a time; the final one seals it
        self._sealed = False
        self.result: dict | None = None
        self.done = threading.Event()
        self.started = clock()
        self.started_at = time.time()
        self._thread = threading.Thread(target=self._run, name=f"record-{tab.tab_id}", daemon=True)

    # -- starting and stopping --------------------------------------------------------------------
    def start(self) -> None:
        session, events = self.tab.session, self.tab.session.connection.events
        self._unsubscribe = [
            session.on("Page.screencastFrame", self._on_frame),
            events.subscribe("Target.detachedFromTarget", self._on_detached, None),
            events.subscribe("Target.targetDestroyed", self._on_destroyed, None),
            events.subscribe("Target.targetInfoChanged", self._on_navigated, None),
        ]
        try:
            session.call("Page.startScreencast", SCREENCAST)
        except BaseException:
            self._unhook()
            raise
        self._thread.start()
        self._note_sidecar()  # a service killed before the first act still leaves one

    def stop(self, reason: str = "stop") -> dict:
        """Finish the file (if the writer has not already) and what was recorded."""
        if not self.done.is_set():
            self._end(reason)
        self._thread.join(ENCODER_EXIT + 5)
        if self.result is None:
            raise errors.RecordingFailed(f"the recording of tab {self.tab.tab_id} did not finish")
        return self.result

    @property
    def frames_received(self) -> int:
        """Screencast frames the writer has taken so far."""
        return self._received

    def note_act(self, kind: str, started: float, ended: float, **facts) -> None:
        """An act's moment, seconds into the video (the same clock as the frames)."""
        if self.done.is_set():
            return
        moment = {"t": round(started - self.started, 3), "end": round(ended - self.started, 3)}
        with self._lock:
            self._acts.append({**moment, "kind": kind, **facts})
        self._note_sidecar()  # at most the moment of the act in flight dies with the service

    # -- the event thread's part ------------------------------------------------------------------
    def _on_frame(self, params: dict) -> None:
        self.tab.session.send_and_forget(
            "Page.screencastFrameAck", {"sessionId": params["sessionId"]}
        )
        self._offer((self.clock(), params["data"]))

    def _on_detached(self, params: dict) -> None:
        if params.get("sessionId") == self.tab.session.session_id:
            self._gone()

    def _on_destroyed(self, params: dict) -> None:
        if params.get("targetId") == self.tab.target_id:
            self._gone()

    def _on_navigated(self, params: dict) -> None:
        """The tab's URL changed: a navigation that may have swapped its renderer, which can
        stop the screencast; starting it again is harmless when it still runs."""
        info = params.get("targetInfo", {})
        if info.get("targetId") == self.tab.target_id and info.get("url") != self._url:
            self._url = info.get("url")
            self._restart()

    def _gone(self) -> None:
        """The tab's target detached or went: the end only when the Browser let the tab go
        (its handler ran first); else a renderer swap under a tab that is still there."""
        reason = self.gone_reason()
        if reason is None:
            self._restart()
        else:
            self._end(reason)

    def gone_reason(self) -> str | None:
        """Why the tab can send no more frames (browserGone, tabCrashed, tabClosed), or None."""
        if self.tab.session.closed:
            return "browserGone"
        if self.tab.crashed:
            return "tabCrashed"
        return "tabClosed" if self.tab.closed.is_set() else None

    def _restart(self) -> None:
        log.debug("recording of %s: screencast started again", self.tab.tab_id)
        self.tab.session.send_and_forget("Page.startScreencast", SCREENCAST)

    def _end(self, reason: str) -> None:
        """The video ends now, however far behind the writer is."""
        if self._ended_at is None:
            self._ended_at, self._stop_reason = self.clock(), reason
        self._offer(_STOP)

    def _offer(self, item) -> None:
        """Queue without waiting: when the writer lags, the oldest frame gives way."""
        while True:
            try:
                self._frames.put_nowait(item)
                return
            except queue.Full:
                try:
                    dropped = self._frames.get_nowait()
                except queue.Empty:
                    continue
                if dropped is _STOP:  # a stop is never the one dropped
                    item = _STOP

    # -- the writer thread ------------------------------------------------------------------------
    def _run(self) -> None:
        reason, failure = "stop", ""
        try:
            reason = self._pump()
        except errors.ClawdError as exc:
            reason, failure = "encoderFailed", exc.message
        except Exception as exc:  # the file must still be finished and the caller answered
            log.exception("recording of %s failed", self.tab.tab_id)
            reason, failure = "encoderFailed", str(exc)
        self._finish(reason, failure)

    def _pump(self) -> str:
        """Feed frames until something ends the recording; what did."""
        deadline = self.started + self.limits.max_seconds
        while True:
            left = deadline - self.clock()
            if left <= 0:
                return "maxSeconds"
            try:
                item = self._frames.get(timeout=min(left, CLOSED_POLL))
            except queue.Empty:
                gone = self.gone_reason()
                if gone is not None:
                    return gone
                continue
            if item is _STOP:
                if self._latest is None and self._stop_reason in ("stop", "shutdown"):
                    self._await_first()
                return self._stop_reason
            if not self._take(*item):
                return "maxBytes"

    def _take(self, arrived: float, data: str) -> bool:
        """One screencast frame in; False when the file is full."""
        self._received += 1
        if not self._advance(arrived) or self.encoder.full():
            return False
        self._latest = base64.b64decode(data)
        if self.encoder.process is None:
            self.encoder.open(self._latest)
        return True

    def _await_first(self) -> None:
        """A stop that came before any frame: Chrome sends one within ms of the start (a still
        page too), so wait for it a little rather than end without a file."""
        try:
            item = self._frames.get(timeout=FIRST_FRAME)
        except queue.Empty:
            return
        if item is not _STOP:
            self._take(*item)

    def _advance(self, until: float) -> bool:
        """Write the latest frame into every video slot that began before `until`: a still page
        sends no frames, so its last one is repeated (constant frame rate, a true duration)."""
        if self._latest is None:
            return True  # the first frame also fills the slots before it came
        due = math.ceil((until - self.started) * self.limits.fps - 1e-9)
        while self._written < due:
            if not self.encoder.write(self._latest):
                return False
            self._written += 1
        return True

    def _finish(self, reason: str, failure: str) -> None:
        """Fill the video up to the end, close the encoder, write the sidecar: the file is
        whole whatever ended the recording."""
        ended = self._ended_at if self._ended_at is not None else self.clock()
        ended = min(ended, self.started + self.limits.max_seconds)
        self._unhook()
        try:
            if reason not in ("encoderFailed", "maxBytes") and not self._advance(ended):
                reason = "maxBytes"
        finally:
            complaint = self.encoder.close()
        if not self.tab.closed.is_set():
            self.tab.session.send_and_forget("Page.stopScreencast")
        if complaint and reason != "maxBytes":
            reason, failure = "encoderFailed", failure or complaint
        self.result = self._summary(reason, failure)
        try:
            self._write_sidecar(self.result)
        finally:
            self.done.set()
        log.info("recording of %s ended (%s): %d frames", self.tab.tab_id, reason, self._written)

    def _unhook(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []

    # -- what was recorded ------------------------------------------------------------------------
    def _summary(self, reason: str, failure: str) -> dict:
        exists = self.encoder.process is not None and self.path.exists()
        frames = self._written if self.encoder.frames is None else self.encoder.frames
        summary = {
            "path": str(self.path) if exists else None,
            "sidecar": str(self.sidecar),
            "bytes": self.path.stat().st_size if exists else 0,
            "frames": frames,
            "fps": self.limits.fps,
            "seconds": round(frames / self.limits.fps, 3),
            "screencastFrames": self._received,
            "stoppedBy": reason,
            "acts": len(self._acts),
        }
        if self.encoder.size:
            summary["width"], summary["height"] = self.encoder.size
        if failure:
            summary["failure"] = failure
        return summary

    def _note_sidecar(self) -> None:
        """The running sidecar, rewritten: a failure is logged, never the act's."""
        try:
            self._write_sidecar(None)
        except OSError as exc:
            log.warning("recording of %s: sidecar not written: %s", self.tab.tab_id, exc)

    def _write_sidecar(self, result: dict | None) -> None:
        """The sidecar as it stands, replaced whole (a reader never sees half of one); `result`
        seals it, None marks a recording still running (stoppedBy null)."""
        with self._sidecar_lock:
            if self._sealed:
                return  # a late act's rewrite must not undo the end
            self._sealed = result is not None
            with self._lock:
                acts = list(self._acts)
            ended = result or {"fps": self.limits.fps, "stoppedBy": None}
            doc = {
                "video": self.path.name,
                "startedAt": round(self.started_at, 3),
                **{k: v for k, v in ended.items() if k not in ("path", "sidecar", "acts")},
                "tabId": self.tab.tab_id,
                "acts": acts,
            }
            _replace(self.sidecar, json.dumps(doc, indent=1))


def _replace(path: pathlib.Path, text: str) -> None:
    """Write a new file (0600, mkstemp's) beside `path` and rename it over `path`."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.stem}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temp, path)
    except BaseException:
        pathlib.Path(temp).unlink(missing_ok=True)
        raise


class RecordSlot:
    """The tab's recording: one at a time. A recording that ended by itself (a limit, the tab
    closing) stays here until POST /record/stop collects its answer or a new one replaces it."""

    def __init__(self):
        self._recorder: Recorder | None = None
        self._lock = threading.Lock()

    def begin(self, recorder: Recorder) -> bool:
        with self._lock:
            if self._recorder is not None and not self._recorder.done.is_set():
                return False
            self._recorder = recorder
            return True

    def take(self) -> Recorder | None:
        with self._lock:
            recorder, self._recorder = self._recorder, None
            return recorder

    def current(self) -> Recorder | None:
        with self._lock:
            return self._recorder


RECORDING = StateKey("recording", lambda tab: RecordSlot())


def start(tab: Tab, root: pathlib.Path, limits: Limits, **seams) -> dict:
    """Start recording the tab into a new file under `root`."""
    path = _new_path(root)
    recorder = Recorder(tab, path, limits, **seams)
    slot = tab.state[RECORDING]
    if not slot.begin(recorder):
        raise errors.RecordingRunning(
            f"tab {tab.tab_id} is already being recorded; stop it with POST /record/stop"
        )
    try:
        recorder.start()
    except BaseException:
        slot.take()
        raise
    return {
        "recording": True,
        "path": str(path),
        "sidecar": str(recorder.sidecar),
        "fps": limits.fps,
        "maxSeconds": limits.max_seconds,
        "maxBytes": limits.max_bytes,
    }


def stop(tab: Tab) -> dict:
    """Stop the tab's recording (or collect one that a limit ended) and what it wrote."""
    recorder = tab.state[RECORDING].take()
    if recorder is None:
        raise errors.RecordingNotRunning(
            f"no recording of tab {tab.tab_id}; start one with POST /record/start"
        )
    return recorder.stop()


def end_all(tabs: Iterable[Tab], reason: str, timeout: float) -> int:
    """End every running recording of these tabs (the service is stopping) and wait, at most
    `timeout` seconds in all, for their files to be finished and their sidecars written."""
    running = [r for r in map(recorder_of, tabs) if r is not None]
    for recorder in running:
        recorder._end(reason)
    deadline = time.monotonic() + timeout
    for recorder in running:
        if not recorder.done.wait(max(deadline - time.monotonic(), 0)):
            log.warning("recording of %s did not finish in time", recorder.tab.tab_id)
    return len(running)


def on_disk(root: pathlib.Path) -> list[dict]:
    """Every recording under `root`, the last started first: its video (once a frame was
    written), its size, and from its sidecar the tab, the start, why it stopped (`stoppedBy`
    null: still running, or its service was killed) and how many acts it noted. What a stop
    answers, for recordings nobody could stop (their tab crashed or their browser went)."""
    if not root.is_dir():
        return []
    names = {p.stem for pattern in ("*.webm", "*.json") for p in root.glob("recording-" + pattern)}
    found = []
    for stem in names:
        video, sidecar = root / f"{stem}.webm", root / f"{stem}.json"
        entry: dict = {"name": video.name, "bytes": 0}
        when = 0.0
        if _plain_file(video):
            entry.update(bytes=video.stat().st_size, mediaUrl=f"/recordings/{video.name}")
            when = video.stat().st_mtime
        facts = _sidecar_facts(sidecar) if _plain_file(sidecar) else None
        if facts is not None:
            entry.update(facts, sidecarUrl=f"/recordings/{sidecar.name}")
            started = facts.get("startedAt")
            when = started if isinstance(started, (int, float)) else sidecar.stat().st_mtime
        if when:
            found.append((when, entry))
    return [entry for _, entry in sorted(found, key=lambda item: item[0], reverse=True)]


def _plain_file(path: pathlib.Path) -> bool:
    return not path.is_symlink() and path.is_file()


def _sidecar_facts(sidecar: pathlib.Path) -> dict | None:
    """What a listing shows of a sidecar (not its acts, only how many), or None without one."""
    try:
        doc = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(doc, dict):
        return None
    keep = ("tabId", "startedAt", "stoppedBy", "frames", "seconds", "fps", "failure")
    facts = {key: doc[key] for key in keep if key in doc}
    facts["acts"] = len(doc.get("acts") or [])
    return facts


def recorder_of(tab: Tab) -> Recorder | None:
    """The tab's running recording, if any (for noting acts)."""
    slot = tab.state.peek(RECORDING)
    recorder = slot.current() if slot is not None else None
    return recorder if recorder is not None and not recorder.done.is_set() else None


def _new_path(root: pathlib.Path) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    return root / f"recording-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.webm"
