"""Tabs: list, open, focus, close, and the index-based `tab new|select|close`."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, command, group


def list_tabs(inv: Invocation) -> None:
    output.emit(inv, inv.client.tabs(), output.render_tabs)


def tab_list(inv: Invocation) -> None:
    output.emit(inv, inv.client.tab_action("list"), output.render_tabs)


def tab_new(inv: Invocation) -> None:
    result = inv.client.tab_action("new", url=inv.args.url, label=inv.args.label)
    output.emit(inv, result, output.render_tab)


def tab_select(inv: Invocation) -> None:
    output.emit(inv, inv.client.tab_action("select", index=inv.args.index), output.render_tab)


def tab_close(inv: Invocation) -> None:
    output.emit(inv, inv.client.tab_action("close", index=inv.args.index), output.render_tabs)


def open_tab(inv: Invocation) -> None:
    result = inv.client.open(inv.args.url, label=inv.args.label, timeout_ms=inv.args.timeout_ms)
    output.emit(inv, result, output.render_tab)


def focus(inv: Invocation) -> None:
    output.emit(inv, inv.client.focus(inv.args.target), output.render_tab)


def close(inv: Invocation) -> None:
    output.emit(inv, inv.client.close_tab(inv.args.target), output.render_fields)


def add_parsers(sub) -> None:
    command(sub, "tabs", list_tabs, "list open tabs")
    _, actions = group(
        sub,
        "tab",
        "list tabs, or open, select or close one by index",
        required=False,
        func=tab_list,
    )
    p = command(actions, "new", tab_new, "open a new tab")
    p.add_argument("url", metavar="URL", nargs="?", help="address to open (default: about:blank)")
    p.add_argument("--label", metavar="L", help="a name to address the tab by later (--target L)")
    p = command(actions, "select", tab_select, "make the tab at an index the current one")
    p.add_argument("index", metavar="N", type=int, help="tab index as `tab` lists them, from 0")
    p = command(actions, "close", tab_close, "close the tab at an index")
    p.add_argument("index", metavar="N", type=int, help="tab index as `tab` lists them, from 0")
    p = command(sub, "open", open_tab, "open a URL in a new tab")
    p.add_argument("url", metavar="URL", help="address to open (http, https or about:blank)")
    p.add_argument("--label", metavar="L", help="a name to address the tab by later (--target L)")
    p.add_argument(
        "--timeout-ms",
        type=int,
        metavar="MS",
        help="how long to wait for the page to load (default: 30000)",
    )
    p = command(sub, "focus", focus, "make a tab the current one and bring it to front")
    p.add_argument(
        "target", metavar="TARGET", help="stable id (t1), label, or raw target id prefix"
    )
    p = command(sub, "close", close, "close a tab (default: the current one)")
    p.add_argument(
        "target", metavar="TARGET", nargs="?", help="stable id (t1), label, or raw target id prefix"
    )
