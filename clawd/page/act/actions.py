"""POST /act: validating an action (every kind, batches), running it on a tab within its timeout,
letting the page settle, and the response every act answers with (DESIGN.md §8).

Element kinds resolve refs through page/snapshot/refs.py and use real input (page/act/input.py); text entry,
select and fill live in page/act/forms.py, waits and evaluate in page/act/waits.py; what modal state (dialogs, downloads) adds to a response comes
from page/act/dialogs.py and page/act/downloads.py."""
from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from clawd import errors, ref_syntax
from clawd.browser.tab import Tab
from clawd.page.act import dialogs, downloads, forms, input as pinput, keys, settle, waits
from clawd.page.observe import interception
from clawd.page.state import navigation
from clawd.page.act.dialogs import DialogOpened, guarded_call
from clawd.server.validation import as_bool, as_int, as_list, as_number, as_object, as_str

MIN_TIMEOUT_MS, MAX_TIMEOUT_MS = 500, 60000
MAX_BATCH, MAX_DEPTH = 100, 5
E = errors.ActInvalidRequest
_CSS_HINT = re.compile(r"[#.\[\]:>~+*()=\"' ]|^[a-zA-Z]+$")


# -- field readers (every error is ACT_INVALID_REQUEST naming the field) ----------------------------
def _bool(v, f): return as_bool(v, f, error=E)
def _str(v, f): return as_str(v, f, error=E)
def _text(v, f): return as_str(v, f, allow_empty=True, error=E)
def _num(v, f): return as_number(v, f, minimum=0, error=E)
def _delay(v, f): return as_int(v, f, minimum=0, maximum=5000, error=E)
def _time_ms(v, f): return as_int(v, f, minimum=0, maximum=30000, error=E)
def _size(v, f): return as_int(v, f, minimum=1, maximum=20000, error=E)
def _timeout(v, f): return min(MAX_TIMEOUT_MS, max(MIN_TIMEOUT_MS, as_int(v, f, minimum=0, error=E)))


def _ref(v, f):
    ref = as_str(v, f, error=E).strip()
    if not ref_syntax.is_ref(ref) and _CSS_HINT.search(ref):
        raise errors.ActSelectorUnsupported(
            f"{f}: {ref!r} looks like a CSS selector; actions take refs (e12) from GET /snapshot")
    return ref


def _button(v, f):
    if v not in pinput.BUTTONS:
        raise E(f"{f} must be one of left, right, middle; not {v!r}")
    return v


def _modifiers(v, f):
    names = [p.strip() for p in v.split("+") if p.strip()] if isinstance(v, str) else as_list(v, f, error=E)
    for name in names:
        if not isinstance(name, str) or keys.modifier_name(name) is None:
            raise E(f"{f}: unknown modifier {name!r}; use Alt, Control, ControlOrMeta, Meta or Shift")
    return names


def _values(v, f):
    values = [v] if isinstance(v, str) else as_list(v, f, error=E)
    if not values or not all(isinstance(x, str) for x in values):
        raise E(f"{f} must be a non-empty list of strings (option values or labels)")
    return values


def _load_state(v, f):
    if v not in waits.LOAD_STATES:
        raise E(f"{f} must be one of {', '.join(waits.LOAD_STATES)}; not {v!r}")
    return v


def _key(v, f):
    keys.parse_chord(as_str(v, f, error=E))
    return v


FILL_TYPES = {"text", "textbox", "textarea", "searchbox", "password", "email", "number", "tel", "url",
              "search", "contenteditable", "checkbox", "radio", "switch", "select", "combobox", "listbox",
              "date", "time", "datetime-local", "month", "week", "range", "slider", "color"}


def _fields(v, f):
    items = as_list(v, f, error=E)
    if not items:
        raise E(f"{f} must list at least one {{ref, value}}")
    out = []
    for i, item in enumerate(items):
        name = f"{f}[{i}]"
        item = as_object(item, name, error=E)
        unknown = sorted(set(item) - {"ref", "type", "value"})
        if unknown:
            raise E(f"{name}: unknown field {unknown[0]!r}; allowed: ref, type, value")
        if "ref" not in item or "value" not in item:
            raise E(f"{name}.{'ref' if 'ref' not in item else 'value'} is required")
        kind = item.get("type")
        if kind is not None and kind not in FILL_TYPES:
            raise E(f"{name}.type {kind!r} is not one of {', '.join(sorted(FILL_TYPES))}")
        value = item["value"]
        if not isinstance(value, (str, bool, int, float, list)):
            raise E(f"{name}.value must be a string, a boolean or a list of strings")
        out.append({"ref": _ref(item["ref"], f"{name}.ref"), "type": kind, "value": value})
    return out


COMMON = {"kind": _str, "targetId": _str, "timeoutMs": _timeout, "profile": _str}
CLICK = {"button": _button, "modifiers": _modifiers, "doubleClick": _bool, "delayMs": _delay}
KINDS: dict[str, tuple[dict[str, Callable], set[str]]] = {
    # kind: (fields, required)
    "click": ({"ref": _ref, **CLICK}, {"ref"}),
    "clickCoords": ({"x": _num, "y": _num, **CLICK}, {"x", "y"}),
    "type": ({"ref": _ref, "text": _text, "submit": _bool, "slowly": _bool}, {"ref", "text"}),
    "press": ({"key": _key, "ref": _ref, "delayMs": _delay}, {"key"}),
    "hover": ({"ref": _ref}, {"ref"}),
    "scrollIntoView": ({"ref": _ref}, {"ref"}),
    "drag": ({"startRef": _ref, "endRef": _ref}, {"startRef", "endRef"}),
    "select": ({"ref": _ref, "values": _values}, {"ref", "values"}),
    "fill": ({"fields": _fields}, {"fields"}),
    "resize": ({"width": _size, "height": _size}, {"width", "height"}),
    "wait": ({"timeMs": _time_ms, "text": _text, "textGone": _text, "selector": _str, "url": _str,
              "loadState": _load_state, "fn": _str}, set()),
    "evaluate": ({"fn": _str, "ref": _ref}, {"fn"}),
    "close": ({}, set()),
    "batch": ({"actions": lambda v, f: as_list(v, f, error=E), "stopOnError": _bool}, {"actions"}),
}
NO_DIALOG_CHECK = {"close", "batch"}
STATE = "_pageState"    # an action handler's (url, title) read together with its work


@dataclass
class Action:
    kind: str
    args: dict[str, Any]
    children: list["Action"] = field(default_factory=list)


def parse(body: dict, *, evaluate_enabled: bool = True, depth: int = 1, where: str = "") -> Action:
    """The validated action, or the 400/403 that names what is wrong (nothing has run yet)."""
    if not isinstance(body, dict):
        raise E(f"{where or 'action'} must be an object")
    kind = body.get("kind")
    if kind is None or kind == "":
        raise errors.ActKindRequired(f"{where}kind is required: one of {', '.join(KINDS)}")
    if not isinstance(kind, str) or kind not in KINDS:
        raise E(f"{where}kind: unknown kind {kind!r}; one of {', '.join(KINDS)}")
    spec, required = KINDS[kind]
    if "selector" in body and kind != "wait":
        raise errors.ActSelectorUnsupported(f"{where}selector: CSS selectors are not accepted for actions; "
                                            "take a snapshot and pass the element's ref")
    allowed = {**COMMON, **spec}
    args = {}
    for name, value in body.items():
        if name not in allowed:
            raise E(f"{where}{name}: unknown field for kind {kind}; allowed: {', '.join(sorted(allowed))}")
        if value is not None:
            args[name] = allowed[name](value, where + name)
    missing = sorted(required - set(args))
    if missing:
        raise E(f"{where}{missing[0]} is required for kind {kind}")
    _check_kind(kind, args, evaluate_enabled, where)
    action = Action(kind, args)
    if kind == "batch":
        action.children = _parse_batch(args["actions"], evaluate_enabled, depth, where)
    return action


def _check_kind(kind: str, args: dict, evaluate_enabled: bool, where: str) -> None:
    if kind == "evaluate" and not evaluate_enabled:
        raise errors.ActEvaluateDisabled("evaluate is disabled by browser.evaluateEnabled: false")
    if kind == "wait":
        if not set(args) & set(waits.CONDITIONS):
            raise E(f"{where}wait needs at least one of {', '.join(waits.CONDITIONS)}")
        if "fn" in args and not evaluate_enabled:
            raise errors.ActEvaluateDisabled("wait fn is disabled by browser.evaluateEnabled: false")


def _parse_batch(items: list, evaluate_enabled: bool, depth: int, where: str) -> list[Action]:
    if depth >= MAX_DEPTH and any(isinstance(i, dict) and i.get("kind") == "batch" for i in items):
        raise E(f"{where}actions: batches nest at most {MAX_DEPTH} deep")
    if len(items) > MAX_BATCH:
        raise E(f"{where}actions: at most {MAX_BATCH} actions in a batch, not {len(items)}")
    if not items:
        raise E(f"{where}actions must list at least one action")
    return [parse(item, evaluate_enabled=evaluate_enabled, depth=depth + 1, where=f"{where}actions[{i}].")
            for i, item in enumerate(items)]


def check_targets(action: Action, tab: Tab) -> None:
    """403 when a batched action names another tab than the one the request resolved to."""
    key = action.args.get("targetId")
    if key is not None and not tab_matches(tab, key):
        raise errors.ActTargetIdMismatch(f"targetId {key!r} is not the tab this action runs on "
                                         f"({tab.tab_id}); send one request per tab")
    for child in action.children:
        check_targets(child, tab)


def tab_matches(tab: Tab, key: str) -> bool:
    return key in (tab.tab_id, tab.label, tab.target_id) or \
        (len(key) >= 4 and tab.target_id.lower().startswith(key.lower()))


# -- running --------------------------------------------------------------------------------------
class Context:
    """What an action needs besides its arguments: the tab, its browser, the service's settings."""

    def __init__(self, tab: Tab, browser, *, default_timeout_ms: int, resolve_ref: Callable | None = None):
        self.tab = tab
        self.browser = browser
        self.default_timeout_ms = default_timeout_ms
        self._resolve_ref = resolve_ref

    def deadline_for(self, action: Action) -> float:
        timeout = action.args.get("timeoutMs")
        if timeout is None:
            timeout = self.default_timeout_ms
            if action.kind == "wait" and "timeMs" in action.args:
                timeout += action.args["timeMs"]     # a fixed wait longer than the default still runs
        return time.monotonic() + min(MAX_TIMEOUT_MS, max(MIN_TIMEOUT_MS, timeout)) / 1000

    def element(self, ref: str, deadline: float) -> pinput.Element:
        if self._resolve_ref is None:
            from clawd.page.snapshot.refs import resolve_ref
            self._resolve_ref = resolve_ref
        resolved = self._resolve_ref(self.tab, ref)
        return pinput.element_for(self.tab, resolved, deadline)


def run(ctx: Context, action: Action) -> dict:
    if action.kind == "batch":
        return _run_batch(ctx, action)
    return _run_one(ctx, action)


def _run_one(ctx: Context, action: Action) -> dict:
    tab = ctx.tab
    tab.check_usable()
    if action.kind not in NO_DIALOG_CHECK:
        dialogs.check_not_blocked(tab)
    deadline = ctx.deadline_for(action)
    before = _Marks(tab, ctx.browser)
    blocked, extra = False, {}
    try:
        extra = HANDLERS[action.kind](ctx, action.args, deadline) or {}
    except DialogOpened:
        blocked = True
    except errors.CdpTimeout:
        raise errors.ActTimeout(f"{action.kind} did not finish within its timeout") from None
    except errors.CdpError:
        if tab.closed.is_set() or tab.crashed:
            tab.check_usable()
        raise
    if action.kind == "close":
        return {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id, "closed": True, **extra}
    return respond(ctx, before, deadline, extra, blocked=blocked)


class _Marks:
    """Counters taken before an action, so the response reports only what the action caused."""

    def __init__(self, tab: Tab, browser):
        self.started = time.monotonic()
        tracker = settle.tracker_of(tab)
        self.requests, self.windows = tracker.seq, tracker.windows
        self.dialogs = dialogs.state(tab).opened_count
        self.downloads = downloads.mark(browser)
        self.navigations = navigation.navigation_log(tab).requested


def respond(ctx: Context, before: _Marks, deadline: float, extra: dict, *, blocked: bool = False) -> dict:
    """Settle, then the page's state after the action (DESIGN.md §8)."""
    tab = ctx.tab
    state = dialogs.state(tab)
    known = extra.pop(STATE, None)      # (url, title) the action already read
    tracker = settle.tracker_of(tab)
    # A renderer round trip first (reading the state): the network events the action caused
    # come down the same pipe, so once it answered and the event queue is drained, we know
    # whether the action started any requests.
    if known is not None and not state.pending:
        tab.url, tab.title = known
        page = {"url": tab.url, "title": tab.title}
    else:
        page = _page_state(tab, deadline)
    if not blocked and not tab.closed.is_set() and not state.pending:
        tab.session.connection.events.flush(max(0.05, min(1.0, deadline - time.monotonic())))
        if navigation.navigation_log(tab).requested > before.navigations:   # a link, a form submit
            _wait_navigation(tab, before, deadline)
            page = _page_state(tab, deadline)
        if tracker.windows > before.windows:
            settle.wait_for_popups(ctx.browser, tab, before.started, tracker.windows - before.windows, deadline)
        if tracker.seq > before.requests:
            tracker.settle(before.requests, deadline)
            page = _page_state(tab, deadline)
    answer = {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id, **page}
    answer.update(extra)
    opened = [navigation.refresh(t).to_dict() for t in ctx.browser.tabs_opened_since(before.started, opener=tab)]
    if opened:
        answer["openedTabs"] = opened
    pending = state.public_pending()
    answer["dialogs"] = {"pending": pending}
    handled = state.handled_since(before.dialogs)
    if handled:
        answer["dialogs"]["handled"] = [dialogs.public(d) for d in handled]
    if pending and (blocked or state.opened_count > before.dialogs):
        answer["blockedByDialog"] = True
    found = downloads.since(ctx.browser, before.downloads)
    if found:
        answer["downloads"] = found
    refused = interception.blocked_since(tab, before.started)
    if refused:
        answer["navigationBlocked"] = refused
    return answer


def _wait_navigation(tab: Tab, before: _Marks, deadline: float) -> None:
    """The navigation the action asked for, up to its new document's DOMContentLoaded (bounded like
    the settle), so the state reported is the new page's and not the one the action left."""
    log = navigation.navigation_log(tab)
    log.wait_settled(before.navigations, min(deadline, time.monotonic() + settle.SETTLE_LIMIT))


def _page_state(tab: Tab, deadline: float) -> dict:
    if tab.closed.is_set():
        return {"url": tab.url, "title": tab.title, "closed": True}
    if dialogs.state(tab).pending:
        return {"url": tab.url, "title": tab.title}
    try:
        value = guarded_call(tab, tab.session, "Runtime.evaluate",
                             {"expression": "[location.href, document.title]", "returnByValue": True},
                             max(deadline, time.monotonic() + 0.5)).get("result", {}).get("value")
    except (errors.ClawdError, DialogOpened):
        value = None
    if isinstance(value, list) and len(value) == 2:
        tab.url, tab.title = value
    return {"url": tab.url, "title": tab.title}


def _run_batch(ctx: Context, action: Action) -> dict:
    stop = action.args.get("stopOnError", True)
    batch_deadline = time.monotonic() + action.args["timeoutMs"] / 1000 if "timeoutMs" in action.args else None
    results, ok = [], True
    before = _Marks(ctx.tab, ctx.browser)
    for index, child in enumerate(action.children):
        if batch_deadline is not None and time.monotonic() >= batch_deadline:
            results.append(_failure(child, errors.ActTimeout("the batch ran out of time")))
            ok = False
            break
        try:
            results.append({"kind": child.kind, **run(ctx, child)})
        except errors.ClawdError as exc:
            ok = False
            results.append(_failure(child, exc))
            if stop:
                break
        if ctx.tab.closed.is_set():
            break
    if ctx.tab.closed.is_set():
        return {"ok": ok, "targetId": ctx.tab.target_id, "tabId": ctx.tab.tab_id, "closed": True,
                "results": results}
    answer = respond(ctx, before, time.monotonic() + 1.0, {"results": results})
    answer["ok"] = ok and all(r.get("ok", False) for r in results)
    return answer


def _failure(action: Action, exc: errors.ClawdError) -> dict:
    return {"kind": action.kind, "ok": False, "error": exc.message, "code": exc.code, "status": exc.http_status}


# -- the kinds ------------------------------------------------------------------------------------
def _click(ctx: Context, a: dict, deadline: float) -> None:
    element = ctx.element(a["ref"], deadline)
    x, y = pinput.clickable_point(element, deadline)
    _click_at(ctx, a, x, y, deadline)


def _click_coords(ctx: Context, a: dict, deadline: float) -> None:
    _click_at(ctx, a, a["x"], a["y"], deadline)


def _click_at(ctx: Context, a: dict, x: float, y: float, deadline: float) -> None:
    pinput.click_at(ctx.tab, x, y, deadline, button=a.get("button", "left"),
                    modifiers=keys.modifier_mask(a.get("modifiers", [])), double=a.get("doubleClick", False),
                    delay_ms=a.get("delayMs", 0))


def _hover(ctx: Context, a: dict, deadline: float) -> None:
    element = ctx.element(a["ref"], deadline)
    x, y = pinput.clickable_point(element, deadline)
    pinput.mouse_move(ctx.tab, x, y, deadline)


def _scroll_into_view(ctx: Context, a: dict, deadline: float) -> None:
    element = ctx.element(a["ref"], deadline)
    pinput.prepare(element, deadline)
    guarded_call(ctx.tab, element.session, "DOM.scrollIntoViewIfNeeded",
                 {"objectId": element.object_id}, deadline)


def _type(ctx: Context, a: dict, deadline: float) -> None:
    element = ctx.element(a["ref"], deadline)
    forms.enter_text(element, a["text"], deadline, slowly=a.get("slowly", False))
    if a.get("submit"):
        pinput.press_chord(ctx.tab, keys.parse_chord("Enter"), deadline)


def _press(ctx: Context, a: dict, deadline: float) -> None:
    if a.get("ref"):
        element = ctx.element(a["ref"], deadline)
        pinput.prepare(element, deadline)
        element.call("function() { this.focus(); }", deadline=deadline)
    pinput.press_chord(ctx.tab, keys.parse_chord(a["key"]), deadline, delay_ms=a.get("delayMs", 0))


def _drag(ctx: Context, a: dict, deadline: float) -> None:
    start = ctx.element(a["startRef"], deadline)
    sx, sy = pinput.clickable_point(start, deadline)
    end = ctx.element(a["endRef"], deadline)
    ex, ey = pinput.clickable_point(end, deadline, check_covered=False)
    drag_between(ctx.tab, (sx, sy), (ex, ey), deadline)


def drag_between(tab: Tab, start: tuple, end: tuple, deadline: float) -> None:
    """A mouse drag; an HTML5 drag the page starts is intercepted and dropped on the end point."""
    session = tab.session
    intercepted = session.expect("Input.dragIntercepted")
    guarded_call(tab, session, "Input.setInterceptDrags", {"enabled": True}, deadline)
    try:
        (sx, sy), (ex, ey) = start, end
        pinput.mouse_move(tab, sx, sy, deadline)
        pinput.mouse_button(tab, "mousePressed", sx, sy, deadline)
        for step in (0.1, 0.5, 1.0):
            pinput.mouse_move(tab, sx + (ex - sx) * step, sy + (ey - sy) * step, deadline, buttons=1)
        session.connection.events.flush(max(0.05, min(1.0, deadline - time.monotonic())))
        if intercepted.done:
            data = intercepted.params["data"]
            for kind in ("dragEnter", "dragOver", "drop"):
                guarded_call(tab, session, "Input.dispatchDragEvent",
                             {"type": kind, "x": ex, "y": ey, "data": data}, deadline)
        pinput.mouse_button(tab, "mouseReleased", ex, ey, deadline)
    finally:
        intercepted.unsubscribe()
        session.try_call("Input.setInterceptDrags", {"enabled": False}, timeout=2)


def _select(ctx: Context, a: dict, deadline: float) -> dict:
    element = ctx.element(a["ref"], deadline)
    return {"selected": forms.select_options(element, a["values"], deadline)}


def _fill(ctx: Context, a: dict, deadline: float) -> dict:
    forms.fill(a["fields"], lambda ref: ctx.element(ref, deadline), deadline)
    return {"filled": [item["ref"] for item in a["fields"]]}


def _resize(ctx: Context, a: dict, deadline: float) -> dict:
    guarded_call(ctx.tab, ctx.tab.session, "Emulation.setDeviceMetricsOverride",
                 {"width": a["width"], "height": a["height"], "deviceScaleFactor": 0, "mobile": False}, deadline)
    return {"viewport": {"width": a["width"], "height": a["height"]}}


def _wait(ctx: Context, a: dict, deadline: float) -> dict:
    return waits.wait(ctx.tab, a, deadline)


def _evaluate(ctx: Context, a: dict, deadline: float) -> dict:
    if a.get("ref"):
        element = ctx.element(a["ref"], deadline)
        return {"result": waits.evaluate(ctx.tab, a["fn"], deadline, element=element)}
    value, state = waits.evaluate_with_state(ctx.tab, a["fn"], deadline)
    return {"result": value, STATE: state} if state else {"result": value}


def _close(ctx: Context, a: dict, deadline: float) -> dict:
    ctx.browser.close_tab(ctx.tab, timeout=max(0.5, deadline - time.monotonic()))
    return {}


HANDLERS: dict[str, Callable[[Context, dict, float], Any]] = {
    "click": _click, "clickCoords": _click_coords, "type": _type, "press": _press, "hover": _hover,
    "scrollIntoView": _scroll_into_view, "drag": _drag, "select": _select, "fill": _fill,
    "resize": _resize, "wait": _wait, "evaluate": _evaluate, "close": _close,
}
