"""The browser tool's answers as compact text for a model: what it needs to decide the next call,
not the service's JSON. Renderers tolerate missing keys; the caller wraps the text as untrusted.

An act answer reads the same for a model and on a terminal but for its voice (how the page's
place and a pending dialog are told): cli/output.py renders act answers with `act(..., voice)`."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from clawd import acts

TRUNCATED = "\n\n[...TRUNCATED - page too large]"
ERROR_HINTS = {
    "REF_STALE": "Take a new snapshot (action=snapshot) and use its refs.",
    "REF_UNKNOWN": "Use a ref from the latest snapshot (action=snapshot).",
    "TAB_NOT_FOUND": "List the open tabs with action=tabs.",
    "SERVICE_UNREACHABLE": "The clawd service is not running: start it with `clawd-browser serve`.",
    "BROWSER_NOT_RUNNING": "Start the browser with action=start.",
    "ACT_ELEMENT_COVERED": "It stayed covered while the act waited: take a new snapshot, find "
    "what the error names (a dialog, a cookie wall, an open menu) and close it or act on it.",
    "ACT_BLOCKED_BY_DIALOG": "Answer the dialog with action=dialog first.",
}


def status(result: dict) -> str:
    name = result.get("profile") or result.get("name") or "?"
    head = f"profile {name} ({result.get('driver', 'managed')})"
    if not result.get("running"):
        return f"{head}: not running (action=start starts it)"
    tabs = result.get("tabCount")
    parts = [
        f"{tabs} tab{'' if tabs == 1 else 's'}" if tabs is not None else None,
        "headless" if result.get("headless") else None,
        f"cdp {result['cdpUrl']}" if result.get("cdpUrl") else None,
    ]
    return f"{head}: running" + "".join(f", {p}" for p in parts if p)


def stopped(result: dict) -> str:
    name = result.get("profile") or "?"
    return (
        f"profile {name}: stopped"
        if result.get("stopped", True)
        else f"profile {name}: was not running"
    )


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
    if not isinstance(text, str):  # format=aria is not offered to models; keep it readable anyway
        text = json.dumps(text, ensure_ascii=False)
    text = cut(text.rstrip("\n"), cap)
    head = page_state({"tabId": result.get("tabId"), "url": result.get("url")})
    stats = result.get("stats") or {}
    if stats.get("refs") is not None:
        head += f" ({stats['refs']} refs)"
    if result.get("unchanged"):
        return f"{head}\nunchanged since the last snapshot (its refs hold)"
    if result.get("delta"):  # lines marked + added, - removed, ~ changed, under their parent's
        head += " delta: + added, - removed, ~ changed"
    if result.get("next"):  # on the header: the text keeps its cap and its closing marker
        head += f" [more lines: snapshot with cursor={result['next']}]"
    return f"{head}\n{text}"


def cut(text: str, cap: int) -> str:
    """At most `cap` characters: whole lines, then the truncation marker."""
    if len(text) <= cap:
        return text
    body = text[: max(0, cap - len(TRUNCATED))]
    body = body[: body.rfind("\n")] if "\n" in body else ""
    return body + TRUNCATED


def screenshot(result: dict) -> str:
    line = f"screenshot of {result.get('tabId') or 'the tab'}"
    if result.get("width") and result.get("height"):
        line += f" ({result['width']}x{result['height']} {result.get('type', 'png')})"
    if result.get("note"):
        line += f"\nnote: {result['note']}"
    return line


def described(result: dict, description: str) -> str:
    by = f" by {result['describedBy']}" if result.get("describedBy") else ""
    return f"screenshot of {result.get('tabId') or 'the tab'}, described{by}:\n{description}"


def console(result: dict) -> str:
    lines = []
    for m in result.get("messages") or []:
        where = m.get("location") or m.get("url")
        if isinstance(where, dict):
            where = where.get("url")
        lines.append(
            f"[{m.get('type', 'log')}] {m.get('text', '')}" + (f" ({where})" if where else "")
        )
    return "\n".join(lines) or "(no console messages)"


def pdf(result: dict) -> str:
    return (
        f"PDF of {result.get('tabId') or 'the tab'} saved on the service's machine: "
        f"{result.get('path')} ({result.get('bytes', '?')} bytes)"
    )


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


@dataclass(frozen=True)
class Voice:
    """What differs between telling an act answer to a model and printing it for a person."""

    head: Callable[[dict], str]  # where the page is
    dialog: Callable[[dict], str]  # a pending dialog, and how to answer it


def _model_dialog(d: dict) -> str:
    what = f"pending dialog {d.get('dialogId')} ({d.get('type')})"
    return f"{what}: {_quoted(d.get('message', ''))}; answer it with action=dialog"


MODEL = Voice(page_state, _model_dialog)


def act(result: dict, voice: Voice = MODEL) -> str:
    """Where the page is, what the action answered (the act table's answer fields), a batch's
    results, then only what needs attention."""
    lines = [voice.head(result)]
    lines += [effect(result["effect"])] if "effect" in result else []
    lines += [
        f"{name}: {value_text(result[name])}" for name in acts.ANSWER_FIELDS if name in result
    ]
    lines += [_batched(item) for item in result.get("results") or []]
    lines += ["opened tab " + tab_line(t) for t in result.get("openedTabs") or []]
    lines += _dialog_lines(result, voice)
    lines += [
        f"downloaded {d.get('path') or d.get('url')} ({d.get('bytes', '?')} bytes)"
        for d in result.get("downloads") or []
    ]
    if result.get("handedBack"):
        lines.append(handed_back(result["handedBack"]))
    return "\n".join(lines)


def handed_back(changed: dict) -> str:
    """What the person changed while the tab was theirs, in one line."""
    url, title = changed.get("url") or {}, changed.get("title") or {}
    parts = [f"navigated to {url.get('after')}" if changed.get("navigated") else "same URL"]
    if title.get("before") != title.get("after"):
        parts.append(f"title now {_quoted(title.get('after') or '')}")
    if "linesAdded" in changed:
        parts.append(f"{changed['linesAdded']} lines added, {changed['linesRemoved']} removed")
    return "a person had the tab and gave it back: " + ", ".join(parts)


def handoff(result: dict) -> str:
    link = (result.get("liveView") or {}).get("url")
    return (
        f"tab {result.get('tabId')} is now a person's: {result['handoff']['reason']}\n"
        f"give them this live view (one use): {link}\n"
        "acts on the tab answer HANDOFF_ACTIVE until they give it back; then act again"
    )


def webmcp_tools(result: dict) -> str:
    """The tools the page offers: name, description, the input its schema asks for, and the
    frame of a tool that is not the page's own; or why there are none."""
    tools = result.get("tools") or []
    if not tools:
        return f"{page_state(result)}: the page offers no tools"
    lines = [f"{page_state(result)}: {len(tools)} page tools (call one with tool and input)"]
    for tool in tools:
        where = "" if tool.get("mainFrame", True) else f" [frame {tool.get('frame')}]"
        where += _form_of(tool)
        lines.append(f"- {tool.get('name')}{where}: {tool.get('description') or ''}".rstrip())
        schema = tool.get("inputSchema") or {}
        lines.append(f"  input: {json.dumps(schema, ensure_ascii=False, separators=(',', ':'))}")
    return "\n".join(lines)


def _form_of(tool: dict) -> str:
    """A declarative tool's form: whether a call submits it or leaves the submit to the agent."""
    if not tool.get("declarative"):
        return ""
    ref = f" {tool['ref']}" if tool.get("ref") else ""
    if (tool.get("annotations") or {}).get("autosubmit"):
        return f" [form{ref}, submitted by the call]"
    return f" [form{ref}, filled by the call: you submit it]"


def webmcp_call(result: dict) -> str:
    """What the page's tool answered, then the page's state after it as an act's answer."""
    lines = act(result).split("\n")
    if result.get("status") == "AwaitingSubmit":
        said = [_awaiting_submit(result)]
    else:
        said = [f"tool {result.get('tool')}: {str(result.get('status', '')).lower()}"]
    if result.get("output") is not None:
        said.append(f"output: {value_text(result['output'])}")
    return "\n".join([lines[0], *said, *lines[1:]])


def _awaiting_submit(result: dict) -> str:
    """A form the call filled and did not submit: what it holds, and what submits it."""
    form = result.get("form") or {}
    where = f"form {form['ref']}" if form.get("ref") else "its form"
    values = json.dumps(form.get("values") or {}, ensure_ascii=False)
    submit = form.get("submit") or {}
    button = f'{submit["ref"]} "{submit.get("name", "")}"' if submit.get("ref") else None
    then = f"click {button}" if button else "take a snapshot and click its submit button"
    return (
        f"tool {result.get('tool')}: filled {where}, not submitted (the page leaves the submit "
        f"to you): {values}\nreview it, then {then}"
    )


def effect(found: dict) -> str:
    """An act's effect (docs/actions.md) in one line: `effect: navigated to https://... (200);
    focus e5; changed +1: + listitem "Item 201"`, or `effect: none`."""
    parts = _went(found)
    values = found.get("value")
    for v in values if isinstance(values, list) else [values] if values else []:
        parts.append(f"{v.get('ref')} {_json(v.get('before'))} -> {_json(v.get('after'))}")
    if found.get("focus"):
        parts.append(f"focus {found['focus']}")
    if found.get("changed"):
        parts.append(_changed(found["changed"]))
    return "effect: " + ("; ".join(parts) or "none")


def _went(found: dict) -> list[str]:
    """Where the act took the tab: a navigation, tabs, a dialog, a download."""
    parts = []
    nav = found.get("navigated")
    if nav:
        status = f" ({nav['status']})" if nav.get("status") else ""
        parts.append(f"navigated to {nav.get('to')}{status}")
    for key, label in (("openedTabs", "opened tab"), ("closedTabs", "closed tab")):
        if found.get(key):
            parts.append(f"{label} {', '.join(map(str, found[key]))}")
    for unshared in found.get("openedUnshared") or []:  # the relay: a tab the user did not share
        parts.append(f"opened unshared tab {unshared.get('url') or '(url unknown)'}")
    dialog = found.get("dialog")
    if dialog:
        parts.append(f"{dialog.get('type')} dialog {_quoted(dialog.get('message', ''))}")
    if found.get("download"):
        parts.append(f"download {found['download']}")
    return parts


def _changed(changed: dict) -> str:
    marks = {"added": "+", "removed": "-", "text": "text ", "state": "state "}
    counts = " ".join(f"{mark}{changed[k]}" for k, mark in marks.items() if changed.get(k))
    shown = changed.get("lines") or []
    return f"changed {counts}" + (": " + "; ".join(shown[:3]) if shown else "")


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _batched(item: dict) -> str:
    """One line a batched action: `- click: ok`, `- type: error REF_STALE: ...`."""
    if item.get("ok", True):
        if "effect" in item:
            return f"- {item.get('kind')}: ok; {effect(item['effect'])}"
        return f"- {item.get('kind')}: ok"
    return f"- {item.get('kind')}: error {item.get('code')}: {item.get('error')}"


def _dialog_lines(result: dict, voice: Voice = MODEL) -> list[str]:
    pending = (result.get("dialogs") or {}).get("pending") or []
    lines = [voice.dialog(d) for d in pending]
    if result.get("blockedByDialog"):
        lines.append("the action was blocked by a dialog")
    return lines


def value_text(value: Any) -> str:
    """A value as one reads it: a string as it is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _quoted(text: Any) -> str:
    return json.dumps(str(text), ensure_ascii=False)
