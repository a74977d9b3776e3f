"""Real input on a page: an element's clickable point in the tab's viewport (when it is
actionable, actionability.py; for an element in an iframe, shifted to where the frame sits and
checked against the tab's own document), and mouse and keyboard events over
Input.dispatchMouseEvent/dispatchKeyEvent/insertText. Every page call goes through the action's
guarded session (guard.py): mouse and keyboard take the tab's, an element hands out its own."""

from __future__ import annotations

import time
from dataclasses import dataclass

from clawd import errors, keys
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.act import actionability
from clawd.page.act.guard import Guarded

BUTTONS = {"left": 1, "right": 2, "middle": 4}


@dataclass
class Element:
    """An element resolved from a ref, ready to be acted on, with the act's guarded way to the
    session it lives in (its deadline is the act's). `object_id` is the element in clawd's world
    (or, for a ref found by other means, the page's own); its backend node id is asked for only
    when something needs it (a cover's name, a file input): two round trips fewer an act."""

    page: Guarded
    backend: int | None
    object_id: str
    ref: str = ""
    role: str = ""
    name: str = ""
    main: bool = False  # object_id is in the page's own world
    group: str = ""  # the act's object group, released when it ends

    @property
    def backend_node_id(self) -> int:
        if self.backend is None:
            answer = self.page.call("DOM.describeNode", {"objectId": self.object_id})
            self.backend = answer["node"]["backendNodeId"]
        return self.backend

    def in_main_world(self) -> str:
        """The element's object id in the page's own world, for a function of the page's
        (evaluate with a ref sees the page's globals)."""
        if self.main:
            return self.object_id
        params = {"backendNodeId": self.backend_node_id, "objectGroup": self.group}
        return self.page.call("DOM.resolveNode", params)["object"]["objectId"]

    @property
    def tab(self) -> Tab:
        return self.page.tab

    @property
    def session(self) -> Session:
        return self.page.session

    @property
    def deadline(self) -> float:
        return self.page.deadline

    @property
    def top(self) -> Guarded:
        """The act's way to the tab's page session, where mouse and keyboard go."""
        return self.page.on(self.tab.session)

    def call(self, function: str, *args, by_value: bool = True):
        """Run `function` with the element as `this`; returns the value (or the remote object)."""
        params = {
            "functionDeclaration": function,
            "objectId": self.object_id,
            "returnByValue": by_value,
            "arguments": [_argument(a) for a in args],
            "awaitPromise": True,
        }
        answer = self.page.call("Runtime.callFunctionOn", params)
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


def element_for(act: Guarded, resolved, group: str) -> Element:
    """An Element from a refs.ResolvedRef (session, backend_node_id, role, name, ref), reached
    through the act's guard (`act`) moved onto the ref's session; its remote objects in the act's
    object `group`."""
    page = act.on(resolved.session)
    if resolved.object_id is not None:
        return Element(
            page,
            None,
            resolved.object_id,
            ref=resolved.ref,
            role=resolved.role,
            name=resolved.name,
            group=group,
        )
    try:
        params = {"backendNodeId": resolved.backend_node_id, "objectGroup": group}
        answer = page.call("DOM.resolveNode", params)
    except errors.CdpError:
        raise errors.ActElementDetached(
            f"{resolved.role} {resolved.name!r} [{resolved.ref}] is no longer in "
            "the page; take a new snapshot"
        ) from None
    return Element(
        page,
        resolved.backend_node_id,
        answer["object"]["objectId"],
        ref=getattr(resolved, "ref", ""),
        role=getattr(resolved, "role", ""),
        name=getattr(resolved, "name", ""),
        main=True,
        group=group,
    )


# -- where to click -------------------------------------------------------------------------------
def prepare(element: Element, *, scroll: bool = True, enabled: bool = True) -> dict:
    """Wait until the element is attached and visible (and enabled, with `enabled`), scrolled
    into view of every box that clips it and, in an iframe, of the tab (actionability.py)."""

    def into_tab_view(answer: dict) -> dict:
        if answer.get("framed"):
            _scroll_frames_into_view(element)
        return answer

    return actionability.wait_actionable(
        element,
        hit=False,
        enabled=enabled,
        scroll=scroll,
        point=False,
        place=into_tab_view if scroll else None,
    )


def clickable_point(
    element: Element, *, check_covered: bool = True, enabled: bool = True
) -> tuple[float, float]:
    """Where a person would click the element, in the tab's viewport, once it is actionable:
    visible, still, in view, (enabled,) and the top element there (waited for: actionability.py).
    The common case, an element of the page itself, costs one round trip."""
    answer = actionability.wait_actionable(
        element,
        hit=check_covered,
        enabled=enabled,
        place=lambda answer: _in_tab(element, answer, check_covered, enabled),
    )
    return answer["x"], answer["y"]


def _in_tab(element: Element, answer: dict, check_covered: bool, enabled: bool) -> dict:
    """The point of the element's frame as a point of the tab's viewport: the page's own as it
    is; an iframe's once its frames are scrolled into the tab's view, shifted by where the frame
    sits, and only where no box of the tab's document lies over the frame."""
    if not answer.get("framed"):
        return answer
    page = element.top
    _scroll_frames_into_view(element)
    if element.session is not page.session:
        _await_frames(page)  # input is routed by the last frame the tab drew
    answer = actionability.check(
        element, hit=check_covered, enabled=enabled, scroll=False
    )  # the point again: scrolling the frames may have moved it in its own frame too
    if answer["state"] != "ok":
        return answer
    quads = _content_quads(element)
    ox, oy = frame_offset(page, element.session)
    # quads are in the viewport of the element's process's top frame; answer's in its own frame
    dx = min(min(q[0::2]) for q in quads) - answer["left"] + ox
    dy = min(min(q[1::2]) for q in quads) - answer["top"] + oy
    x, y = answer["x"] + dx, answer["y"] + dy
    left, top, right, bottom = _visible_area(page, element.session, ox, oy)
    if not (left <= x < right and top <= y < bottom):
        return {"state": "clipped", "by": None}
    placed = {**answer, "x": x, "y": y, "frameX": answer["x"], "frameY": answer["y"]}
    cover = _tab_cover(page, x, y) if check_covered else None
    if cover is not None:
        return {**placed, "state": "covered", "coverNode": cover, "coverSession": page.session}
    return placed


def _tab_cover(page: Guarded, x: float, y: float) -> int | None:
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
        hit = page.call("DOM.getNodeForLocation", params)
        if hit.get("frameId") not in (None, page.tab.target_id):
            return None
        node = page.call("DOM.describeNode", {"backendNodeId": hit["backendNodeId"]})["node"]
    except errors.CdpError:
        return None  # nothing there to cover it (the point is on the frame's own edge)
    return None if node.get("nodeName") in ("IFRAME", "FRAME") else hit["backendNodeId"]


def _content_quads(element: Element) -> list:
    try:
        quads = element.page.call("DOM.getContentQuads", {"objectId": element.object_id}).get(
            "quads"
        )
    except errors.CdpError:
        quads = None
    if not quads:
        raise errors.ActElementHidden(f"{element.describe()} has no box on the page")
    return quads


def _scroll_frames_into_view(element: Element) -> None:
    """An element in view of its own iframe can still be off the tab's viewport: the iframe below
    the fold, or scrolled away inside a box of its parent. Chrome scrolls every ancestor, across
    processes, and only those that need it (a no-op when the element is already in view)."""
    try:
        element.page.call("DOM.scrollIntoViewIfNeeded", {"objectId": element.object_id})
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


def _await_frames(page: Guarded) -> None:
    """Chrome routes a mouse event into an out-of-process iframe by where the last frame it drew
    shows that iframe: after a scroll, an event sent at once goes to the old place (a hover is
    lost). Let the page draw its new position first."""
    page.call(
        "Runtime.evaluate", {"expression": _FRAMES, "awaitPromise": True, "returnByValue": True}
    )


def _visible_area(
    page: Guarded, session: Session, ox: float, oy: float
) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the tab's viewport (`page`'s) an element of `session`'s
    iframe can be clicked in."""
    right, bottom = _layout_size(page)
    if session is page.session:
        return 0.0, 0.0, right, bottom
    width, height = _layout_size(page.on(session))  # the out-of-process frame's
    return max(ox, 0.0), max(oy, 0.0), min(ox + width, right), min(oy + height, bottom)


def _layout_size(page: Guarded) -> tuple[float, float]:
    """Width and height of the viewport of the session's top frame (scrollbars excluded)."""
    metrics = page.call("Page.getLayoutMetrics", {})
    layout = metrics.get("cssLayoutViewport") or metrics.get("layoutViewport") or {}
    return layout.get("clientWidth") or 1e9, layout.get("clientHeight") or 1e9


def frame_offset(page: Guarded, session: Session) -> tuple[float, float]:
    """Where the viewport of `session` (an out-of-process iframe's) sits in the viewport of the
    tab (`page`'s session): 0, 0 for the page itself."""
    tab = page.tab
    if session is tab.session:
        return 0.0, 0.0
    for parent in [tab.session, *tab.child_sessions().values()]:
        if parent is session:
            continue
        owner_page = page.on(parent)
        try:
            owner = owner_page.call("DOM.getFrameOwner", {"frameId": session.target_id})
            box = owner_page.call("DOM.getBoxModel", {"backendNodeId": owner["backendNodeId"]})[
                "model"
            ]
        except errors.CdpError:
            continue
        px, py = frame_offset(page, parent)
        return box["content"][0] + px, box["content"][1] + py
    return 0.0, 0.0


# -- mouse ----------------------------------------------------------------------------------------
def mouse_move(page: Guarded, x: float, y: float, *, modifiers: int = 0, buttons: int = 0) -> None:
    page.call(*_move(x, y, modifiers, buttons))


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
    page: Guarded,
    kind: str,
    x: float,
    y: float,
    *,
    button: str = "left",
    click_count: int = 1,
    modifiers: int = 0,
) -> None:
    page.call(*_button(kind, x, y, button, click_count, modifiers))


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
    page: Guarded,
    x: float,
    y: float,
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
            page.calls(chain)
            _sleep(delay_ms / 1000, page.deadline)
            chain = []
        chain.append(_button("mouseReleased", x, y, button, count, modifiers))
    page.calls(chain)


def _sleep(seconds: float, deadline: float) -> None:
    left = deadline - time.monotonic()
    if seconds > left:
        raise errors.ActTimeout("the action's delay is longer than its timeout")
    time.sleep(seconds)


# -- keyboard -------------------------------------------------------------------------------------
def press_chord(page: Guarded, chord: keys.Chord, *, delay_ms: int = 0) -> None:
    """Modifiers down, the key down and up (`delay_ms` apart, as Playwright's press delay),
    modifiers up."""
    if (
        delay_ms and time.monotonic() + delay_ms / 1000 > page.deadline
    ):  # before any key goes down: none stays held
        raise errors.ActTimeout(
            f"delayMs={delay_ms} is longer than the time left of the action's timeout"
        )
    mask = 0
    for name in chord.modifiers:
        mask |= keys.MODIFIER_BITS[name]
        _key_event(page, "rawKeyDown", keys.NAMED[name], mask)
    press_key(page, chord.key, mask, delay_ms=delay_ms)
    for name in reversed(chord.modifiers):
        mask &= ~keys.MODIFIER_BITS[name]
        _key_event(page, "keyUp", keys.NAMED[name], mask)


def press_key(page: Guarded, key: keys.KeyDef, mask: int, *, delay_ms: int = 0) -> None:
    params = keys.key_event_params(key, mask)
    _dispatch_key(page, {**params, "type": "keyDown" if params.get("text") else "rawKeyDown"})
    if delay_ms:
        _sleep(delay_ms / 1000, page.deadline)
    _dispatch_key(
        page,
        {
            **{k: v for k, v in params.items() if k not in ("text", "unmodifiedText")},
            "type": "keyUp",
        },
    )


def _key_event(page: Guarded, kind: str, key: keys.KeyDef, mask: int) -> None:
    _dispatch_key(page, {**keys.key_event_params(key, mask), "type": kind})


def _dispatch_key(page: Guarded, params: dict) -> None:
    page.call("Input.dispatchKeyEvent", params)


def type_slowly(page: Guarded, text: str) -> None:
    """One key at a time: keyDown (with its text), keyUp, as a person types."""
    for char in text:
        key = keys.CHARACTERS.get(char)
        if key is None:  # no key on a US keyboard types it: send the text alone
            insert_text(page, char)
            continue
        shift = keys.MODIFIER_BITS["Shift"] if char in keys.SHIFTED_CHARS else 0
        press_key(page, key, shift)


def insert_text(page: Guarded, text: str) -> None:
    """Input.insertText: input events as from an IME, which frameworks' listeners see."""
    page.call("Input.insertText", {"text": text})
