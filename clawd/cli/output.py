"""How command results read on a terminal; `--json` prints the service's JSON as it came.

Renderers are `(dict) -> str` and tolerate missing keys: the service may add fields at any time.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from clawd.agent import render
from clawd.cli.commands import Invocation

Renderer = Callable[[dict], str]
_TITLE_WIDTH = 48


def emit(inv: Invocation, result: Any, render: Renderer | None = None) -> None:
    if inv.json:
        print(json.dumps(result, indent=2, ensure_ascii=False), file=inv.stdout)
        return
    text = (render or render_fields)(result) if isinstance(result, dict) else _scalar(result)
    if text:
        print(text, file=inv.stdout)


# -- generic ---------------------------------------------------------------------------------------
def render_fields(result: dict) -> str:
    """`key: value` lines, nested objects as dotted keys; a bare `{ok: true}` reads as "ok"."""
    lines = list(_field_lines(result))
    return "\n".join(lines) if lines else ("ok" if result.get("ok", True) else "failed")


def _field_lines(data: dict, prefix: str = "") -> Iterable[str]:
    for key, value in data.items():
        if key == "ok" and not prefix:
            continue
        if isinstance(value, dict) and value:
            yield from _field_lines(value, f"{prefix}{key}.")
        else:
            yield f"{prefix}{key}: {_scalar(value)}"


def _scalar(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def table(rows: list[dict], columns: list[str]) -> str:
    """Left-aligned columns; a column no row has is left out."""
    columns = [c for c in columns if any(row.get(c) not in (None, "") for row in rows)]
    cells = [[c.upper() for c in columns]] + [[_cell(row.get(c)) for c in columns] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in cells)


def _cell(value: Any) -> str:
    return "" if value is None else _scalar(value)


def _shorten(text: Any, width: int = _TITLE_WIDTH) -> str:
    text = "" if text is None else str(text)
    return text if len(text) <= width else text[: width - 1] + "…"


def _items(result: dict, *keys: str) -> list:
    """The first list found under `keys` (answers wrap lists under a resource name)."""
    for key in keys:
        if isinstance(result.get(key), list):
            return result[key]
    return []


# -- tabs and profiles -----------------------------------------------------------------------------
def render_tabs(result: dict) -> str:
    tabs = _items(result, "tabs")
    if not tabs:
        return "(no tabs)" if "tabs" in result else render_fields(result)
    rows = [
        {**t, "": "*" if t.get("active") else "", "title": _shorten(t.get("title"))} for t in tabs
    ]
    return table(rows, ["", "tabId", "label", "title", "url"])


def render_tab(result: dict) -> str:
    """One tab (open, focus, tab new): `t3  label  title  url`."""
    if "tabs" in result:
        return render_tabs(result)
    tab = result.get("tab") if isinstance(result.get("tab"), dict) else result
    parts = [tab.get("tabId"), tab.get("label"), _shorten(tab.get("title")), tab.get("url")]
    line = "  ".join(str(p) for p in parts if p)
    return line or render_fields(result)


def render_profiles(result: dict) -> str:
    profiles = _items(result, "profiles")
    if not profiles:
        return "(no profiles)" if "profiles" in result else render_fields(result)
    return table(profiles, ["name", "driver", "cdpPort", "cdpUrl", "color", "running", "tabCount"])


# -- page ------------------------------------------------------------------------------------------
def render_snapshot(result: dict) -> str:
    if isinstance(result.get("snapshot"), str):
        text = result["snapshot"]
    else:
        text = (
            "\n".join(_aria_line(node) for node in _items(result, "nodes", "snapshot")) or "(empty)"
        )
    if result.get("imagePath"):
        text += f"\n\nlabels: {result['imagePath']} ({result.get('labelsCount', 0)} labelled)"
    if result.get("next"):
        text += f"\n\nmore lines: clawd-browser snapshot --cursor {result['next']}"
    return text


def _aria_line(node: dict) -> str:
    name = f" {json.dumps(node['name'], ensure_ascii=False)}" if node.get("name") else ""
    value = f" = {json.dumps(node['value'], ensure_ascii=False)}" if node.get("value") else ""
    return (
        f"{'  ' * int(node.get('depth') or 0)}- {node.get('role', '?')}{name}{value} "
        f"[ref={node.get('ref')}]"
    )


def render_find(result: dict) -> str:
    matches = _items(result, "matches", "results")
    if not matches:
        return result.get("snapshot") or "(no matches)"
    return "\n".join(
        m.get("line")
        or f"{m.get('ref', '?')}  {m.get('role', '')} {_quoted(m.get('name'))}".rstrip()
        for m in matches
    )


def _quoted(name: Any) -> str:
    return json.dumps(name, ensure_ascii=False) if name else ""


def render_media(result: dict) -> str:
    """Screenshots, PDFs, traces, downloads: the service-side path
    (mediaUrl for a remote reader)."""
    path = result.get("path") or result.get("mediaUrl")
    return str(path) if path else render_fields(result)


# -- act -------------------------------------------------------------------------------------------
def _head(result: dict) -> str:
    """`t1 https://example.com/  Title`: where the page is, as a terminal line."""
    head = " ".join(str(p) for p in (result.get("tabId"), result.get("url")) if p) or "ok"
    if result.get("title"):
        head += f"  {_shorten(result['title'])}"
    return head


def _dialog_line(d: dict) -> str:
    return (
        f"dialog {d.get('dialogId')} ({d.get('type')}): {d.get('message', '')} "
        "-- answer with `clawd-browser dialog --accept|--dismiss`"
    )


TERMINAL = render.Voice(_head, _dialog_line)


def render_act(result: dict) -> str:
    """One line of where the page is, then what the action answered and what needs attention
    (tabs, dialogs, downloads): the agent tool's act text in a terminal's voice."""
    return render.act(result, TERMINAL)


def render_evaluate(result: dict) -> str:
    return render.value_text(result.get("result")) if "result" in result else render_act(result)


# -- debug and state -------------------------------------------------------------------------------
def render_console(result: dict) -> str:
    entries = _items(result, "messages", "console", "entries")
    lines = [
        f"[{e.get('type') or e.get('level', 'log')}] {e.get('text', '')}{_location(e)}"
        for e in entries
    ]
    return "\n".join(lines) or "(no console messages)"


def _location(entry: dict) -> str:
    where = entry.get("location") or {}
    if not where.get("url"):
        return ""
    line = where.get("lineNumber")
    return f"  ({where['url']}:{line + 1})" if isinstance(line, int) else f"  ({where['url']})"


def render_errors(result: dict) -> str:
    lines = [
        f"{e.get('name') + ': ' if e.get('name') else ''}{e.get('message', '')}{_location(e)}"
        for e in _items(result, "errors", "entries")
    ]
    return "\n".join(lines) or "(no page errors)"


def render_requests(result: dict) -> str:
    lines = [
        f"{e.get('method', 'GET')} {e.get('status') or e.get('failureText') or '...'} "
        f"{e.get('url', '')}"
        for e in _items(result, "requests", "entries")
    ]
    return "\n".join(lines) or "(no requests)"


def render_cookies(result: dict) -> str:
    cookies = _items(result, "cookies")
    if not cookies:
        return "(no cookies)"
    rows = [{**c, "value": _shorten(c.get("value"), 40)} for c in cookies]
    return table(
        rows, ["name", "value", "domain", "path", "expires", "secure", "httpOnly", "sameSite"]
    )


def render_storage(result: dict) -> str:
    if "value" in result:
        return _scalar(result["value"])
    items = result.get("items") if isinstance(result.get("items"), dict) else result.get("values")
    if isinstance(items, dict):
        return "\n".join(f"{k}={v}" for k, v in items.items()) or "(empty)"
    return render_fields(result)


def render_body(result: dict) -> str:
    body = result.get("body")
    return body if isinstance(body, str) else render_fields(result)


def render_doctor(result: dict) -> str:
    checks = _items(result, "checks")
    if not checks:
        return render_fields(result)
    return "\n".join(_check_line(c) for c in checks)


def _check_line(check: dict) -> str:
    detail = check.get("detail") or check.get("message")
    line = f"[{'ok' if check.get('ok') else '!!'}] {check.get('name', '?')}"
    return f"{line}: {detail}" if detail else line
