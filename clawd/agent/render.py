"""The browser tool's answers as compact text for a model: what it needs to decide the next call,
not the service's JSON. Renderers tolerate missing keys; the caller wraps the text as untrusted."""
from __future__ import annotations

import json
from typing import Any

TRUNCATED = "\n\n[...TRUNCATED - page too large]"
ERROR_HINTS = {
    "REF_STALE": "Take a new snapshot (action=snapshot) and use its refs.",
    "REF_UNKNOWN": "Use a ref from the latest snapshot (action=snapshot).",
    "TAB_NOT_FOUND": "List the open tabs with action=tabs.",
    "SERVICE_UNREACHABLE": "The clawd service is not running: start it with `clawd-browser serve`.",
    "BROWSER_NOT_RUNNING": "Start the browser with action=start.",
    "ACT_ELEMENT_COVERED": "Close what covers it (a dialog, a banner) or scroll, then snapshot again.",
    "ACT_BLOCKED_BY_DIALOG": "Answer the dialog with action=dialog first.",
}


def status(result: dict) -> str:
    name = result.get("profile") or result.get("name") or "?"
    head = f"profile {name} ({result.get('driver', 'managed')})"
    if not result.get("running"):
        return f"{head}: not running (action=start starts it)"
    tabs = result.get("tabCount")
    parts = [f"{tabs} tab{'' if tabs == 1 else 's'}" if tabs is not None else None,
             "headless" if result.get("headless") else None,
             f"cdp {result['cdpUrl']}" if result.get("cdpUrl") else None]
    return f"{head}: running" + "".join(f", {p}" for p in parts if p)


def stopped(result: dict) -> str:
    name = result.get("profile") or "?"
    return f"profile {name}: stopped" if result.get("stopped", True) else f"profile {name}: was not running"


def profiles(result: dict) -> str:
    lines = []
    for p in result.get("profiles") or []:
        flags = ["running" if p.get("running") else "stopped"]
        if p.get("tabCount"):
            flags.append(f"{p['tabCount']} tab{'' if p['tabCount'] == 1 else 's'}")
        if p.get("isDefault"):
            flags.append("default")
        flags += [f"also named {alias}" for alias in p.get("aliases") or ()]
        if p.get("builtin"):
            flags.append("built in: your own browser")
        lines.append(f"{p.get('name')} ({p.get('driver', 'managed')}): {', '.join(flags)}")
    return "\n".join(lines) or "(no profiles)"


def tab_line(tab: dict) -> str:
    """`t2 [docs] "Title" https://...`: the id first, as the model will pass it back."""
    parts = [str(tab.get("tabId") or tab.get("targetId") or "?")]
    if tab.get("label"):
        parts.append(f"[{tab['label']}]")
    if tab.get("title"):
        parts.append(_quoted(tab["title"]))
    if tab.get("url"):
        parts.append(str(tab["url"]))
    return " ".join(parts)


def tabs(result: dict) -> str:
    items = result.get("tabs") or []
    lines = [("* " if t.get("active") else "  ") + tab_line(t) for t in items]
    return "\n".join(lines) or "(no tabs)"


def closed(result: dict) -> str:
    return f"closed {result.get('closed') or result.get('tabId') or 'the tab'}"


def page_state(result: dict) -> str:
    """Where a tab is after navigate or act: `t2 https://... "Title"`."""
    parts = [str(result.get("tabId") or result.get("targetId") or "")]
    if result.get("url"):
        parts.append(str(result["url"]))
    if result.get("title"):
        parts.append(_quoted(result["title"]))
    return " ".join(p for p in parts if p) or "ok"


def snapshot(result: dict, cap: int) -> str:
    """The header line, then the snapshot text itself, cut on a whole line at `cap` characters."""
    text = result.get("snapshot")
    if not isinstance(text, str):   # format=aria is not offered to models; keep it readable anyway
        text = json.dumps(text, ensure_ascii=False)
    text = cut(text.rstrip("\n"), cap)
    head = page_state({"tabId": result.get("tabId"), "url": result.get("url")})
    stats = result.get("stats") or {}
    if stats.get("refs") is not None:
        head += f" ({stats['refs']} refs)"
    return f"{head}\n{text}"


def cut(text: str, cap: int) -> str:
    """At most `cap` characters: whole lines, then the truncation marker."""
    if len(text) <= cap:
        return text
    body = text[:max(0, cap - len(TRUNCATED))]
    body = body[:body.rfind("\n")] if "\n" in body else ""
    return body + TRUNCATED


def screenshot(result: dict) -> str:
    line = f"screenshot of {result.get('tabId') or 'the tab'}"
    if result.get("width") and result.get("height"):
        line += f" ({result['width']}x{result['height']} {result.get('type', 'png')})"
    if result.get("note"):
        line += f"\nnote: {result['note']}"
    return line


def described(result: dict, description: str) -> str:
    return f"screenshot of {result.get('tabId') or 'the tab'}, described:\n{description}"


def console(result: dict) -> str:
    lines = []
    for m in result.get("messages") or []:
        where = m.get("location") or m.get("url")
        if isinstance(where, dict):
            where = where.get("url")
        lines.append(f"[{m.get('type', 'log')}] {m.get('text', '')}" + (f" ({where})" if where else ""))
    return "\n".join(lines) or "(no console messages)"


def pdf(result: dict) -> str:
    return (f"PDF of {result.get('tabId') or 'the tab'} saved on the service's machine: {result.get('path')} "
            f"({result.get('bytes', '?')} bytes)")


def upload(result: dict) -> str:
    files = ", ".join(result.get("files") or [])
    how = result.get("set")
    if result.get("armed"):
        return f"armed: the next file chooser gets {files}"
    if how == "chooser":
        return f"{act(result)}\nfiles set through the chooser: {files}"
    return f"files set ({how}): {files}"


def dialog(result: dict, accept: bool) -> str:
    verb = "accept" if accept else "dismiss"
    if result.get("armed") is not None and "answered" not in result:
        text = f"no dialog was pending: the next one will be {verb}ed"
    else:
        text = f"dialog {verb}ed"
    return "\n".join([text, *_dialog_lines(result)])


def act(result: dict) -> str:
    """Where the page is, the action's result, then only what needs attention."""
    lines = [page_state(result)]
    if "result" in result:
        lines.append(f"result: {_value(result['result'])}")
    for item in result.get("results") or []:     # batch
        state = "ok" if item.get("ok", True) else f"error {item.get('code')}: {item.get('error')}"
        lines.append(f"- {item.get('kind')}: {state}")
    lines += ["opened tab " + tab_line(t) for t in result.get("openedTabs") or []]
    lines += _dialog_lines(result)
    lines += [f"downloaded {d.get('path')} ({d.get('bytes', '?')} bytes)" for d in result.get("downloads") or []]
    return "\n".join(lines)


def _dialog_lines(result: dict) -> list[str]:
    pending = (result.get("dialogs") or {}).get("pending") or []
    lines = [f"pending dialog {d.get('dialogId')} ({d.get('type')}): {_quoted(d.get('message', ''))}; "
             "answer it with action=dialog" for d in pending]
    if result.get("blockedByDialog"):
        lines.append("the action was blocked by a dialog")
    return lines


def _value(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _quoted(text: Any) -> str:
    return json.dumps(str(text), ensure_ascii=False)
