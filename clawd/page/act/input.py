"""Real input on a page: an element's clickable point (checked for detached, disabled, hidden,
zero-size, scrolled into view of its frame and of the tab, its center from DOM.getContentQuads
in the tab's viewport, hit-tested for anything covering it), and mouse and keyboard events over
Input.dispatchMouseEvent/dispatchKeyEvent/insertText. Every page call goes through
dialogs.guarded_call with the action's deadline."""

from __future__ import annotations

import time
from dataclasses import dataclass

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.act import keys
from clawd.page.act.dialogs import guarded_call, guarded_calls

BUTTONS = {"left": 1, "right": 2, "middle": 4}
_GENERIC_ROLES = {"generic", "none", "StaticText", "InlineTextBox", "LineBreak", "presentation", ""}

# One round trip before any event: the state checks, and scrolling into view when not fully visible.
_PREPARE = """function(scroll) {
  if (!this.isConnected) return {state: 'detached'};
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return {state: 'detached'};
  if ((el.matches && el.matches(':disabled')) || el.getAttribute('aria-disabled') === 'true')
    return {state: 'disabled'};
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true}))
    return {state: 'hidden'};
  let r = el.getBoundingClientRect();
  if (r.width === 0 || r.height === 0) return {state: 'zero-size'};
  const w = window.innerWidth, h = window.innerHeight;
  if (scroll && (r.top < 0 || r.left < 0 || r.bottom > h || r.right > w)) {
    el.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
  }
  // in an iframe, inside its own window is not yet in the tab's view: see prepare()
  return {state: 'ok', width: w, height: h, framed: window !== window.top};
}"""

_CONTAINS = """function(other) {
  for (let n = other; n; n = n.parentNode || n.host) { if (n === this) return true; }
  return false;
}"""

_DESCRIBE = """function() {
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return {tag: '#text'};
  const text = (el.getAttribute('aria-label') || el.innerText || el.textContent || '').trim();
  return {tag: el.tagName.toLowerCase(), id: el.id || undefined,
          role: el.getAttribute('role') || undefined, text: text.slice(0, 80)};
}"""


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
def prepare(element: Element, deadline: float, *, scroll: bool = True) -> dict:
    """Fail fast on detached, disabled, hidden and zero-size elements; scroll into view."""
    try:
        answer = element.call(_PREPARE, scroll, deadline=deadline)
    except errors.ActInvalidRequest:
        answer = None
    return _prepared(element, answer, deadline, scroll=scroll)


def _prepared(element: Element, answer: dict | None, deadline: float, *, scroll: bool) -> dict:
    """_PREPARE's answer judged: an error for an element that cannot be acted on; an element in an
    iframe scrolled into the tab's view."""
    state = (answer or {}).get("state", "detached")
    what = element.describe()
    if state == "detached":
        raise errors.ActElementDetached(f"{what} is no longer in the page; take a new snapshot")
    if state == "disabled":
        raise errors.ActElementDisabled(f"{what} is disabled")
    if state == "hidden":
        raise errors.ActElementHidden(f"{what} is not visible")
    if state == "zero-size":
        raise errors.ActElementHidden(
            f"{what} has no size (zero width or height)", reason="zero-size"
        )
    if scroll and answer.get("framed"):
        _scroll_frames_into_view(element, deadline)
    return answer


def _prepare_and_quads(element: Element, deadline: float) -> tuple[dict, list]:
    """prepare() and the element's content quads in one round trip: Chrome runs a session's
    commands in order, so the quads are taken after _PREPARE's scroll. An element in an iframe
    is scrolled into the tab's view afterwards, and its quads are asked again."""
    prepare_call = (
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": _PREPARE,
            "objectId": element.object_id,
            "returnByValue": True,
            "arguments": [{"value": True}],
        },
    )
    quads_call = ("DOM.getContentQuads", {"objectId": element.object_id})
    replies = guarded_calls(
        element.tab, element.session, [prepare_call, quads_call], deadline, errors_as_values=True
    )
    prepared, quads = replies
    if isinstance(prepared, errors.CdpError):
        raise prepared
    answer = None if "exceptionDetails" in prepared else prepared.get("result", {}).get("value")
    viewport = _prepared(element, answer, deadline, scroll=True)
    if viewport.get("framed"):  # scrolled again since: the quads are old
        return viewport, _content_quads(element, deadline)
    if isinstance(quads, errors.CdpError):
        raise errors.ActElementHidden(f"{element.describe()} has no box on the page")
    return viewport, quads.get("quads") or []


def _content_quads(element: Element, deadline: float) -> list:
    try:
        return (
            guarded_call(
                element.tab,
                element.session,
                "DOM.getContentQuads",
                {"objectId": element.object_id},
                deadline,
            ).get("quads")
            or []
        )
    except errors.CdpError:
        raise errors.ActElementHidden(f"{element.describe()} has no box on the page") from None


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


def clickable_point(
    element: Element, deadline: float, *, check_covered: bool = True
) -> tuple[float, float]:
    """The element's visible center in the tab's viewport, after prepare(); covered -> 409."""
    if element.session is element.tab.session:
        viewport, quads = _prepare_and_quads(element, deadline)
    else:  # an out-of-process iframe: the tab draws its new place before the quads are asked
        viewport = prepare(element, deadline)
        _await_frames(element.tab, deadline)
        quads = _content_quads(element, deadline)
    # quads are in the viewport of the element's process's top frame: the tab's own for the page
    # and same-process iframes, the iframe's for an out-of-process one (offset into the tab's)
    ox, oy = frame_offset(element.tab, element.session, deadline)
    area = _visible_area(element, viewport, ox, oy, deadline)
    x, y = _center([_shifted(quad, ox, oy) for quad in quads], area)
    if check_covered:
        _check_hit(element, x - ox, y - oy, deadline)
    return x, y


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


def _shifted(quad: list, dx: float, dy: float) -> list:
    return [v + (dy if i % 2 else dx) for i, v in enumerate(quad)]


def _visible_area(
    element: Element, viewport: dict, ox: float, oy: float, deadline: float
) -> tuple[float, float, float, float]:
    """(left, top, right, bottom) of the tab's viewport a point on the element can be in."""
    if not viewport.get("framed"):  # the element's own window is the tab's viewport
        return 0.0, 0.0, viewport.get("width") or 1e9, viewport.get("height") or 1e9
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


def _center(quads: list, area: tuple[float, float, float, float]) -> tuple[float, float]:
    """The center of the first quad's part inside `area` (left, top, right, bottom)."""
    area_left, area_top, area_right, area_bottom = area
    for quad in quads:
        xs, ys = quad[0::2], quad[1::2]
        left, right = max(min(xs), area_left), min(max(xs), area_right)
        top, bottom = max(min(ys), area_top), min(max(ys), area_bottom)
        if right - left >= 1 and bottom - top >= 1:
            return (left + right) / 2, (top + bottom) / 2
    raise errors.ActElementHidden("the element is outside the viewport even after scrolling")


def _check_hit(element: Element, x: float, y: float, deadline: float) -> None:
    tab, session = element.tab, element.session
    try:
        hit = guarded_call(
            tab,
            session,
            "DOM.getNodeForLocation",
            {
                "x": int(x),
                "y": int(y),
                "includeUserAgentShadowDOM": False,
                "ignorePointerEventsNone": True,
            },
            deadline,
        )
    except errors.CdpError:
        return  # nothing there to cover it (the point is on the element's own edge)
    hit_id = hit.get("backendNodeId")
    if hit_id is None or hit_id == element.backend_node_id:
        return
    other = guarded_call(tab, session, "DOM.resolveNode", {"backendNodeId": hit_id}, deadline)[
        "object"
    ]
    if element.call(_CONTAINS, other, deadline=deadline):
        return
    covering = describe_node(tab, session, hit_id, other, deadline)
    label = f"{covering['role']} {covering['name']!r}" if covering.get("name") else covering["role"]
    raise errors.ActElementCovered(
        f"{element.describe()} is covered by {label} at ({x:.0f}, {y:.0f}); "
        "close or scroll away what covers it, or act on that element",
        covering=covering,
    )


def describe_node(
    tab: Tab, session: Session, backend_node_id: int, remote: dict, deadline: float
) -> dict:
    """Role and accessible name of a node (its nearest meaningful accessibility ancestor)."""
    found: dict = {}
    try:
        tree = guarded_call(
            tab,
            session,
            "Accessibility.getPartialAXTree",
            {"backendNodeId": backend_node_id, "fetchRelatives": True},
            deadline,
        )
        found = _meaningful_ax(tree.get("nodes") or [], backend_node_id)
    except errors.CdpError:
        pass
    try:
        answer = guarded_call(
            tab,
            session,
            "Runtime.callFunctionOn",
            {
                "functionDeclaration": _DESCRIBE,
                "objectId": remote["objectId"],
                "returnByValue": True,
            },
            deadline,
        )
        dom = answer.get("result", {}).get("value") or {}
    except errors.CdpError:
        dom = {}
    return {
        "role": found.get("role") or dom.get("role") or "generic",
        "name": found.get("name") or dom.get("text") or "",
        "tag": dom.get("tag"),
        **({"id": dom["id"]} if dom.get("id") else {}),
    }


def _meaningful_ax(nodes: list, backend_node_id: int) -> dict:
    by_id = {n.get("nodeId"): n for n in nodes}
    node = next((n for n in nodes if n.get("backendDOMNodeId") == backend_node_id), None)
    while node is not None:
        role = (node.get("role") or {}).get("value", "")
        if not node.get("ignored") and role not in _GENERIC_ROLES:
            return {"role": role, "name": (node.get("name") or {}).get("value", "")}
        node = by_id.get(node.get("parentId"))
    return {}


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
