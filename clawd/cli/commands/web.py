"""`clawd-browser fetch URL` and `clawd-browser search QUERY`: the web tier from the command line.
Human output is the title, the URL and the text (wrapped as untrusted content unless --no-wrap);
--json prints the service's answer. `add_parsers` puts both commands on the parser tree."""

from __future__ import annotations

import argparse

from clawd.cli import output
from clawd.cli.commands import Invocation
from clawd.client.web_methods import web_fetch, web_search
from clawd.security.content import sanitize_markers
from clawd.web.render import RENDER_MODES
from clawd.web.search import PROVIDERS
from clawd.web.untrusted import search_text, wrap_fetch, wrap_search


def fetch(inv: Invocation) -> None:
    a = inv.args
    mode = "text" if a.text else "markdown"
    # --json prints what the service says (wrapped unless --no-wrap); text is wrapped here, with
    # its header, so the service is asked for it bare
    result = web_fetch(
        inv.client,
        a.url,
        extract_mode=mode,
        max_chars=a.max_chars,
        render=a.render,
        wrap=False if (a.no_wrap or not inv.json) else None,
    )
    output.emit(inv, result, lambda r: render_fetch(r, mode, wrap=not a.no_wrap))


def render_fetch(result: dict, mode: str, *, wrap: bool = True) -> str:
    head = [line for line in (result.get("title"), result.get("url")) if line]
    if result.get("status") and result["status"] >= 400:
        head.append(f"(the site answered HTTP {result['status']})")
    if result.get("note"):
        head.append(f"({result['note']})")
    if not wrap:
        return "\n".join(head + ["", result.get("text", "")])
    # the title and URL are the page's words too, printed outside the wrapping
    return "\n".join([sanitize_markers(line) for line in head] + ["", wrap_fetch(result, mode)])


def search(inv: Invocation) -> None:
    a = inv.args
    result = web_search(
        inv.client,
        a.query,
        count=a.count,
        provider=a.provider,
        country=a.country,
        search_lang=a.search_lang,
        ui_lang=a.ui_lang,
        freshness=a.freshness,
        wrap=False if (a.no_wrap or not inv.json) else None,
    )
    output.emit(inv, result, lambda r: wrap_search(r) if not a.no_wrap else search_text(r))


def add_parsers(sub) -> None:
    """`fetch` and `search` on the subparsers `sub` of clawd-browser's parser."""
    p = _command(sub, "fetch", fetch, "read a web page as text, without the browser")
    p.add_argument("url", metavar="URL", help="http or https address to read")
    p.add_argument(
        "--text",
        action="store_true",
        help="plain text instead of markdown (headings, lists, links, tables)",
    )
    p.add_argument(
        "--max-chars",
        type=int,
        metavar="N",
        help="cut the text at N characters (100..200000; default web.fetch.maxChars)",
    )
    p.add_argument(
        "--render",
        choices=RENDER_MODES,
        help="read the page through the browser: auto (when its HTML has almost no "
        "text but scripts; the default), never, or always",
    )
    _no_wrap(p)
    p = _command(sub, "search", search, "search the web through the configured search provider")
    p.add_argument("query", metavar="QUERY", help="what to search for")
    p.add_argument("--count", type=int, metavar="N", help="how many results (1..10; default 5)")
    p.add_argument(
        "--provider",
        choices=tuple(PROVIDERS),
        help="which provider (default: web.search.provider, else the first with a key)",
    )
    p.add_argument(
        "--freshness",
        metavar="F",
        help="pd, pw, pm, py (past day, week, month, year) or YYYY-MM-DDtoYYYY-MM-DD",
    )
    p.add_argument("--country", metavar="CC", help="results for this country, e.g. DE (Brave)")
    p.add_argument("--search-lang", metavar="L", help="results in this language, e.g. en (Brave)")
    p.add_argument("--ui-lang", metavar="L", help="interface language, e.g. en-US (Brave)")
    _no_wrap(p)


def _command(sub, name: str, func, help: str) -> argparse.ArgumentParser:
    parser = sub.add_parser(name, help=help, description=help, parents=[_json_flag()])
    parser.set_defaults(func=func, needs_service=True)
    return parser


def _json_flag() -> argparse.ArgumentParser:
    """`--json` after the command too, as every command takes it (SUPPRESS keeps a global
    --json from being reset)."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument(
        "--json", action="store_true", help="print the service's JSON answer instead of text"
    )
    return parent


def _no_wrap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-wrap",
        action="store_true",
        help="do not wrap the page's words as untrusted content (for scripts)",
    )
