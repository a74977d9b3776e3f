"""What the page printed and threw: per tab, the newest 500 console messages (console API and the
browser's own log entries) and the newest 200 uncaught errors, kept from the moment clawd
attaches and freed with the tab. Network requests live in network.py."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

from clawd import errors
from clawd.browser.tab import RingBuffer, StateKey, Tab
from clawd.cdp.session import Session

MESSAGES_CAPACITY = 500
ERRORS_CAPACITY = 200

LEVELS = {"debug": 0, "log": 1, "info": 1, "warning": 2, "error": 3}
_LEVEL_ALIASES = {"warn": "warning", "verbose": "debug"}
# console API call types (Runtime.consoleAPICalled `type`) that are not their own level
_TYPE_LEVEL = {
    "debug": "debug",
    "warning": "warning",
    "error": "error",
    "assert": "error",
    "info": "info",
}
_FORMAT = re.compile(r"%[sdifoOc%]")


def level_of(entry_type: str) -> str:
    return _TYPE_LEVEL.get(entry_type, "log")


def parse_level(value: str | None) -> int:
    """The numeric minimum level of `?level=`; 400 naming the field when it is not a level."""
    if value is None or value == "":
        return 0
    name = _LEVEL_ALIASES.get(value.strip().lower(), value.strip().lower())
    if name not in LEVELS:
        raise errors.InvalidRequest(
            f"level must be one of debug, log, info, warning, error; not {value!r}"
        )
    return LEVELS[name]


@dataclass
class ConsoleBuffers:
    """One tab's console. Events append on the dispatcher thread while requests read: each
    buffer takes its own lock."""

    messages: RingBuffer = field(default_factory=lambda: RingBuffer(MESSAGES_CAPACITY))
    errors: RingBuffer = field(default_factory=lambda: RingBuffer(ERRORS_CAPACITY))

    def clear(self) -> int:
        """Empty both buffers; how many were freed."""
        self.messages.clear()
        self.errors.clear()
        return 2


CONSOLE = StateKey("console", lambda tab: ConsoleBuffers())


class ConsoleWatch:
    """The tab hook: Runtime and Log events of the tab and its iframes into the tab's buffers."""

    def __init__(self):
        self.buffers_freed = 0
        self._lock = threading.Lock()

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        buffers = tab.state[CONSOLE]
        messages, thrown = buffers.messages, buffers.errors
        session.on(
            "Runtime.consoleAPICalled",
            lambda p: messages.append(console_entry(with_previews(session, p))),
        )
        session.on(
            "Runtime.exceptionThrown",
            lambda p: thrown.append(error_entry(p["exceptionDetails"], p.get("timestamp"))),
        )
        session.on("Log.entryAdded", lambda p: _browser_entry(messages, p["entry"]))
        session.call("Runtime.enable")
        session.call("Log.enable")

    def detach(self, tab: Tab) -> None:
        buffers = tab.state.pop(CONSOLE)
        if buffers is None:
            return
        freed = buffers.clear()
        with self._lock:
            self.buffers_freed += freed

    def describe(self, browser) -> dict:
        tabs = {}
        for tab in browser.tabs():
            buffers = tab.state.peek(CONSOLE)
            if buffers is not None:
                tabs[tab.tab_id] = {
                    "messages": len(buffers.messages),
                    "errors": len(buffers.errors),
                }
        return {"console": {"tabs": tabs, "buffersFreed": self.buffers_freed}}


def _browser_entry(messages: RingBuffer, entry: dict) -> None:
    # the browser, not the page, asks for /favicon.ico: its 404 is noise in the page's console
    if entry.get("source") == "network" and (entry.get("url") or "").split("?", 1)[0].endswith(
        "/favicon.ico"
    ):
        return
    messages.append(log_entry(entry))


# -- reading ------------------------------------------------------------------------------------
def messages(tab: Tab, *, min_level: int = 0, clear: bool = False) -> list[dict]:
    buffers = tab.state.peek(CONSOLE)
    if buffers is None:
        return []
    items = buffers.messages.drain() if clear else buffers.messages.items()
    return [m for m in items if LEVELS[level_of(m["type"])] >= min_level]


def page_errors(tab: Tab, *, clear: bool = False) -> list[dict]:
    buffers = tab.state.peek(CONSOLE)
    if buffers is None:
        return []
    return buffers.errors.drain() if clear else buffers.errors.items()


# -- entries ------------------------------------------------------------------------------------
def console_entry(params: dict) -> dict:
    frames = (params.get("stackTrace") or {}).get("callFrames") or []
    return {
        "type": params.get("type", "log"),
        "text": format_args(params.get("args") or []),
        "timestamp": _ms(params.get("timestamp")),
        "location": _frame_location(frames[0] if frames else None),
    }


def log_entry(entry: dict) -> dict:
    """A message the browser itself logged (failed loads, interventions, violations)."""
    kind = {"verbose": "debug", "info": "info", "warning": "warning", "error": "error"}.get(
        entry.get("level"), "log"
    )
    location = None
    if entry.get("url"):
        location = {
            "url": entry["url"],
            "lineNumber": entry.get("lineNumber"),
            "columnNumber": None,
        }
    return {
        "type": kind,
        "text": entry.get("text", ""),
        "timestamp": _ms(entry.get("timestamp")),
        "location": location,
        "source": entry.get("source"),
    }


def error_entry(details: dict, timestamp: float | None) -> dict:
    exception = details.get("exception") or {}
    name, message = _name_and_message(details, exception)
    return {
        "message": message,
        "name": name,
        "stack": _stack(details, exception),
        "timestamp": _ms(timestamp),
        "location": _error_location(details),
    }


def _name_and_message(details: dict, exception: dict) -> tuple[str, str]:
    if exception.get("subtype") == "error":
        name = exception.get("className") or "Error"
        first = (exception.get("description") or "").split("\n    at ", 1)[0]
        for prefix in (f"{name}: ", "Error: "):
            if first.startswith(prefix):
                return name, first[len(prefix) :]
        return name, "" if first == name else first
    if "value" in exception or "unserializableValue" in exception:
        return "", remote_text(exception)
    if exception:
        return exception.get("className") or "", remote_text(exception)
    return "", details.get("text") or "Uncaught"


def _stack(details: dict, exception: dict) -> str:
    description = exception.get("description") or ""
    if "\n    at " in description:
        return description
    frames = (details.get("stackTrace") or {}).get("callFrames") or []
    return "\n".join(
        f"    at {f.get('functionName') or '<anonymous>'} "
        f"({f.get('url')}:{f.get('lineNumber', 0) + 1}:{f.get('columnNumber', 0) + 1})"
        for f in frames
    )


def _error_location(details: dict) -> dict | None:
    frames = (details.get("stackTrace") or {}).get("callFrames") or []
    if frames:
        return _frame_location(frames[0])
    if details.get("url"):
        return {
            "url": details["url"],
            "lineNumber": details.get("lineNumber"),
            "columnNumber": details.get("columnNumber"),
        }
    return None


def _frame_location(frame: dict | None) -> dict | None:
    if not frame or not frame.get("url"):
        return None
    return {
        "url": frame["url"],
        "lineNumber": frame.get("lineNumber"),
        "columnNumber": frame.get("columnNumber"),
    }


def _ms(timestamp: float | None) -> float | None:
    """CDP Runtime/Log timestamps are already milliseconds since the epoch. Always a float:
    Chrome writes a whole millisecond without a fraction (1795655052878), which JSON reads back
    as an int, and the answer's type must not depend on the clock (suite loop, run 8)."""
    return round(float(timestamp), 3) if isinstance(timestamp, (int, float)) else None


# -- formatting console arguments as the DevTools console would -----------------------------------
def format_args(args: list[dict]) -> str:
    if not args:
        return ""
    first, rest = args[0], list(args[1:])
    if first.get("type") == "string" and rest and "%" in first.get("value", ""):
        text = _FORMAT.sub(lambda m: _substitute(m.group(0), rest), first["value"])
        return " ".join([text, *(remote_text(a) for a in rest)])
    return " ".join(remote_text(a) for a in args)


def _substitute(spec: str, rest: list[dict]) -> str:
    if spec == "%%":
        return "%"
    if not rest:
        return spec
    arg = rest.pop(0)
    if spec == "%c":
        return ""  # CSS styling: nothing to print
    if spec in ("%d", "%i") and isinstance(arg.get("value"), (int, float)):
        return str(int(arg["value"]))
    return remote_text(arg)


PREVIEW_TIMEOUT = 1.0


def with_previews(session: Session, params: dict) -> dict:
    """Objects logged in a fresh renderer before Chromium re-enabled Runtime there (a cross-
    process navigation) come without a preview; ask for one, so the same page always logs the
    same text. Best effort: on any failure the description stays."""
    for arg in params.get("args") or []:
        if (
            arg.get("type") == "object"
            and "preview" not in arg
            and arg.get("objectId")
            and arg.get("subtype") not in ("null", "error", "node", "regexp", "date")
        ):
            try:
                answer = session.call(
                    "Runtime.callFunctionOn",
                    {
                        "objectId": arg["objectId"],
                        "functionDeclaration": "function () { return this; }",
                        "generatePreview": True,
                    },
                    timeout=PREVIEW_TIMEOUT,
                )
            except errors.ClawdError:
                continue
            preview = (answer.get("result") or {}).get("preview")
            if preview:
                arg["preview"] = preview
    return params


def remote_text(obj: dict) -> str:
    """A Runtime.RemoteObject as one line of text."""
    kind = obj.get("type")
    if "unserializableValue" in obj:
        return obj["unserializableValue"]
    if kind == "undefined":
        return "undefined"
    if kind == "string":
        return obj.get("value", "")
    if kind in ("number", "boolean"):
        value = obj.get("value")
        if isinstance(value, bool):
            return "true" if value else "false"
        return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
    if obj.get("subtype") == "null":
        return "null"
    if obj.get("preview") and obj.get("subtype") not in ("error", "node", "regexp", "date"):
        return _preview_text(obj["preview"])
    return obj.get("description") or kind or ""


def _preview_text(preview: dict) -> str:
    props = preview.get("properties") or []
    more = ", …" if preview.get("overflow") else ""
    if preview.get("subtype") == "array":
        return "[" + ", ".join(_preview_value(p) for p in props) + more + "]"
    body = ", ".join(f"{p.get('name')}: {_preview_value(p)}" for p in props)
    prefix = "" if preview.get("description") in (None, "Object") else preview["description"] + " "
    return prefix + "{" + body + more + "}"


def _preview_value(prop: dict) -> str:
    if prop.get("type") == "string":
        return '"' + prop.get("value", "") + '"'
    return prop.get("value", prop.get("type", ""))
