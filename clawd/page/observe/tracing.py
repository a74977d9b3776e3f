"""Chrome performance traces of a tab: Tracing.start with transferMode ReturnAsStream, then the
trace streamed chunk by chunk through IO.read into a file under $CLAWD_HOME/traces (never held
whole in memory). The file is Chrome's JSON trace format: load it in DevTools' Performance panel."""
from __future__ import annotations

import os
import pathlib
import secrets
import time

from clawd import errors
from clawd.browser.tab import Tab
from clawd.page.observe.iostream import copy_stream
from clawd.security.paths import confine

TRACE_SLOT = "tracing"
CATEGORIES = ["-*", "devtools.timeline", "v8.execute", "disabled-by-default-devtools.timeline",
              "disabled-by-default-devtools.timeline.frame", "toplevel", "blink.console", "blink.user_timing",
              "latencyInfo", "disabled-by-default-devtools.timeline.stack", "disabled-by-default-v8.cpu_profiler",
              "loading", "netlog"]
SCREENSHOTS = "disabled-by-default-devtools.screenshot"
# Layer trees and paint pictures for DevTools' Layers and Paint profiler panes. Chromium 156 writes
# them as instant events "LayerTreeHostImpl:snapshot" and "cc::DisplayItemList:snapshot" ("ph": "I",
# args.snapshot), not as "ph": "O" object snapshots (measured).
SNAPSHOTS = ["disabled-by-default-devtools.timeline.layers", "disabled-by-default-devtools.timeline.picture"]
# The page's scripts with their text ("ScriptCatchup" events, also for scripts compiled before the
# trace started), so the trace opens with its sources in DevTools.
SOURCES = ["disabled-by-default-devtools.v8-source-rundown", "disabled-by-default-devtools.v8-source-rundown-sources"]
READ_CHUNK = 1 << 20
END_TIMEOUT = 60.0


def start(tab: Tab, *, screenshots: bool = False, snapshots: bool = False, sources: bool = False) -> dict:
    """Start recording; screenshots, snapshots (layers and paint) and sources (script text) are
    OpenClaw's trace options (DESIGN.md §17), each adding its categories."""
    if tab.slots.get(TRACE_SLOT):
        raise errors.TraceRunning(f"a trace of tab {tab.tab_id} is already recording; stop it with POST /trace/stop")
    categories = CATEGORIES + ([SCREENSHOTS] if screenshots else []) + (SNAPSHOTS if snapshots else []) + \
        (SOURCES if sources else [])
    tab.session.call("Tracing.start", {"transferMode": "ReturnAsStream", "streamFormat": "json",
                                       "traceConfig": {"recordMode": "recordContinuously",
                                                       "includedCategories": [c for c in categories if c != "-*"],
                                                       "excludedCategories": ["*"]}})
    options = {"screenshots": screenshots, "snapshots": snapshots, "sources": sources}
    tab.slots[TRACE_SLOT] = {"started": time.time(), **options}
    return {"tracing": True, **options}


def stop(tab: Tab, root: pathlib.Path, path: str | None = None, *, timeout: float = END_TIMEOUT) -> dict:
    """End the tab's trace and stream it to `path` (relative to `root`, or absolute under it)."""
    if not tab.slots.get(TRACE_SLOT):
        raise errors.TraceNotRunning(f"no trace of tab {tab.tab_id} is recording; start one with POST /trace/start")
    target = trace_path(root, path)
    complete = tab.session.expect("Tracing.tracingComplete")
    tab.session.call("Tracing.end")
    tab.slots.pop(TRACE_SLOT, None)
    done = complete.wait(timeout)
    if done is None:
        raise errors.CdpTimeout(f"the trace of tab {tab.tab_id} did not complete within {timeout:g} s")
    if not done.get("stream"):
        raise errors.CdpError("Chromium finished the trace without a stream to read it from")
    size = _stream_to_file(tab.session, done["stream"], target)
    return {"path": str(target), "bytes": size}


def trace_path(root: pathlib.Path, path: str | None) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path:
        path = f"trace-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.json"
    target = confine(root, path, must_exist=False, kind="file")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return confine(root, target, must_exist=False, kind="file")   # again: no symlink was created meanwhile


def _stream_to_file(session, handle: str, target: pathlib.Path) -> int:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        return copy_stream(session, handle, out, chunk_size=READ_CHUNK)
