"""Reading a page: navigate, snapshot, find, screenshot, pdf.

`--out` on screenshot and pdf fetches the bytes through the answer's mediaUrl, so it works against a
service on another machine; without it the service-side path is printed.
"""

from __future__ import annotations

import json
import pathlib

from clawd import errors
from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, route_help


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
        cursor=a.cursor,
        delta=a.delta or None,
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
        if_changed=a.if_changed or None,
    )
    if result.get("unchanged"):
        output.emit(inv, result, lambda r: "unchanged: the same pixels as the last screenshot")
        return
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


def add_parsers(sub) -> None:
    p = command(sub, "navigate", navigate, "load a URL in a tab", tab=True)
    p.add_argument("url", metavar="URL", help="address to load (http, https or about:blank)")
    p.add_argument(
        "--timeout-ms",
        type=int,
        metavar="MS",
        help="how long to wait for the page to load (default: 30000)",
    )
    _snapshot(sub)
    p = command(
        sub,
        "find",
        find,
        "find snapshot lines whose role, name or text contains TEXT",
        tab=True,
    )
    p.add_argument("text", metavar="TEXT", help="text to look for (case-insensitive)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N matches")
    p = command(
        sub, "screenshot", screenshot, "capture the page or one element as an image", tab=True
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the image here (fetched over HTTP, so it works with a remote service); "
        "default: print the path on the service's machine",
    )
    p.add_argument(
        "--full-page", action="store_true", help=route_help("POST", "/screenshot", "fullPage")
    )
    p.add_argument("--ref", metavar="R", help=route_help("POST", "/screenshot", "ref"))
    p.add_argument(
        "--type", choices=("png", "jpeg"), default="png", help="image format (default: png)"
    )
    p.add_argument("--quality", type=int, metavar="Q", help="jpeg quality 1-100")
    p.add_argument(
        "--labels", action="store_true", help=route_help("POST", "/screenshot", "labels")
    )
    p.add_argument(
        "--describe",
        action="store_true",
        help="print a description in words by the service's vision describers (browser.vision) "
        "instead of the image; when they all fail, the image comes back with a note",
    )
    p.add_argument(
        "--if-changed",
        action="store_true",
        help=route_help("POST", "/screenshot", "ifChanged"),
    )
    p = command(sub, "pdf", pdf, "print the page to PDF", tab=True)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the PDF here (fetched over HTTP); default: print the "
        "path on the service's machine",
    )
    p.add_argument("--landscape", action="store_true", help=route_help("POST", "/pdf", "landscape"))


def _snapshot(sub) -> None:
    p = command(
        sub,
        "snapshot",
        snapshot,
        "print the page as accessibility text with element refs",
        tab=True,
    )
    p.add_argument(
        "--format",
        choices=("ai", "aria"),
        help="ai: Playwright-style aria text (default); aria: the raw accessibility node list",
    )
    p.add_argument(
        "--interactive", action="store_true", help=route_help("GET", "/snapshot", "interactive")
    )
    p.add_argument("--compact", action="store_true", help=route_help("GET", "/snapshot", "compact"))
    p.add_argument("--depth", type=int, metavar="N", help=route_help("GET", "/snapshot", "depth"))
    p.add_argument(
        "--max-chars",
        type=int,
        metavar="N",
        help="cut the text at N characters on a whole line (0: no limit; default 80000)",
    )
    p.add_argument(
        "--efficient",
        action="store_true",
        help="interactive elements and live regions, compact, max-chars 10000 where not given",
    )
    p.add_argument(
        "--selector", metavar="CSS", help="only the subtree of the first element matching CSS"
    )
    p.add_argument("--frame", metavar="REF", help=route_help("GET", "/snapshot", "frame"))
    p.add_argument("--cursor", metavar="NEXT", help=route_help("GET", "/snapshot", "cursor"))
    p.add_argument("--delta", action="store_true", help=route_help("GET", "/snapshot", "delta"))
    p.add_argument(
        "--limit", type=int, metavar="N", help="aria format: at most N nodes (default 500)"
    )
    p.add_argument("--labels", action="store_true", help=route_help("GET", "/snapshot", "labels"))
    p.add_argument("--urls", action="store_true", help=route_help("GET", "/snapshot", "urls"))
    p.add_argument(
        "--no-refs",
        action="store_true",
        help="no refs: the text Playwright's ariaSnapshot() prints",
    )
    p.add_argument(
        "--refs",
        choices=("aria", "role"),
        help="aria: refs bound to their element (default); role: a ref whose element a re-render "
        "replaced acts on the element with the same role, name and nth",
    )
    p.add_argument("--wrap", action="store_true", help=route_help("GET", "/snapshot", "wrap"))
    p.add_argument(
        "--out", metavar="FILE", help="write the snapshot to FILE instead of printing it"
    )
