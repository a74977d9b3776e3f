"""Handing a tab to a person (the login, the CAPTCHA, the payment an agent must not do alone):
while it is theirs, every request that would change the page answers 409 HANDOFF_ACTIVE and the
live view passes the person's clicks and keys to it (`person_input`); given back, what the person
changed (URL, title, snapshot lines) is told once, to the next act."""

from __future__ import annotations

import difflib
import logging
import threading
import time

from clawd import errors
from clawd.browser.tab import StateKey, Tab

log = logging.getLogger("clawd.handoff")

# requests that read a handed-off tab (or give it back) without changing its page: every GET,
# and these POSTs. Everything else naming the tab (acts, navigate, storage, close) is refused.
PASSIVE = frozenset(
    {
        "/handoff/done",
        "/screenshot",
        "/pdf",
        "/response/body",
        "/trace/start",
        "/trace/stop",
        "/har/stop",
        "/record/stop",
        "/state/save",
        "/wait/download",
        "/tabs/focus",
    }
)
SNAPSHOT_TIMEOUT_MS = 5000
INPUT_TIMEOUT = 5.0
MAX_TEXT = 1000
# keys the live view passes by name (printable characters come as text): CDP's key, code and
# Windows virtual key code, which Chromium needs to act on them (Enter submits, Tab moves focus)
NAMED_KEYS = {
    "Enter": ("Enter", 13, "\r"),
    "Backspace": ("Backspace", 8, ""),
    "Tab": ("Tab", 9, ""),
    "Escape": ("Escape", 27, ""),
    "Delete": ("Delete", 46, ""),
    "ArrowLeft": ("ArrowLeft", 37, ""),
    "ArrowUp": ("ArrowUp", 38, ""),
    "ArrowRight": ("ArrowRight", 39, ""),
    "ArrowDown": ("ArrowDown", 40, ""),
}


class HandOff:
    """One tab's hand-off: whose it is, why, and what it looked like when handed over."""

    def __init__(self):
        self._lock = threading.Lock()
        self.reason: str | None = None
        self.since = 0.0  # wall clock
        self.before: dict | None = None
        self.report: dict | None = None  # what the person changed, until an act takes it

    def active(self) -> dict | None:
        with self._lock:
            return None if self.reason is None else {"reason": self.reason, "since": self.since}


HANDOFF = StateKey("handoff", lambda tab: HandOff())


def begin(tab: Tab, reason: str) -> dict:
    """The tab becomes the person's; 409 when it is already."""
    before = _look(tab)
    held = tab.state[HANDOFF]
    with held._lock:
        if held.reason is not None:
            raise _active(tab, held.reason)
        held.reason, held.since, held.before, held.report = reason, time.time(), before, None
    log.info("tab %s handed to a person: %s", tab.tab_id, reason)
    return {"reason": reason, "since": held.since}


def end(tab: Tab) -> dict:
    """The tab is the agent's again; what the person changed (kept for the next act too)."""
    held = tab.state[HANDOFF]
    with held._lock:  # one give-back wins; a second one is told there is none
        if held.reason is None:
            raise errors.HandoffNotActive(f"tab {tab.tab_id} is not handed off")
        before, since = held.before, held.since
        held.reason, held.before = None, None
    report = _changes(before, _look(tab), time.time() - since)
    with held._lock:
        held.report = report
    log.info("tab %s given back", tab.tab_id)
    return report


def check(tab: Tab, method: str, path: str) -> None:
    """409 HANDOFF_ACTIVE when a request that changes the page names a handed-off tab."""
    held = tab.state.peek(HANDOFF)
    if held is None or method == "GET" or path in PASSIVE:
        return
    active = held.active()
    if active is not None:
        raise _active(tab, active["reason"])


def take_report(tab: Tab) -> dict | None:
    """What the person changed, once: the first act after the give-back carries it."""
    held = tab.state.peek(HANDOFF)
    if held is None:
        return None
    with held._lock:
        report, held.report = held.report, None
    return report


def held_tab(tabs) -> Tab | None:
    """The first of `tabs` a person holds (the live view shows it, whatever the agent uses)."""
    for tab in tabs:
        held = tab.state.peek(HANDOFF)
        if held is not None and held.active() is not None:
            return tab
    return None


def person_input(tab: Tab, event) -> None:
    """The person's click (x, y: fractions of the live view's image), text or named key, given
    to the tab they hold; only while it is theirs."""
    held = tab.state.peek(HANDOFF)
    if held is None or held.active() is None:
        raise errors.HandoffNotActive(f"tab {tab.tab_id} is not handed to you")
    if not isinstance(event, dict):
        raise errors.InvalidRequest("input must be {type: click|text|key, ...}")
    kind = event.get("type")
    if kind == "click":
        _click(tab, _fraction(event.get("x"), "x"), _fraction(event.get("y"), "y"))
    elif kind == "text" and isinstance(event.get("text"), str) and event["text"]:
        text = event["text"][:MAX_TEXT]
        tab.session.call("Input.insertText", {"text": text}, timeout=INPUT_TIMEOUT)
    elif kind == "key" and event.get("key") in NAMED_KEYS:
        _key(tab, *NAMED_KEYS[event["key"]])
    else:
        raise errors.InvalidRequest(
            f"input type must be click (x, y), text (text) or key ({', '.join(NAMED_KEYS)})"
        )


def _fraction(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise errors.InvalidRequest(f"input.{name} must be a fraction of the view, 0 to 1")
    return float(value)


def _click(tab: Tab, fx: float, fy: float) -> None:
    """A left click where the person clicked: the screencast shows the visual viewport."""
    metrics = tab.session.call("Page.getLayoutMetrics", timeout=INPUT_TIMEOUT)
    view = metrics.get("cssVisualViewport") or metrics.get("visualViewport") or {}
    x, y = fx * view.get("clientWidth", 0), fy * view.get("clientHeight", 0)
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        params = {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}
        if kind == "mouseMoved":
            params = {"type": kind, "x": x, "y": y}
        tab.session.call("Input.dispatchMouseEvent", params, timeout=INPUT_TIMEOUT)


def _key(tab: Tab, key: str, code: int, text: str) -> None:
    down = {"type": "keyDown", "key": key, "code": key, "windowsVirtualKeyCode": code}
    if text:
        down["text"] = text
    tab.session.call("Input.dispatchKeyEvent", down, timeout=INPUT_TIMEOUT)
    up = {"type": "keyUp", "key": key, "code": key, "windowsVirtualKeyCode": code}
    tab.session.call("Input.dispatchKeyEvent", up, timeout=INPUT_TIMEOUT)


def _active(tab: Tab, reason: str) -> errors.HandoffActive:
    return errors.HandoffActive(
        f"tab {tab.tab_id} is handed to a person ({reason}); wait until it is given back "
        "(POST /handoff/done, or the live view's give-back control)"
    )


def _look(tab: Tab) -> dict:
    """The tab's URL, title and snapshot lines (None when the page gives no snapshot now)."""
    from clawd.page.snapshot import build as snapshot  # the snapshot machinery: at first use

    lines = None
    try:
        taken = snapshot.take(
            tab, snapshot.Options(refs=False, max_chars=0, timeout_ms=SNAPSHOT_TIMEOUT_MS)
        )
        lines = taken.get("snapshot", "").splitlines()
        url, title = taken.get("url", tab.url), tab.title
    except errors.ClawdError as exc:
        log.info("no snapshot of %s at hand-off: %s", tab.tab_id, exc.message)
        url, title = tab.url, tab.title
    return {"url": url, "title": title, "lines": lines}


def _changes(before: dict | None, after: dict, seconds: float) -> dict:
    """URL and title before and after, and how many snapshot lines the person's time changed."""
    before = before or {"url": "", "title": "", "lines": None}
    report = {
        "heldSeconds": round(seconds, 1),
        "url": {"before": before["url"], "after": after["url"]},
        "title": {"before": before["title"], "after": after["title"]},
        "navigated": before["url"] != after["url"],
    }
    if before["lines"] is not None and after["lines"] is not None:
        diff = list(difflib.unified_diff(before["lines"], after["lines"], n=0, lineterm=""))[2:]
        body = [line for line in diff if not line.startswith("@@")]
        report["linesAdded"] = sum(1 for line in body if line.startswith("+"))
        report["linesRemoved"] = sum(1 for line in body if line.startswith("-"))
    return report
