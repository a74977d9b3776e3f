"""What an action did, as a person would have noticed it: the `effect` of an act
answer. A watch starts in the page as the act starts (in the look-up of its first ref, in an
evaluate's own wrapper, or in front of its first call to the page), is read by the call that
already reads the page's state after the settle, and is folded with what the service saw
(navigation, tabs, dialogs, downloads)."""

from __future__ import annotations

import importlib.resources
import secrets
import threading
import weakref

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.page.snapshot import inject

GLOBAL = 'globalThis[Symbol.for("clawd.effect")]'
MARKS = {"added": "+", "removed": "-", "text": "~", "state": "~"}  # of a changed line
MAX_LINES = 5  # changed lines an effect shows (effects.js shows as many of each world's)
_STATE_READ = f"""function(token) {{
  const watch = {GLOBAL};
  return [location.href, document.title, watch ? watch.read(token) : null];
}}"""
TARGET_WAIT = 0.5  # a value read already sent: its reply is in, or the page is gone

# Roles whose element can have a value or a checked, pressed, expanded or selected state: the
# target of an act on any other (a link, a heading, text) in another frame than the watch's is not
# read before and after (one command less each time)
VALUED = {
    "textbox", "searchbox", "combobox", "listbox", "option", "checkbox", "radio", "switch",
    "slider", "spinbutton", "button", "menuitemcheckbox", "menuitemradio", "tab", "treeitem",
    "gridcell", "row", "generic",
}  # fmt: skip

_SOURCE: str | None = None
_VALUE: str | None = None


def _source() -> str:
    """effects.js without its leading comment: one expression making the watch's functions."""
    global _SOURCE
    if _SOURCE is None:
        text = (importlib.resources.files("clawd.page.act") / "effects.js").read_text("utf-8")
        _SOURCE = text[text.index("(function") :].strip()
    return _SOURCE


def _value_function() -> str:
    """effects.js's valueOf as a function of `this`, for a target the page's watch cannot reach
    (in another frame): one definition of a value for both ways of reading it."""
    global _VALUE
    if _VALUE is None:
        source = _source()
        start = source.index("function valueOf(e) {")
        end = source.index("\n  }\n", start) + len("\n  }")
        _VALUE = f"function() {{ return ({source[start:end]})(this); }}"
    return _VALUE


class Installed:
    """The worlds (execution contexts of a session) that have the watch's script: a new document's
    world has a new context id, so one listed still has it."""

    def __init__(self):
        self._lock = threading.Lock()
        self._contexts: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

    def add(self, session, context: int) -> bool:
        """Whether `context` had the script already; it has from now on."""
        with self._lock:
            known = self._contexts.setdefault(session, set())
            if context in known:
                return True
            if len(known) > 256:
                known.clear()
            known.add(context)
            return False


INSTALLED = Installed()


class Ahead:
    """A tab's watch calls that ride in front of the act's next call to the same session (one
    write, no message of their own)."""

    def __init__(self):
        self.unsent: list[tuple] = []  # (session, method, params, keep(reply))

    def reset(self) -> None:
        self.unsent = []

    def take(self, session) -> list[tuple]:
        mine = [u for u in self.unsent if u[0] is session]
        self.unsent = [u for u in self.unsent if u[0] is not session]
        return mine

    def flush(self) -> None:
        """Every call sent and answered: Chrome runs Input.* in the browser process and Runtime.*
        in the renderer, so input sent behind them could reach the page first (seen: a Tab key
        press moved the focus before the watch began)."""
        while self.unsent:
            session = self.unsent[0][0]
            mine = self.take(session)
            sent = session.send_many([(m, p) for _, m, p, _ in mine])
            for (*_, keep), pending in zip(mine, sent):
                keep(_wait(pending))


AHEAD = StateKey("act.effects.ahead", lambda tab: Ahead())


def riding(tab: Tab, session, calls: list[tuple[str, dict | None]]) -> tuple[list, list]:
    """`calls` with the watch's unsent calls for `session` in front, and what keeps each of their
    replies (guard.py sends them all in one write). Before input, they are sent and answered
    first instead."""
    ahead = tab.state.peek(AHEAD)
    if ahead is None or not ahead.unsent:
        return calls, []
    if calls[0][0].startswith("Input."):
        ahead.flush()
        return calls, []
    mine = ahead.take(session)
    return [(m, p) for _, m, p, _ in mine] + calls, [keep for *_, keep in mine]


def done(tab: Tab) -> None:
    """The act is over: nothing of its watch rides on later calls."""
    ahead = tab.state.peek(AHEAD)
    if ahead is not None:
        ahead.reset()


class Target:
    """An element the act worked on, and its value or state before (a reply, or a Pending); none
    of its own for one the page's watch reads (`in_page`)."""

    def __init__(self, element, *, in_page: bool = False):
        self.ref, self.session, self.object_id = element.ref, element.session, element.object_id
        self.in_page = in_page
        self.before = None
        self.after = None

    def keep_before(self, reply) -> None:
        self.before = reply

    def old(self):
        if self.before is not None and not isinstance(self.before, dict):
            self.before = _wait(self.before)
        return _value(self.before)


class Watch:
    """One act's look at its page: started before the act touches the page, read with the page
    state after it. The page's watch stops at the next act's start (or by itself, effects.js):
    a stop of its own was one more message every act."""

    def __init__(self, tab: Tab, browser, *, deferred: bool = False):
        self.tab = tab
        self.tabs = {t.tab_id for t in _tabs(browser)}
        self.token = secrets.token_hex(4)
        self.seen: dict | None = None  # what the page's watch reported, once read
        self.read = False
        self.targets: list[Target] = []
        self.in_page: set[str] = set()  # refs whose values the page's watch reads
        self.frames: dict = {}  # {session: context} of out-of-process frames with a watch
        self.context: int | None = None  # the world of the page's watch, once started
        self.isolated = True  # that world is clawd's (not the page's own)
        self._ahead = tab.state[AHEAD]
        self._ahead.reset()
        # an act on refs starts its watch in the expression that finds its first ref (prelude())
        # or, for a ref in another frame, in front of the act's first call to the page
        self.started = False
        if not deferred:
            self.start_ahead()

    def _start(self, *, main: bool = False, token: str | None = None) -> tuple[str, dict]:
        """The watch's start in front of the act's first call; the script itself only into a
        world that has not had it (6 KB a message cost 0.5-1 ms of an act)."""
        # clawd's world, where a snapshot's refs live (the page's own when none was made), or the
        # page's own (`main`), asked as the watch starts: in an act on a ref, resolving it has
        # just read Runtime's events
        session, frame = self.tab.session, self.tab.target_id
        self.context = None if main else inject.WORLDS.get(session, frame, 0.05)
        self.isolated = self.context is not None
        if not self.isolated:
            self.context = inject.WORLDS.main(session, frame, 0.05)
        token = self.token if token is None else token
        return "Runtime.evaluate", self._params(self._starting(f"start('{token}')"))

    def in_main_world(self) -> tuple[str, str]:
        """For a function of the page evaluated in its own world (which cannot reach clawd's):
        the expressions that start the watch there and read it, for the function's wrapper to
        evaluate before it and once it settled (waits.evaluate_with_state): no command of their
        own. Its lines have no refs: those live in clawd's world."""
        self.started = True
        _, params = self._start(main=True, token="")
        return params["expression"], f"({GLOBAL} ? {GLOBAL}.read(started) : null)"

    def start_ahead(self, *, main: bool = False) -> None:
        """The watch started in front of the act's next call to the page."""
        self.started = True
        self._ahead.unsent.append((self.tab.session, *self._start(main=main), _ignore))

    def reading(self) -> str:
        """The expression that reads the page's watch (null where there is none)."""
        return f"({GLOBAL} ? {GLOBAL}.read('{self.token}') : null)"

    def took_reading(self, seen) -> None:
        """What in_main_world()'s reading gave, read by the act itself; its token (made in the
        page: a function's wrapper the same from act to act is compiled once) reads it again."""
        self.read, self.seen = True, seen
        if isinstance(seen, dict) and isinstance(seen.get("token"), str):
            self.token = seen["token"]

    def _starting(self, call: str, session=None, context: int | None = None) -> str:
        """`call` of the watch's functions in the page's world (or in `context` of `session`, an
        out-of-process frame's clawd world), the script defined first in a world without it."""
        isolated = self.isolated if session is None else True
        if session is None:
            session, context = self.tab.session, self.context
        if context is None or not INSTALLED.add(session, context):
            made = f"{_source()}({'true' if isolated else 'false'})"
            return f"({GLOBAL} || ({GLOBAL} = {made})).{call}"
        return f"{GLOBAL}.{call}"

    def prelude(self, session, frame_id: str, context: int, ref: str) -> tuple | None:
        """`(function, arguments)` to call in the world of `ref` just before its element is looked
        up there (one command: refs.resolve_ref): the watch's start, or one more target, with the
        ref's value read in the page. None for a ref in another frame of the page's process (read
        by a command of its own, target()). A frame in a process of its own (cross-origin) gets a
        watch of its own, the page's starting in front of the act's next call to it."""
        if session is not self.tab.session:
            return self._framed(session, context, ref)
        if frame_id != self.tab.target_id:
            return None
        if not self.started:
            self.started, self.context, self.isolated = True, context, True
            call = self._starting("start(token, ref)")
        elif context == self.context:
            call = f"{GLOBAL}.target(token, ref)"
        else:
            return None
        self.in_page.add(ref)
        return f"(token, ref) => {call}", (self.token, ref)

    def _framed(self, session, context: int, ref: str) -> tuple | None:
        """prelude() in an out-of-process frame: its own watch, read after the act (read_frames)."""
        if not self.started:
            self.start_ahead()
        known = self.frames.get(session)
        if known is None:
            self.frames[session] = context
            call = self._starting("start(token, ref)", session, context)
        elif known == context:
            call = f"{GLOBAL}.target(token, ref)"
        else:
            return None
        self.in_page.add(ref)
        return f"(token, ref) => {call}", (self.token, ref)

    def read_frames(self) -> None:
        """The out-of-process frames' watches read (sent together: one round trip) and folded
        into the page's reading."""
        frames, self.frames = self.frames, {}
        sent = [
            session.send(
                "Runtime.evaluate",
                {"expression": self.reading(), "returnByValue": True, "contextId": context},
            )
            for session, context in frames.items()
        ]
        for pending in sent:
            seen = _value(_wait(pending))
            if isinstance(seen, dict):
                self.seen = _fold(self.seen or {}, seen)

    def _params(self, expression: str) -> dict:
        params = {"expression": expression, "returnByValue": True}
        if self.context is not None:
            params["contextId"] = self.context
        return params

    def target(self, element, *, replaced: bool = False) -> None:
        """The element the act works on: its value read before the act's next call reaches it,
        in the same write (and the watch started, if it waited for this); nothing to send when
        the page's watch has it (a ref whose element was `replaced` since is not the one it has)."""
        in_page = element.ref in self.in_page and not replaced
        target = Target(element, in_page=in_page)
        self.targets.append(target)
        if in_page:
            return
        if not self.started:
            self.start_ahead()
        if element.role and element.role not in VALUED:
            return  # nothing to compare: one command less
        read = _value_params(element.object_id)
        self._ahead.unsent.append(
            (element.session, "Runtime.callFunctionOn", read, target.keep_before)
        )

    def state_calls(self, session) -> list[tuple[str, dict]]:
        """The page-state read (`[url, title, reading]`) and the value reads of the targets in
        `session` the page's watch does not read, to be sent together: one round trip. The read
        is the same function every act, the token its argument: a source Chrome has seen is not
        compiled again (an act's own token in it cost 0.1-0.3 ms)."""
        reads = [
            ("Runtime.callFunctionOn", _value_params(t.object_id)) for t in self._valued(session)
        ]
        if self.context is None:
            page = self._params(f"[location.href, document.title, {self.reading()}]")
            return [("Runtime.evaluate", page), *reads]
        page = {
            "functionDeclaration": _STATE_READ,
            "executionContextId": self.context,
            "arguments": [{"value": self.token}],
            "returnByValue": True,
        }
        return [("Runtime.callFunctionOn", page), *reads]

    def _valued(self, session) -> list[Target]:
        """The targets in `session` read by commands of their own that have a value to compare
        (not a heading, a button)."""
        return [
            t
            for t in self.targets
            if t.session is session and not t.in_page and t.old() is not None
        ]

    def took(self, replies: list, session) -> list | None:
        """The replies of state_calls(): keeps the watch's reading and the targets' values after;
        the page's `[url, title]`, or None when the read failed (its document went away)."""
        first = replies[0]
        if isinstance(first, Exception) or "exceptionDetails" in first:
            return None
        value = first.get("result", {}).get("value")
        if not isinstance(value, list) or len(value) != 3:
            return None
        self.read, self.seen = True, value[2]
        for target, reply in zip(self._valued(session), replies[1:]):
            target.after = reply
        return value[:2]

    def values(self) -> list[dict]:
        """`{ref, before, after}` of each target whose value or state the act changed."""
        in_page = {ref: (old, new) for ref, old, new in (self.seen or {}).get("values", [])}
        changed = []
        for target in self.targets:
            if target.in_page:
                old, new = in_page.get(target.ref, (None, None))
            else:
                old, new = target.old(), self._after(target)
            if old is not None and new is not None and old != new:
                changed.append({"ref": target.ref, "before": _plain(old), "after": _plain(new)})
        return changed

    def _after(self, target: Target) -> dict | None:
        """The value after the act of a target read by commands of its own."""
        if target.old() is None:
            return None
        if target.after is None:  # a target in another session (an iframe's): asked now
            params = _value_params(target.object_id)
            target.after = _wait(target.session.send("Runtime.callFunctionOn", params))
        return _value(target.after)


def _ignore(reply) -> None:
    pass


def _fold(page: dict, frame: dict) -> dict:
    """An out-of-process frame's reading folded into the page's: counts added, lines and values
    after the page's, the focus inside the frame if it moved there."""
    out = dict(page)
    for key in ("added", "removed", "text", "state"):
        out[key] = page.get(key, 0) + frame.get(key, 0)
    out["lines"] = ((page.get("lines") or []) + (frame.get("lines") or []))[:MAX_LINES]
    out["values"] = (page.get("values") or []) + (frame.get("values") or [])
    if frame.get("focus"):
        out["focus"] = frame["focus"]
    return out


def _value_params(object_id: str) -> dict:
    return {"functionDeclaration": _value_function(), "objectId": object_id, "returnByValue": True}


def _wait(pending):
    try:
        return pending.result(TARGET_WAIT)
    except errors.ClawdError:
        pending.discard()
        return None


def _value(reply) -> dict | None:
    if not isinstance(reply, dict) or "exceptionDetails" in reply:
        return None
    return reply.get("result", {}).get("value")


def _plain(value: dict):
    """{value: 'x'} as 'x', {checked: true} as true; several states as they are."""
    return next(iter(value.values())) if len(value) == 1 else value


def _tabs(browser) -> list:
    try:
        return browser.tabs()
    except (errors.ClawdError, AttributeError):
        return []


def line(item: list) -> str:
    """A watch's line `[kind, role, name, ref]` as a snapshot line with its kind's mark."""
    kind, role, name, ref = item
    text = f'{MARKS.get(kind, "~")} {role}' + (f' "{name}"' if name else "")
    return text + (f" [ref={ref}]" if ref else "")


def effect(watch: Watch | None, answer: dict, *, navigated: dict | None, browser) -> dict:
    """The act's `effect` from its watch and its answer (openedTabs, dialogs, downloads): only
    what happened, or `{none: true}`."""
    out: dict = {}
    if navigated:
        out["navigated"] = navigated
    if answer.get("openedTabs"):
        out["openedTabs"] = [t.get("tabId") for t in answer["openedTabs"]]
    if answer.get("openedUnshared"):  # windows the relay does not share
        out["openedUnshared"] = answer["openedUnshared"]
    if watch is not None:
        closed = sorted(watch.tabs - {t.tab_id for t in _tabs(browser)})
        if closed:
            out["closedTabs"] = closed
    dialogs = answer.get("dialogs") or {}
    shown = (dialogs.get("handled") or []) + (dialogs.get("pending") or [])
    if shown and answer.get("blockedByDialog") or dialogs.get("handled"):
        out["dialog"] = {k: shown[-1].get(k) for k in ("type", "message")}
    if answer.get("downloads"):
        out["download"] = answer["downloads"][0].get("suggestedFilename") or answer["downloads"][
            0
        ].get("url")
    if watch is not None:
        out.update(_seen(watch, cross_document=bool(navigated and navigated.get("document"))))
    if navigated:
        navigated.pop("document", None)
    return out or {"none": True}


def _seen(watch: Watch, *, cross_document: bool) -> dict:
    """What the page's watch saw: focus, values, changed content (none of it after the act left
    the document: that page is gone)."""
    out: dict = {}
    if watch.frames and not cross_document:
        watch.read_frames()
    values = watch.values()
    if values and not cross_document:
        out["value"] = values[0] if len(values) == 1 else values
    seen = watch.seen if not cross_document else None
    if not seen:
        return out
    if seen.get("focus") and not _expected_focus(seen["focus"], watch):
        role, name, ref = seen["focus"]
        out["focus"] = ref or line(["state", role, name, ""])[2:]
    counts = {k: seen.get(k, 0) for k in ("added", "removed", "text", "state")}
    if any(counts.values()):
        out["changed"] = {
            **{k: n for k, n in counts.items() if n},
            "lines": [line(item) for item in seen.get("lines", [])],
        }
    return out


def _expected_focus(focus: list, watch: Watch) -> bool:
    """Focus on what the act clicked or typed into (or on the iframe holding it) is no news."""
    role, _, ref = focus
    targets = {target.ref for target in watch.targets}
    in_frame = any(t[:1] == "f" for t in targets)  # a frame's ref: f1e3
    return ref in targets or (role == "iframe" and in_frame)
