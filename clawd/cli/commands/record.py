"""Recording a tab as a WebM video: `record start`, `record stop`, `record list`."""

from __future__ import annotations

import pathlib

from clawd import errors
from clawd.cli import output
from clawd.cli.commands import Invocation, command, group, route_help


def record_start(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.record_start(
        fps=a.fps, max_seconds=a.max_seconds, max_bytes=a.max_bytes, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def record_stop(inv: Invocation) -> None:
    result = inv.client.record_stop(target_id=inv.target())
    if not inv.args.out:
        output.emit(inv, result, output.render_fields)
        return
    if not result.get("mediaUrl"):
        raise errors.RecordingFailed("the recording has no video to fetch (no frame came)")
    out = pathlib.Path(inv.args.out)
    saved = inv.client.fetch_media(result["mediaUrl"], out)
    side = out if out.is_dir() else saved.with_suffix(".json")
    inv.client.fetch_media(result["sidecarUrl"], side)
    output.emit(inv, result, lambda _result: str(saved))


def record_list(inv: Invocation) -> None:
    output.emit(inv, inv.client.recordings(), _render_list)


def _render_list(result: dict) -> str:
    rows = []
    for r in result.get("recordings", []):
        stopped = r.get("stoppedBy") or ("no sidecar" if "sidecarUrl" not in r else "running")
        tab = f"  tab {r['tabId']}" if r.get("tabId") else ""
        rows.append(f"{r['name']}  {r['bytes']} bytes  {stopped}{tab}  {r.get('acts', 0)} acts")
    return "\n".join(rows) or "no recordings"


def add_parsers(sub) -> None:
    _, actions = group(sub, "record", "record the tab as a WebM video", tab=True)
    p = command(actions, "start", record_start, "start recording the tab", tab=True)
    p.add_argument("--fps", type=int, metavar="N", help=route_help("POST", "/record/start", "fps"))
    p.add_argument(
        "--max-seconds",
        type=float,
        metavar="S",
        help=route_help("POST", "/record/start", "maxSeconds"),
    )
    p.add_argument(
        "--max-bytes",
        type=int,
        metavar="N",
        help=route_help("POST", "/record/start", "maxBytes"),
    )
    p = command(
        actions,
        "stop",
        record_stop,
        "stop recording: the video's path, its sidecar of acts, why it stopped",
        tab=True,
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the video here and its sidecar beside it (.json), fetched over HTTP; "
        "default: print where they are on the service's machine",
    )
    command(
        actions,
        "list",
        record_list,
        "the recordings on the service's disk, newest first: why each stopped, its acts",
    )
