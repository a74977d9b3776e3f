"""Chrome performance traces of a tab: Tracing.start with transferMode ReturnAsStream, then the
trace streamed chunk by chunk through IO.read into a file under $CLAWD_HOME/traces (never held
whole in memory). The file is Chrome's JSON trace format: load it in DevTools' Performance panel."""

from __future__ import annotations

import os
import pathlib
import secrets
import threading
import time

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.page.observe.iostream import copy_stream
from clawd.security.paths import confine

CATEGORIES = [
    "-*",
    "devtools.timeline",
    "v8.execute",
    "disabled-by-default-devtools.timeline",
    "disabled-by-default-devtools.timeline.frame",
    "toplevel",
    "blink.console",
    "blink.user_timing",
    "latencyInfo",
    "disabled-by-default-devtools.timeline.stack",
    "disabled-by-default-v8.cpu_profiler",
    "loading",
    "netlog",
]
SCREENSHOTS = "disabled-by-default-devtools.screenshot"
# Layer trees and paint pictures for DevTools' Layers and Paint profiler panes. Chromium 156 writes
# them as instant events "LayerTreeHostImpl:snapshot" and "cc::DisplayItemList:snapshot" ("ph": "I",
# args.snapshot), not as "ph": "O" object snapshots (measured).
SNAPSHOTS = [
    "disabled-by-default-devtools.timeline.layers",
    "disabled-by-default-devtools.timeline.picture",
]
# The page's scripts with their text ("ScriptCatchup" events, also for scripts compiled before the
# trace started), so the trace opens with its sources in DevTools.
SOURCES = [
    "disabled-by-default-devtools.v8-source-rundown",
    "disabled-by-default-devtools.v8-source-rundown-sources",
]
READ_CHUNK = 1 << 20
END_TIMEOUT = 60.0


class TraceState:
    """Whether a trace of the tab is recording, and with which options. Two requests may race to
    start (or stop) one: the check and the change are one step under the lock."""

    def __init__(self):
        self._recording: dict | None = None
        self._lock = threading.Lock()

    def begin(self, recording: dict) -> bool:
        """Mark a trace recording; False when one already is."""
        with self._lock:
            if self._recording is not None:
                return False
            self._recording = recording
            return True

    def end(self) -> dict | None:
        """Mark it stopped; what was recording, if anything."""
        with self._lock:
            recording, self._recording = self._recording, None
            return recording

    def recording(self) -> bool:
        with self._lock:
            return self._recording is not None


TRACE = StateKey("tracing", lambda tab: TraceState())


def start(
    tab: Tab, *, screenshots: bool = False, snapshots: bool = False, sources: bool = False
) -> dict:
    """Start recording; screenshots, snapshots (layers and paint) and sources (script text) are
    OpenClaw's trace options (docs/architecture.md), each adding its categories."""
    options = {"screenshots": screenshots, "snapshots": snapshots, "sources": sources}
    trace = tab.state[TRACE]
    if not trace.begin({"started": time.time(), **options}):
        raise errors.TraceRunning(
            f"a trace of tab {tab.tab_id} is already recording; stop it with POST /trace/stop"
        )
    try:
        tab.session.call(
            "Tracing.start",
            {
                "transferMode": "ReturnAsStream",
                "streamFormat": "json",
                "traceConfig": _trace_config(**options),
            },
        )
    except BaseException:
        trace.end()
        raise
    return {"tracing": True, **options}


def _trace_config(*, screenshots: bool, snapshots: bool, sources: bool) -> dict:
    categories = (
        CATEGORIES
        + ([SCREENSHOTS] if screenshots else [])
        + (SNAPSHOTS if snapshots else [])
        + (SOURCES if sources else [])
    )
    return {
        "recordMode": "recordContinuously",
        "includedCategories": [c for c in categories if c != "-*"],
        "excludedCategories": ["*"],
    }


def stop(
    tab: Tab, root: pathlib.Path, path: str | None = None, *, timeout: float = END_TIMEOUT
) -> dict:
    """End the tab's trace and stream it to `path` (relative to `root`, or absolute under it)."""
    trace = tab.state[TRACE]
    if not trace.recording():
        raise _not_running(tab)
    target = trace_path(root, path)  # a bad path leaves the trace recording, to try again
    done = _end(tab, trace, timeout)
    if done is None:
        raise errors.CdpTimeout(
            f"the trace of tab {tab.tab_id} did not complete within {timeout:g} s"
        )
    if not done.get("stream"):
        raise errors.CdpError("Chromium finished the trace without a stream to read it from")
    size = _stream_to_file(tab.session, done["stream"], target)
    return {"path": str(target), "bytes": size}


def _end(tab: Tab, trace: TraceState, timeout: float) -> dict | None:
    """Tracing.end, then its tracingComplete (None when it did not come within `timeout`)."""
    recording = trace.end()
    if recording is None:  # another request stopped it meanwhile
        raise _not_running(tab)
    complete = tab.session.expect("Tracing.tracingComplete")
    try:
        tab.session.call("Tracing.end")
    except errors.ClawdError:
        complete.unsubscribe()
        trace.begin(recording)  # as far as we know it still records: stopping may be retried
        raise
    return complete.wait(timeout)


def _not_running(tab: Tab) -> errors.ClawdError:
    return errors.TraceNotRunning(
        f"no trace of tab {tab.tab_id} is recording; start one with POST /trace/start"
    )


def trace_path(root: pathlib.Path, path: str | None) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path:
        path = f"trace-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.json"
    target = confine(root, path, must_exist=False, kind="file")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return confine(
        root, target, must_exist=False, kind="file"
    )  # again: no symlink was created meanwhile


def _stream_to_file(session, handle: str, target: pathlib.Path) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        return copy_stream(session, handle, out, chunk_size=READ_CHUNK)
