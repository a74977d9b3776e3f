"""`clawd-browser fetch URL` and `clawd-browser search QUERY`: the web tier from the command line.
Human output is the title, the URL and the text (wrapped as untrusted content unless --no-wrap);
--json prints the service's answer. `add_parsers` puts both commands on the parser tree."""

from __future__ import annotations

import argparse

from clawd.cli import output
from clawd.cli.commands import Invocation, command, route_help
from clawd.client.web_methods import web_fetch, web_search
from clawd.security.content import sanitize_markers
from clawd.web.untrusted import search_text, wrap_fetch, wrap_search
from clawd.words import RENDER_MODES, SEARCH_PROVIDERS


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
    p = command(sub, "fetch", fetch, "read a web page as text, without the browser")
    p.add_argument("url", metavar="URL", help=route_help("POST", "/web/fetch", "url"))
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
        help=route_help("POST", "/web/fetch", "render"),
    )
    _no_wrap(p)
    p = command(sub, "search", search, "search the web through the configured search provider")
    p.add_argument("query", metavar="QUERY", help=route_help("POST", "/web/search", "query"))
    p.add_argument("--count", type=int, metavar="N", help="how many results (1..10; default 5)")
    p.add_argument(
        "--provider",
        choices=SEARCH_PROVIDERS,
        help="which provider (default: web.search.provider, else the first with a key)",
    )
    p.add_argument(
        "--freshness",
        metavar="F",
        help=route_help("POST", "/web/search", "freshness"),
    )
    p.add_argument("--country", metavar="CC", help="results for this country, e.g. DE (Brave)")
    p.add_argument("--search-lang", metavar="L", help="results in this language, e.g. en (Brave)")
    p.add_argument("--ui-lang", metavar="L", help="interface language, e.g. en-US (Brave)")
    _no_wrap(p)


def _no_wrap(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-wrap",
        action="store_true",
        help="do not wrap the page's words as untrusted content (for scripts)",
    )
