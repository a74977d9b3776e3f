"""`webmcp list|call NAME --input JSON`: the tools the tab's page offers (WebMCP).
What the page wrote is untrusted: printed wrapped as untrusted content unless --no-wrap (with
--json, the service's answer with wrap=true unless --no-wrap)."""

from __future__ import annotations

from clawd.agent import render
from clawd.cli import output
from clawd.cli.commands import Invocation, command, group, json_value, route_help
from clawd.security.content import wrap_untrusted

SOURCE = "webmcp tool"


def list_tools(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.webmcp_tools(inv.target(), wrap=_wrap(inv))
    output.emit(inv, result, lambda r: _shown(render.webmcp_tools(r), a.no_wrap))


def call(inv: Invocation) -> None:
    a = inv.args
    given = json_value(a.input, "--input", dict, "a JSON object") if a.input else {}
    result = inv.client.webmcp_call(
        a.name,
        given,
        inv.target(),
        frame=a.frame,
        timeout_ms=a.timeout_ms,
        wrap=_wrap(inv),
    )
    output.emit(inv, result, lambda r: _shown(render.webmcp_call(r), a.no_wrap))


def _wrap(inv: Invocation) -> bool | None:
    """The service wraps for --json; text is wrapped here, whole, so it is asked for bare."""
    return True if inv.json and not inv.args.no_wrap else None


def _shown(text: str, no_wrap: bool) -> str:
    return text if no_wrap else wrap_untrusted(text, source=SOURCE)


def add_parsers(sub) -> None:
    _, actions = group(sub, "webmcp", "list or call the tools the page offers (WebMCP)")
    p = command(actions, "list", list_tools, "the tools the tab's pages offer", tab=True)
    _no_wrap(p)
    p = command(actions, "call", call, "call a tool the page offers", tab=True)
    p.add_argument("name", metavar="NAME", help=route_help("POST", "/webmcp/call", "name"))
    p.add_argument("--input", metavar="JSON", help=route_help("POST", "/webmcp/call", "input"))
    p.add_argument("--frame", metavar="ID", help=route_help("POST", "/webmcp/call", "frame"))
    p.add_argument(
        "--timeout-ms",
        type=int,
        metavar="MS",
        help="how long the tool may take (default: browser.actionTimeoutMs)",
    )
    _no_wrap(p)


def _no_wrap(p) -> None:
    p.add_argument(
        "--no-wrap",
        action="store_true",
        help="print what the page wrote without the untrusted-content markers",
    )
