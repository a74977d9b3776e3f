"""Reading a page: navigate, snapshot, find, screenshot, pdf.

`--out` on screenshot and pdf fetches the bytes through the answer's mediaUrl, so it works against a
service on another machine; without it the service-side path is printed.
"""

from __future__ import annotations

import json
import pathlib

from clawd import errors
from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError


def navigate(inv: Invocation) -> None:
    result = inv.client.navigate(
        inv.args.url, target_id=inv.target(), timeout_ms=inv.args.timeout_ms
    )
    output.emit(inv, result, output.render_act)


def snapshot(inv: Invocation) -> None:
    a = inv.args
    if a.no_refs and a.refs:
        raise UsageError(f"--no-refs and --refs {a.refs} contradict each other; give one")
    result = inv.client.snapshot(
        target_id=inv.target(),
        format=a.format,
        interactive=a.interactive or None,
        compact=a.compact or None,
        depth=a.depth,
        max_chars=a.max_chars,
        efficient=a.efficient,
        selector=a.selector,
        frame=a.frame,
        limit=a.limit,
        labels=a.labels or None,
        urls=a.urls or None,
        refs=False if a.no_refs else a.refs,
        wrap=a.wrap or None,
    )
    if a.out:
        _write_snapshot(inv, result, pathlib.Path(a.out))
        return
    output.emit(inv, result, output.render_snapshot)


def _write_snapshot(inv: Invocation, result: dict, out: pathlib.Path) -> None:
    """--out keeps the text (or the JSON with --json) in a file and says so on stdout."""
    if inv.json:
        out.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    else:
        out.write_text(output.render_snapshot(result) + "\n", encoding="utf-8")
    stats = result.get("stats") or {}
    print(
        f"{out} ({stats.get('chars', '?')} chars, {stats.get('refs', '?')} refs)", file=inv.stdout
    )


def find(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.find(a.text, target_id=inv.target(), limit=a.limit)
    output.emit(inv, result, render_find)


def render_find(result: dict) -> str:
    """Each match under its ancestor lines, indented as in the snapshot; a blank line between."""
    matches = result.get("matches") or []
    if not matches:
        return "(no matches)"
    blocks = []
    for match in matches:
        path = match.get("path") or []
        lines = ["  " * depth + ancestor for depth, ancestor in enumerate(path)]
        blocks.append("\n".join(lines + ["  " * len(path) + match["line"]]))
    return "\n\n".join(blocks)


def screenshot(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.screenshot(
        target_id=inv.target(),
        full_page=a.full_page,
        ref=a.ref,
        type=a.type,
        labels=a.labels,
        quality=a.quality,
        describe=a.describe or None,
    )
    if result.get("described"):
        output.emit(inv, result, lambda r: r["description"])
        return
    if result.get("note"):
        print(f"note: {result['note']}", file=inv.stderr)
    _deliver(inv, result)


def pdf(inv: Invocation) -> None:
    _deliver(inv, inv.client.pdf(target_id=inv.target(), landscape=inv.args.landscape or None))


def _deliver(inv: Invocation, result: dict) -> None:
    out = getattr(inv.args, "out", None)
    if not out:
        output.emit(inv, result, output.render_media)
        return
    if not result.get("mediaUrl"):
        raise errors.ClawdError(
            f"the service gave no mediaUrl to fetch; the file is {result.get('path')} "
            "on the service's machine"
        )
    saved = inv.client.fetch_media(result["mediaUrl"], pathlib.Path(out))
    # --json still prints the service's answer verbatim; the file is where the user asked
    output.emit(inv, result, lambda _result: str(saved))
