"""What the page did: console, errors, requests, response bodies, traces."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation


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
