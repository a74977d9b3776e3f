"""What the page did: console, errors, requests, response bodies, traces."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, command, group, route_help


def console(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.console(
        level=a.level, clear=a.clear or None, wrap=a.wrap or None, target_id=inv.target()
    )
    output.emit(inv, result, output.render_console)


def errors(inv: Invocation) -> None:
    result = inv.client.errors(
        clear=inv.args.clear, wrap=inv.args.wrap or None, target_id=inv.target()
    )
    output.emit(inv, result, output.render_errors)


def requests(inv: Invocation) -> None:
    result = inv.client.requests(
        filter=inv.args.filter, clear=inv.args.clear, target_id=inv.target()
    )
    output.emit(inv, result, output.render_requests)


def response_body(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.response_body(
        a.url,
        timeout_ms=a.timeout_ms,
        max_chars=a.max_chars,
        wrap=a.wrap or None,
        target_id=inv.target(),
    )
    output.emit(inv, result, output.render_body)


def trace_start(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.trace_start(
        screenshots=a.screenshots,
        snapshots=a.snapshots or None,
        sources=a.sources or None,
        target_id=inv.target(),
    )
    output.emit(inv, result, output.render_fields)


def trace_stop(inv: Invocation) -> None:
    output.emit(
        inv, inv.client.trace_stop(path=inv.args.path, target_id=inv.target()), output.render_media
    )


def add_parsers(sub) -> None:
    p = command(sub, "console", console, "print the page's console messages", tab=True)
    p.add_argument(
        "--level",
        choices=("debug", "log", "info", "warning", "error"),
        help="only messages of this level and above",
    )
    p.add_argument("--clear", action="store_true", help=route_help("GET", "/console", "clear"))
    p.add_argument("--wrap", action="store_true", help=route_help("GET", "/console", "wrap"))
    p = command(sub, "errors", errors, "print uncaught page errors", tab=True)
    p.add_argument("--clear", action="store_true", help=route_help("GET", "/errors", "clear"))
    p.add_argument("--wrap", action="store_true", help=route_help("GET", "/errors", "wrap"))
    p = command(sub, "requests", requests, "print the page's network requests", tab=True)
    p.add_argument("--filter", metavar="TEXT", help="only URLs containing TEXT")
    p.add_argument("--clear", action="store_true", help=route_help("GET", "/requests", "clear"))
    p = command(
        sub,
        "responsebody",
        response_body,
        "print the body of a response the page received",
        tab=True,
    )
    p.add_argument("url", metavar="URL", help="the request URL (or a unique part of it)")
    p.add_argument(
        "--timeout-ms", type=int, metavar="MS", help="wait this long for the response to arrive"
    )
    p.add_argument("--max-chars", type=int, metavar="N", help="cut the body at N characters")
    p.add_argument("--wrap", action="store_true", help=route_help("POST", "/response/body", "wrap"))
    _, actions = group(sub, "trace", "record a performance trace", tab=True)
    p = command(actions, "start", trace_start, "start recording", tab=True)
    p.add_argument("--screenshots", action="store_true", help="include screenshots in the trace")
    p.add_argument(
        "--snapshots",
        action="store_true",
        help="include layer and paint snapshots (DevTools' Layers and Paint profiler)",
    )
    p.add_argument("--sources", action="store_true", help="include the text of the page's scripts")
    p = command(actions, "stop", trace_stop, "stop recording and save the trace", tab=True)
    p.add_argument("--path", metavar="PATH", help="file name under $CLAWD_HOME/traces")
