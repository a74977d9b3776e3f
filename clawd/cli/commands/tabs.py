"""Tabs: list, open, focus, close, and the index-based `tab new|select|close`."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation


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
