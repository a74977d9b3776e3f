"""Running a validated act request (clawd/acts.py: the kinds; the server reads the body) on a tab
within its timeout, letting the page settle, and the page's state after it (docs/actions.md). What
the server wraps in `{ok, targetId, tabId}` is plain data.

Element kinds resolve refs through page/snapshot/refs.py and use real input (page/act/input.py);
text entry, select, fill and check live in page/act/forms.py, waits and evaluate in
page/act/waits.py; what modal state (dialogs, downloads) adds to an answer comes from
page/act/dialogs.py and page/act/downloads.py."""

from __future__ import annotations

import itertools
import sys
import time
from collections.abc import Callable
from typing import Any

from clawd import acts, errors, keys
from clawd.acts import Action
from clawd.browser.tab import Tab
from clawd.page.act import dialogs, downloads, effects, forms, settle, waits
from clawd.page.act import input as pinput
from clawd.page.act.dialogs import DialogOpened
from clawd.page.act.guard import Guarded
from clawd.page.observe import interception
from clawd.page.state import navigation

NO_DIALOG_CHECK = {"close", "batch"}
# Kinds whose effect is what the service sees without a watch in the page: a closed tab has none
UNWATCHED = {"close"}
STATE = "_pageState"  # an action handler's (url, title) read together with its work
_REQUESTS = itertools.count(1)  # names each request's object group: one's end frees no other's


# -- running --------------------------------------------------------------------------------------
class Context:
    """What an action needs besides its arguments: the tab, its browser, the service's settings."""

    def __init__(
        self,
        tab: Tab,
        browser,
        *,
        default_timeout_ms: int,
        resolve_ref: Callable | None = None,
        effects: bool = True,
    ):
        self.tab = tab
        self.browser = browser
        self.default_timeout_ms = default_timeout_ms
        self._resolve_ref = resolve_ref
        self.effects = effects  # answer each act's `effect` (effects.py)
        self.watch: effects.Watch | None = None  # the running act's, while it runs
        self.holding: set = set()  # sessions where the running act holds elements
        self.group = f"clawd.act.{next(_REQUESTS)}"  # their object group

    def release(self) -> None:
        """The elements the act held let go (after its last call to them)."""
        for session in self.holding:
            session.send_and_forget("Runtime.releaseObjectGroup", {"objectGroup": self.group})
        self.holding = set()

    def deadline_for(self, action: Action) -> float:
        timeout = action.args.get("timeoutMs")
        if timeout is None:
            timeout = self.default_timeout_ms
            if action.kind == "wait" and "timeMs" in action.args:
                timeout += action.args["timeMs"]  # a fixed wait longer than the default still runs
        timeout = min(acts.MAX_TIMEOUT_MS, max(acts.MIN_TIMEOUT_MS, timeout))
        return time.monotonic() + timeout / 1000

    def element(self, ref: str, page: Guarded) -> pinput.Element:
        """The element `ref` names, reached through the act's guard `page`."""
        if self._resolve_ref is None:
            from clawd.page.snapshot.refs import resolve_ref

            self._resolve_ref = resolve_ref
        watch = self.watch
        resolved = self._resolve_ref(
            self.tab, ref, before=watch.prelude if watch else None, group=self.group
        )
        self.holding.add(resolved.session)
        element = pinput.element_for(page, resolved, self.group)
        if watch is not None:
            watch.target(element, replaced=resolved.replaced)
        return element


def run(ctx: Context, action: Action) -> dict:
    """What the action did and the page's state after it. A batch's `results` hold one entry
    per action run, in order: its data, or `{kind, error, code, status}` for one that failed."""
    try:
        if action.kind == "batch":
            return _run_batch(ctx, action)
        return _run_one(ctx, action)
    finally:
        ctx.release()


def _run_one(ctx: Context, action: Action) -> dict:
    tab = ctx.tab
    tab.check_usable()
    if action.kind not in NO_DIALOG_CHECK:
        dialogs.check_not_blocked(tab)
    page = Guarded.page(tab, ctx.deadline_for(action))  # the act's one guard, handed down
    watch = ctx.effects and action.kind not in UNWATCHED
    before = Marks(tab, ctx.browser, watch=watch, refs=_refs(action))
    ctx.watch = before.watch
    blocked, extra = False, {}
    try:
        extra = HANDLERS[action.kind](ctx, action.args, page) or {}
    except DialogOpened:
        blocked = True
    except errors.CdpTimeout:
        raise errors.ActTimeout(f"{action.kind} did not finish within its timeout") from None
    except errors.CdpError as exc:
        if tab.closed.is_set() or tab.crashed:
            tab.check_usable()
        if exc.document_gone:
            raise errors.TabLoading(
                f"the tab navigated while {action.kind} ran: its document went away before "
                "Chrome answered (what it did may or may not have taken effect); wait for the "
                "new page (kind wait, url or loadState) and take a new snapshot"
            ) from None
        raise
    finally:
        ctx.watch = None
        effects.done(tab)
    if action.kind == "close":
        closed = {"effect": {"closedTabs": [tab.tab_id]}} if ctx.effects else {}
        return {"closed": True, **extra, **closed}
    return respond(ctx, before, page.deadline, extra, blocked=blocked)


class Marks:
    """Counters taken before an action, so the response reports only what the action caused."""

    def __init__(self, tab: Tab, browser, *, watch: bool = False, refs: bool = False):
        self.started = time.monotonic()
        tracker = settle.tracker_of(tab)
        self.requests, self.windows = tracker.seq, tracker.windows
        self.dialogs = dialogs.state(tab).opened_count
        self.downloads = downloads.mark(browser)
        log = navigation.navigation_log(tab)
        self.navigations, self.documents = log.requested, log.committed
        self.url = tab.url
        # an act on refs starts its watch in the look-up of its first ref, an evaluate in its
        # function's wrapper (effects.py)
        self.watch = effects.Watch(tab, browser, deferred=refs) if watch else None


def _refs(action: Action) -> bool:
    """Whether the act starts its watch itself: it resolves a ref before it touches the page, or
    evaluates a function of the page (evaluate())."""
    return action.kind == "evaluate" or any(
        action.args.get(name) for name in ("ref", "startRef", "fields")
    )


def respond(
    ctx: Context, before: Marks, deadline: float, extra: dict, *, blocked: bool = False
) -> dict:
    """Settle, then the page's state after the action (docs/actions.md), `extra` after url and
    title."""
    known = extra.pop(STATE, None)  # (url, title) the action already read
    page = _settled(ctx, before, deadline, known, blocked)
    answer = {**page, **extra, **_aftermath(ctx, before, blocked)}
    if ctx.effects:
        answer["effect"] = _effect(ctx, before, answer, deadline)
    return answer


def _effect(ctx: Context, before: Marks, answer: dict, deadline: float) -> dict:
    """The act's effect (effects.py): its watch read here if the page-state read did not."""
    watch, tab = before.watch, ctx.tab
    if watch is not None and not watch.read and _readable(tab):
        _page_state(tab, deadline, watch)  # an act that read the state itself (evaluate)
    navigated = _navigated(tab, before, answer)
    return effects.effect(watch, answer, navigated=navigated, browser=ctx.browser)


def _readable(tab: Tab) -> bool:
    return not (tab.closed.is_set() or dialogs.state(tab).pending)


def _navigated(tab: Tab, before: Marks, answer: dict) -> dict | None:
    """{from, to, status} when the act took the tab to another URL or document; `document`
    (dropped from the answer) says the page the act started on is gone."""
    log = navigation.navigation_log(tab)
    requested = log.requested > before.navigations
    url = answer.get("url") or tab.url
    if url == before.url and (not requested or log.committed == before.documents):
        return None  # nothing asked, or what was asked became no document (a download, a 204)
    found = {"from": before.url, "to": url}
    status = settle.tracker_of(tab).document_status(before.requests)
    if status is not None:
        found["status"] = status
    watch = before.watch  # its page gone: another document
    found["document"] = status is not None or (watch is not None and watch.seen is None)
    return found


def _settled(ctx: Context, before: Marks, deadline: float, known, blocked: bool) -> dict:
    """The page's url and title once what the action started (a navigation, popups, requests)
    has settled."""
    tab, state = ctx.tab, dialogs.state(ctx.tab)
    tracker = settle.tracker_of(tab)
    # A renderer round trip first (reading the state): the network events the action caused
    # come down the same pipe, so once it answered and the event queue is drained, we know
    # whether the action started any requests.
    watch = before.watch
    if known is not None and not state.pending:
        tab.url, tab.title = known
        page = {"url": tab.url, "title": tab.title}
    else:
        page = _page_state(tab, deadline, watch)
    if blocked or tab.closed.is_set() or state.pending:  # read again: reading the page
        return page  # may have met a dialog
    tab.session.connection.events.flush(max(0.05, min(1.0, deadline - time.monotonic())))
    if navigation.navigation_log(tab).requested > before.navigations:  # a link, a form submit
        _wait_navigation(tab, before, deadline)
        page = _page_state(tab, deadline, watch)
    if tracker.windows > before.windows:
        settle.wait_for_popups(
            ctx.browser, tab, before.started, tracker.windows - before.windows, deadline
        )
    if tracker.seq > before.requests:
        tracker.settle(before.requests, deadline)
        page = _page_state(tab, deadline, watch)
    if watch is not None and (watch.seen or {}).get("download"):
        end = min(deadline, time.monotonic() + settle.SETTLE_LIMIT)
        downloads.wait_begun(ctx.browser, before.downloads, end)
    return page


def _aftermath(ctx: Context, before: Marks, blocked: bool) -> dict:
    """What the action left that needs attention: opened tabs, dialogs, downloads, refusals."""
    tab, state, answer = ctx.tab, dialogs.state(ctx.tab), {}
    opened = ctx.browser.tabs_opened_since(before.started, opener=tab)
    if opened:
        answer["openedTabs"] = [t.to_dict() for t in navigation.refresh_all(opened)]
    unshared = ctx.browser.unshared_opened_since(before.started, tab)  # the relay's
    if unshared:
        answer["openedUnshared"] = unshared
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


def _wait_navigation(tab: Tab, before: Marks, deadline: float) -> None:
    """The navigation the action asked for, up to its new document's DOMContentLoaded (bounded like
    the settle), so the state reported is the new page's and not the one the action left."""
    log = navigation.navigation_log(tab)
    log.wait_settled(before.navigations, min(deadline, time.monotonic() + settle.SETTLE_LIMIT))


def _page_state(tab: Tab, deadline: float, watch: effects.Watch | None = None) -> dict:
    """The tab's url and title read from the page; with a watch, its reading and its targets'
    values in the same round trip (effects.py)."""
    if tab.closed.is_set():
        return {"url": tab.url, "title": tab.title, "closed": True}
    if dialogs.state(tab).pending:
        return {"url": tab.url, "title": tab.title}
    value = None
    try:
        page = Guarded.page(tab, max(deadline, time.monotonic() + 0.5))
        if watch is not None:
            replies = page.calls(watch.state_calls(tab.session), errors_as_values=True)
            value = watch.took(replies, tab.session)
        if value is None:  # no watch, or its document went away: the state alone
            value = _evaluate(page, "[location.href, document.title]")
    except (errors.ClawdError, DialogOpened):
        value = None
    if isinstance(value, list) and len(value) == 2:
        tab.url, tab.title = value
    return {"url": tab.url, "title": tab.title}


def _evaluate(page: Guarded, expression: str):
    reply = page.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return reply.get("result", {}).get("value")


def _run_batch(ctx: Context, action: Action) -> dict:
    stop = action.args.get("stopOnError", True)
    batch_deadline = (
        time.monotonic() + action.args["timeoutMs"] / 1000 if "timeoutMs" in action.args else None
    )
    results = []
    before = Marks(ctx.tab, ctx.browser)
    for child in action.children:
        if batch_deadline is not None and time.monotonic() >= batch_deadline:
            results.append(_failure(child, errors.ActTimeout("the batch ran out of time")))
            break
        try:
            results.append({"kind": child.kind, **run(ctx, child)})
        except errors.ClawdError as exc:
            results.append(_failure(child, exc))
            if stop:
                break
        if ctx.tab.closed.is_set():
            break
    if ctx.tab.closed.is_set():
        return {"closed": True, "results": results}
    return respond(ctx, before, time.monotonic() + 1.0, {"results": results})


def _failure(action: Action, exc: errors.ClawdError) -> dict:
    return {"kind": action.kind, "error": exc.message, "code": exc.code, "status": exc.http_status}


# -- the kinds ------------------------------------------------------------------------------------
# A kind's handler is (ctx, its arguments, the act's guarded page session): every page call it
# makes goes through that one guard, moved onto an element's session by the element itself.
def click(ctx: Context, a: dict, page: Guarded) -> None:
    element = ctx.element(a["ref"], page)
    x, y = pinput.clickable_point(element)
    _click_at(page, a, x, y)


def click_coords(ctx: Context, a: dict, page: Guarded) -> None:
    _click_at(page, a, a["x"], a["y"])


def _click_at(page: Guarded, a: dict, x: float, y: float) -> None:
    pinput.click_at(
        page,
        x,
        y,
        button=a.get("button", "left"),
        modifiers=keys.modifier_mask(a.get("modifiers", [])),
        double=a.get("doubleClick", False),
        delay_ms=a.get("delayMs", 0),
    )


def hover(ctx: Context, a: dict, page: Guarded) -> None:
    element = ctx.element(a["ref"], page)
    x, y = pinput.clickable_point(element, enabled=False)  # a disabled one's tooltip
    pinput.mouse_move(page, x, y)


def scroll_into_view(ctx: Context, a: dict, page: Guarded) -> None:
    """Into view of every box that clips it, and of the tab; a disabled element too (to read it)."""
    element = ctx.element(a["ref"], page)
    pinput.prepare(element, enabled=False)


def type_text(ctx: Context, a: dict, page: Guarded) -> None:
    element = ctx.element(a["ref"], page)
    forms.enter_text(element, a["text"], slowly=a.get("slowly", False))
    if a.get("submit"):
        pinput.press_chord(page, keys.parse_chord("Enter"))


def press(ctx: Context, a: dict, page: Guarded) -> None:
    if a.get("ref"):
        element = ctx.element(a["ref"], page)
        pinput.prepare(element)
        element.call("function() { this.focus(); }")
    pinput.press_chord(page, keys.parse_chord(a["key"]), delay_ms=a.get("delayMs", 0))


def drag(ctx: Context, a: dict, page: Guarded) -> None:
    start = ctx.element(a["startRef"], page)
    sx, sy = pinput.clickable_point(start, enabled=False)
    end = ctx.element(a["endRef"], page)
    ex, ey = pinput.clickable_point(end, check_covered=False, enabled=False)
    drag_between(page, (sx, sy), (ex, ey))


def drag_between(page: Guarded, start: tuple, end: tuple) -> None:
    """A mouse drag; an HTML5 drag the page starts is intercepted and dropped on the end point."""
    session = page.session
    intercepted = session.expect("Input.dragIntercepted")
    page.call("Input.setInterceptDrags", {"enabled": True})
    try:
        (sx, sy), (ex, ey) = start, end
        pinput.mouse_move(page, sx, sy)
        pinput.mouse_button(page, "mousePressed", sx, sy)
        for step in (0.1, 0.5, 1.0):
            pinput.mouse_move(page, sx + (ex - sx) * step, sy + (ey - sy) * step, buttons=1)
        session.connection.events.flush(max(0.05, min(1.0, page.deadline - time.monotonic())))
        if intercepted.done:
            data = intercepted.params["data"]
            for kind in ("dragEnter", "dragOver", "drop"):
                page.call("Input.dispatchDragEvent", {"type": kind, "x": ex, "y": ey, "data": data})
        pinput.mouse_button(page, "mouseReleased", ex, ey)
    finally:
        intercepted.unsubscribe()
        session.try_call("Input.setInterceptDrags", {"enabled": False}, timeout=2)


def select(ctx: Context, a: dict, page: Guarded) -> dict:
    element = ctx.element(a["ref"], page)
    return {"selected": forms.select_options(element, a["values"])}


def fill(ctx: Context, a: dict, page: Guarded) -> dict:
    forms.fill(a["fields"], lambda ref: ctx.element(ref, page))
    return {"filled": [item["ref"] for item in a["fields"]]}


def resize(ctx: Context, a: dict, page: Guarded) -> dict:
    page.call(
        "Emulation.setDeviceMetricsOverride",
        {"width": a["width"], "height": a["height"], "deviceScaleFactor": 0, "mobile": False},
    )
    return {"viewport": {"width": a["width"], "height": a["height"]}}


def wait(ctx: Context, a: dict, page: Guarded) -> dict:
    return waits.wait(page, a)


def evaluate(ctx: Context, a: dict, page: Guarded) -> dict:
    if a.get("ref"):
        element = ctx.element(a["ref"], page)
        return {"result": waits.evaluate(page, a["fn"], element=element)}
    watch = ctx.watch  # in the page's own world, where the function runs: started and read there
    if watch is None:
        value, state, _ = waits.evaluate_with_state(page, a["fn"])
    elif waits.is_function(a["fn"]):  # by the function's own wrapper, around it
        starting, reading = watch.in_main_world()
        value, state, seen = waits.evaluate_with_state(
            page, a["fn"], starting=starting, reading=reading
        )
        watch.took_reading(seen)
    else:  # an expression: started in front of it, read with the page's state after
        watch.start_ahead(main=True)
        value, state, _ = waits.evaluate_with_state(page, a["fn"])
    return {"result": value, STATE: state} if state else {"result": value}


def close(ctx: Context, a: dict, page: Guarded) -> dict:
    ctx.browser.close_tab(ctx.tab, timeout=max(0.5, page.deadline - time.monotonic()))
    return {}


def _page_function(kind: acts.Kind) -> Callable[[Context, dict, Guarded], Any]:
    """The function a kind names in the act table ("forms.check"): a module of page/act/."""
    module, _, name = kind.runs.partition(".")
    return getattr(_MODULES[module], name)


_MODULES = {"actions": sys.modules[__name__], "forms": forms, "waits": waits}
HANDLERS: dict[str, Callable[[Context, dict, Guarded], Any]] = {
    kind.name: _page_function(kind) for kind in acts.KINDS.values() if kind.runs
}
