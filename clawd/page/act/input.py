"""Real input on a page: an element's clickable point in the tab's viewport (when it is
actionable, actionability.py; for an element in an iframe, shifted to where the frame sits and
checked against the tab's own document), and mouse and keyboard events over
Input.dispatchMouseEvent/dispatchKeyEvent/insertText. Every page call goes through
dialogs.guarded_call with the action's deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.act import actionability, keys
from clawd.page.act.dialogs import guarded_call, guarded_calls

BUTTONS = {"left": 1, "right": 2, "middle": 4}


@dataclass
class Element:
    """An element resolved from a ref, ready to be acted on."""

    tab: Tab
    session: Session
    backend_node_id: int
    object_id: str
    ref: str = ""
    role: str = ""
    name: str = ""

    def call(self, function: str, *args, deadline: float, by_value: bool = True):
        """Run `function` with the element as `this`; returns the value (or the remote object)."""
        params = {
            "functionDeclaration": function,
            "objectId": self.object_id,
            "returnByValue": by_value,
            "arguments": [_argument(a) for a in args],
            "awaitPromise": True,
        }
        answer = guarded_call(self.tab, self.session, "Runtime.callFunctionOn", params, deadline)
        if "exceptionDetails" in answer:
            raise errors.ActInvalidRequest(
                f"the page refused the action on {self.describe()}: "
                f"{exception_message(answer['exceptionDetails'])}"
            )
        result = answer.get("result", {})
        return result.get("value") if by_value else result

    def describe(self) -> str:
        label = f"{self.role} {self.name!r}" if self.name else (self.role or "element")
        return f"{label} [{self.ref}]" if self.ref else label


def _argument(value) -> dict:
    if isinstance(value, Element):
        return {"objectId": value.object_id}
    if isinstance(value, dict) and "objectId" in value:
        return value
    return {"value": value}


def exception_message(details: dict) -> str:
    exc = details.get("exception") or {}
    text = exc.get("description") or exc.get("value") or details.get("text") or "exception"
    return str(text).split("\n    at ", 1)[0]


def element_for(tab: Tab, resolved, deadline: float) -> Element:
    """An Element from a refs.ResolvedRef (session, backend_node_id, role, name, ref)."""
    try:
        answer = guarded_call(
            tab,
            resolved.session,
            "DOM.resolveNode",
            {"backendNodeId": resolved.backend_node_id},
            deadline,
        )
    except errors.CdpError:
        raise errors.ActElementDetached(
            f"{resolved.role} {resolved.name!r} [{resolved.ref}] is no longer in "
            "the page; take a new snapshot"
        ) from None
    return Element(
        tab,
        resolved.session,
        resolved.backend_node_id,
        answer["object"]["objectId"],
        ref=getattr(resolved, "ref", ""),
        role=getattr(resolved, "role", ""),
        name=getattr(resolved, "name", ""),
    )


# -- where to click -------------------------------------------------------------------------------
def prepare(
    element: Element, deadline: float, *, scroll: bool = True, enabled: bool = True
) -> dict:
    """Wait until the element is attached and visible (and enabled, with `enabled`), scrolled
    into view of every box that clips it and, in an iframe, of the tab (actionability.py)."""

    def into_tab_view(answer: dict) -> dict:
        if answer.get("framed"):
            _scroll_frames_into_view(element, deadline)
        return answer

    return actionability.wait_actionable(
        element,
        deadline,
        hit=False,
        enabled=enabled,
        scroll=scroll,
        point=False,
        place=into_tab_view if scroll else None,
    )


def clickable_point(
    element: Element, deadline: float, *, check_covered: bool = True, enabled: bool = True
) -> tuple[float, float]:
    """Where a person would click the element, in the tab's viewport, once it is actionable:
    visible, still, in view, (enabled,) and the top element there (waited for: actionability.py).
    The common case, an element of the page itself, costs one round trip."""
    answer = actionability.wait_actionable(
        element,
        deadline,
        hit=check_covered,
        enabled=enabled,
        place=lambda answer: _in_tab(element, answer, deadline, check_covered, enabled),
    )
    return answer["x"], answer["y"]


def _in_tab(
    element: Element, answer: dict, deadline: float, check_covered: bool, enabled: bool
) -> dict:
    """The point of the element's frame as a point of the tab's viewport: the page's own as it
    is; an iframe's once its frames are scrolled into the tab's view, shifted by where the frame
    sits, and only where no box of the tab's document lies over the frame."""
    if not answer.get("framed"):
        return answer
    tab = element.tab
    _scroll_frames_into_view(element, deadline)
    if element.session is not tab.session:
        _await_frames(tab, deadline)  # input is routed by the last frame the tab drew
    answer = actionability.check(
        element, deadline, hit=check_covered, enabled=enabled, scroll=False
    )  # the point again: scrolling the frames may have moved it in its own frame too
    if answer["state"] != "ok":
        return answer
    quads = _content_quads(element, deadline)
    ox, oy = frame_offset(tab, element.session, deadline)
    # quads are in the viewport of the element's process's top frame; answer's in its own frame
    dx = min(min(q[0::2]) for q in quads) - answer["left"] + ox
    dy = min(min(q[1::2]) for q in quads) - answer["top"] + oy
    x, y = answer["x"] + dx, answer["y"] + dy
    left, top, right, bottom = _visible_area(element, ox, oy, deadline)
    if not (left <= x < right and top <= y < bottom):
        return {"state": "clipped", "by": None}
    placed = {**answer, "x": x, "y": y, "frameX": answer["x"], "frameY": answer["y"]}
    cover = _tab_cover(tab, x, y, deadline) if check_covered else None
    if cover is not None:
        return {**placed, "state": "covered", "coverNode": cover, "coverSession": tab.session}
    return placed


def _tab_cover(tab: Tab, x: float, y: float, deadline: float) -> int | None:
    """The backend id of a node of the tab's own document at (x, y), where an iframe's element
    is to be clicked: None when the point reaches into a frame (a node of a same-process frame's
    document, or an iframe element, behind which an out-of-process frame draws)."""
    params = {
        "x": int(x),
        "y": int(y),
        "includeUserAgentShadowDOM": False,
        "ignorePointerEventsNone": True,
    }
    try:
        hit = guarded_call(tab, tab.session, "DOM.getNodeForLocation", params, deadline)
        if hit.get("frameId") not in (None, tab.target_id):
            return None
        node = guarded_call(
            tab, tab.session, "DOM.describeNode", {"backendNodeId": hit["backendNodeId"]}, deadline
        )["node"]
    except errors.CdpError:
        return None  # nothing there to cover it (the point is on the frame's own edge)
    return None if node.get("nodeName") in ("IFRAME", "FRAME") else hit["backendNodeId"]


def _content_quads(element: Element, deadline: float) -> list:
    try:
        quads = guarded_call(
            element.tab,
            element.session,
            "DOM.getContentQuads",
            {"objectId": element.object_id},
            deadline,
        ).get("quads")
    except errors.CdpError:
        quads = None
    if not quads:
        raise errors.ActElementHidden(f"{element.describe()} has no box on the page")
    return quads


def _scroll_frames_into_view(element: Element, deadline: float) -> None:
    """An element in view of its own iframe can still be off the tab's viewport: the iframe below
    the fold, or scrolled away inside a box of its parent. Chrome scrolls every ancestor, across
    processes, and only those that need it (a no-op when the element is already in view)."""
    try:
        guarded_call(
            element.tab,
            element.session,
            "DOM.scrollIntoViewIfNeeded",
            {"objectId": element.object_id},
            deadline,
        )
    except errors.CdpError:
        raise errors.ActElementHidden(f"{element.describe()} has no box on the page") from None


# Three animation frames of the page: two were enough in every trial, under load; one was not.
_FRAMES = """new Promise(done => {
  let left = 3;
  const timer = setTimeout(done, 250);   // a page that draws no frames (hidden) is not waited for
  const next = () => {
    if (--left <= 0) { clearTimeout(timer); done(); } else requestAnimationFrame(next);
  };
  requestAnimationFrame(next);
})"""


def _await_frames(tab: Tab, deadline: float) -> None:
    """Chrome routes a mouse event into an out-of-process iframe by where the last frame it drew
    shows that iframe: after a scroll, an event sent at once goes to the old place (a hover is
    lost). Let the page draw its new position first."""
    guarded_call(
        tab,
        tab.session,
        "Runtime.evaluate",
        {"expression": _FRAMES, "awaitPromise": True, "returnByValue": True},
        deadline,
    )


def _visible_area(
    element: Element, ox: float, oy: float, deadline: float
) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the tab's viewport an iframe's element can be clicked in."""
    tab = element.tab
    right, bottom = _layout_size(tab, tab.session, deadline)
    if element.session is tab.session:
        return 0.0, 0.0, right, bottom
    width, height = _layout_size(tab, element.session, deadline)  # the out-of-process frame's
    return max(ox, 0.0), max(oy, 0.0), min(ox + width, right), min(oy + height, bottom)


def _layout_size(tab: Tab, session: Session, deadline: float) -> tuple[float, float]:
    """Width and height of the viewport of `session`'s top frame (scrollbars excluded)."""
    metrics = guarded_call(tab, session, "Page.getLayoutMetrics", {}, deadline)
    layout = metrics.get("cssLayoutViewport") or metrics.get("layoutViewport") or {}
    return layout.get("clientWidth") or 1e9, layout.get("clientHeight") or 1e9


def frame_offset(tab: Tab, session: Session, deadline: float) -> tuple[float, float]:
    """Where an out-of-process iframe's viewport sits in the tab's viewport (0, 0 for the page)."""
    if session is tab.session:
        return 0.0, 0.0
    for parent in [tab.session, *tab.child_sessions().values()]:
        if parent is session:
            continue
        try:
            owner = guarded_call(
                tab, parent, "DOM.getFrameOwner", {"frameId": session.target_id}, deadline
            )
            box = guarded_call(
                tab, parent, "DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]}, deadline
            )["model"]
        except errors.CdpError:
            continue
        px, py = frame_offset(tab, parent, deadline)
        return box["content"][0] + px, box["content"][1] + py
    return 0.0, 0.0


# -- mouse ----------------------------------------------------------------------------------------
def mouse_move(
    tab: Tab, x: float, y: float, deadline: float, *, modifiers: int = 0, buttons: int = 0
) -> None:
    guarded_call(tab, tab.session, *_move(x, y, modifiers, buttons), deadline)


def _move(x: float, y: float, modifiers: int = 0, buttons: int = 0) -> tuple[str, dict]:
    return (
        "Input.dispatchMouseEvent",
        {
            "type": "mouseMoved",
            "x": x,
            "y": y,
            "modifiers": modifiers,
            "buttons": buttons,
            "button": "left" if buttons else "none",
        },
    )


def mouse_button(
    tab: Tab,
    kind: str,
    x: float,
    y: float,
    deadline: float,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
) -> None:
    guarded_call(tab, tab.session, *_button(kind, x, y, button, click_count, modifiers), deadline)


def _button(
    kind: str, x: float, y: float, button: str, click_count: int, modifiers: int
) -> tuple[str, dict]:
    return (
        "Input.dispatchMouseEvent",
        {
            "type": kind,
            "x": x,
            "y": y,
            "button": button,
            "clickCount": click_count,
            "modifiers": modifiers,
            "buttons": BUTTONS[button] if kind == "mousePressed" else 0,
        },
    )


def click_at(
    tab: Tab,
    x: float,
    y: float,
    deadline: float,
    *,
    button: str = "left",
    modifiers: int = 0,
    double: bool = False,
    delay_ms: int = 0,
) -> None:
    """Move, press, release (twice for a double click), sent together: Chrome dispatches one
    session's input in order, and the renderer runs a queued move before the press that follows
    it. Waiting for the move alone cost a frame (16.7 ms): a mouseMoved is answered at the next
    animation frame; pipelined, the click costs one round trip. With `delay_ms`, the release
    goes out that long after the press was answered."""
    chain = [_move(x, y, modifiers)]
    for count in (1, 2) if double else (1,):
        chain.append(_button("mousePressed", x, y, button, count, modifiers))
        if delay_ms:
            guarded_calls(tab, tab.session, chain, deadline)
            _sleep(delay_ms / 1000, deadline)
            chain = []
        chain.append(_button("mouseReleased", x, y, button, count, modifiers))
    guarded_calls(tab, tab.session, chain, deadline)


def _sleep(seconds: float, deadline: float) -> None:
    left = deadline - time.monotonic()
    if seconds > left:
        raise errors.ActTimeout("the action's delay is longer than its timeout")
    time.sleep(seconds)


# -- keyboard -------------------------------------------------------------------------------------
def press_chord(tab: Tab, chord: keys.Chord, deadline: float, *, delay_ms: int = 0) -> None:
    """Modifiers down, the key down and up (`delay_ms` apart, as Playwright's press delay),
    modifiers up."""
    if (
        delay_ms and time.monotonic() + delay_ms / 1000 > deadline
    ):  # before any key goes down: none stays held
        raise errors.ActTimeout(
            f"delayMs={delay_ms} is longer than the time left of the action's timeout"
        )
    mask = 0
    for name in chord.modifiers:
        mask |= keys.MODIFIER_BITS[name]
        _key_event(tab, "rawKeyDown", keys.NAMED[name], mask, deadline)
    press_key(tab, chord.key, mask, deadline, delay_ms=delay_ms)
    for name in reversed(chord.modifiers):
        mask &= ~keys.MODIFIER_BITS[name]
        _key_event(tab, "keyUp", keys.NAMED[name], mask, deadline)


def press_key(tab: Tab, key: keys.KeyDef, mask: int, deadline: float, *, delay_ms: int = 0) -> None:
    params = keys.key_event_params(key, mask)
    _dispatch_key(
        tab, {**params, "type": "keyDown" if params.get("text") else "rawKeyDown"}, deadline
    )
    if delay_ms:
        _sleep(delay_ms / 1000, deadline)
    _dispatch_key(
        tab,
        {
            **{k: v for k, v in params.items() if k not in ("text", "unmodifiedText")},
            "type": "keyUp",
        },
        deadline,
    )


def _key_event(tab: Tab, kind: str, key: keys.KeyDef, mask: int, deadline: float) -> None:
    _dispatch_key(tab, {**keys.key_event_params(key, mask), "type": kind}, deadline)


def _dispatch_key(tab: Tab, params: dict, deadline: float) -> None:
    guarded_call(tab, tab.session, "Input.dispatchKeyEvent", params, deadline)


def type_slowly(tab: Tab, text: str, deadline: float) -> None:
    """One key at a time: keyDown (with its text), keyUp, as a person types."""
    for char in text:
        key = keys.CHARACTERS.get(char)
        if key is None:  # no key on a US keyboard types it: send the text alone
            insert_text(tab, char, deadline)
            continue
        shift = keys.MODIFIER_BITS["Shift"] if char in keys.SHIFTED_CHARS else 0
        press_key(tab, key, shift, deadline)


def insert_text(tab: Tab, text: str, deadline: float) -> None:
    """Input.insertText: input events as from an IME, which frameworks' listeners see."""
    guarded_call(tab, tab.session, "Input.insertText", {"text": text}, deadline)
