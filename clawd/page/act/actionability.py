"""Whether an element can take a person's click now, and where (docs/actions.md, Actionability): one
in-page check (attached, enabled, visible, not moving, scrolled into view of every clipping
ancestor, and the top element at its visible center is it as the page's own hit test sees it),
re-run with backoff until the act's deadline; the error says what was waited for, and names
what covers the element. Where the point lands in the tab (iframes) is input.py's part."""

from __future__ import annotations

import time
from collections.abc import Callable

from clawd import errors
from clawd.page.act.guard import Guarded

# Pauses between tries (s), the last one repeated: the first retry at once (a cover removed by the
# click's own handlers), then quickly, then every half second until the deadline.
BACKOFF = (0.0, 0.02, 0.1, 0.1, 0.5)
# A disabled or hidden element is waited for this long only: an agent acts on what its snapshot
# just showed, so these are seldom passing states; this covers a debounced form validation.
STATE_GRACE = 0.5
RESERVE = 0.3  # kept of the deadline to name what covers the element
_SHORT_WAITS = {"disabled", "hidden", "zero-size"}

# Shared by the check and the cover's description: the flat tree (slots, shadow hosts), the top
# element at a point as the page sees it (pseudo-elements are their owner's, pointer-events:none
# boxes are passed through), through open shadow roots and the closed ones the target is in.
_HELPERS = r"""
  const flatParent = n => n.assignedSlot || n.parentNode || n.host || null;
  const within = (outer, n) => {
    for (; n; n = flatParent(n)) if (n === outer) return true;
    return false;
  };
  const selectorOf = n => {
    const cls = typeof n.className === 'string' ? n.className.trim().split(/\s+/) : [];
    return n.tagName.toLowerCase() + (n.id ? '#' + n.id : '')
      + cls.filter(Boolean).slice(0, 3).map(c => '.' + c).join('');
  };
  const words = n => {
    const text = (n.getAttribute('aria-label') || n.innerText || n.textContent || '')
      .replace(/\s+/g, ' ').trim(), cut = text.split(' ').slice(0, 6).join(' ');
    return cut.length < text.length ? cut + '…' : cut;
  };
  const describe = n => ({selector: selectorOf(n), tag: n.tagName.toLowerCase(),
                          id: n.id || undefined, text: words(n)});
  // a cover for a reader: the top element, and the outermost box around it that does not hold
  // the target (the cookie wall, the open datepicker)
  const coverOf = (el, hit) => {
    let outer = hit;
    for (let p = flatParent(hit); p && !within(p, el); p = flatParent(p))
      if (p.nodeType === 1) outer = p;
    return {top: describe(hit), outer: outer === hit ? null : describe(outer)};
  };
  const topAt = (el, x, y) => {
    const own = new Map();  // the shadow roots the target is in, closed ones too
    for (let r = el.getRootNode(); r instanceof ShadowRoot; r = r.host.getRootNode())
      own.set(r.host, r);
    let hit = Document.prototype.elementFromPoint.call(el.ownerDocument, x, y);
    for (let root = hit && (hit.shadowRoot || own.get(hit)); root;
         root = hit.shadowRoot || own.get(hit)) {
      const inner = ShadowRoot.prototype.elementFromPoint.call(root, x, y);
      if (!inner || inner === hit || inner.getRootNode() !== root) break;
      hit = inner;
    }
    return hit;
  };
"""

_CHECK = (
    """function(opts) {"""
    + _HELPERS
    + r"""
  if (!this.isConnected) return {state: 'detached'};
  const el = this.nodeType === 1 ? this : this.parentElement;
  if (!el) return {state: 'detached'};
  if (opts.enabled && (el.matches(':disabled') || el.getAttribute('aria-disabled') === 'true'))
    return {state: 'disabled'};
  if (el.checkVisibility && !el.checkVisibility({visibilityProperty: true}))
    return {state: 'hidden'};
  const first = el.getBoundingClientRect();
  if (first.width === 0 || first.height === 0) return {state: 'zero-size'};
  // a control that takes no pointer (Bootstrap's .btn-check: pointer-events:none, clipped to
  // nothing) is clicked where a person clicks it: on the first label of it that shows
  const noPointer = s => s.pointerEvents === 'none'
    || /^rect\(0px,? 0px,? 0px,? 0px\)$/.test(s.clip);
  const shows = l => getComputedStyle(l).pointerEvents !== 'none' && l.getClientRects().length
    && l.checkVisibility({visibilityProperty: true});
  const box = (el.labels && noPointer(getComputedStyle(el)) && [...el.labels].find(shows)) || el;

  // -- stable: only an animation of the element or an ancestor can move it; then two frames
  const PAINT_ONLY = new Set(['offset', 'computedOffset', 'easing', 'composite', 'opacity', 'color',
    'backgroundColor', 'borderColor', 'boxShadow', 'outlineColor', 'fill', 'stroke']);
  const moving = () => (document.getAnimations ? document.getAnimations() : []).some(a =>
    a.playState === 'running' && a.effect && a.effect.target && within(a.effect.target, box)
    && a.effect.getKeyframes().some(k => Object.keys(k).some(p => !PAINT_ONLY.has(p))));
  const still = () => new Promise(done => {
    const timer = setTimeout(() => done(true), 250);  // a page that draws no frames: nothing moves
    let last = null;
    const frame = () => {
      const r = box.getBoundingClientRect(), now = [r.left, r.top, r.width, r.height].join();
      if (last === null) { last = now; requestAnimationFrame(frame); return; }
      clearTimeout(timer);
      done(now === last);
    };
    requestAnimationFrame(frame);
  });

  // -- in view: inside the window and every box that clips it (its containing-block chain)
  const cut = (a, b) => ({left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
    right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom)});
  const size = r => [Math.max(0, r.right - r.left), Math.max(0, r.bottom - r.top)];
  const view = () => {
    const de = document.documentElement, std = document.compatMode === 'CSS1Compat';
    return {left: 0, top: 0, right: (std && de.clientWidth) || innerWidth,
            bottom: (std && de.clientHeight) || innerHeight};
  };
  const clipOf = p => {
    const r = p.getBoundingClientRect(), left = r.left + p.clientLeft, top = r.top + p.clientTop;
    return {left, top, right: left + p.clientWidth, bottom: top + p.clientHeight};
  };
  const clippers = () => {
    const found = [], html = document.documentElement, body = document.body;
    const hs = getComputedStyle(html);
    const bodyIsViewport = hs.overflowX === 'visible' && hs.overflowY === 'visible';
    let position = getComputedStyle(box).position;
    for (let p = flatParent(box); p && p !== html; p = flatParent(p)) {
      if (p.nodeType !== 1) continue;
      const s = getComputedStyle(p);
      if (s.display === 'contents') continue;
      const traps = s.transform !== 'none' || s.filter !== 'none' || s.perspective !== 'none'
        || /paint|layout|strict|content/.test(s.contain);
      // a fixed box escapes every clip but a transformed ancestor's; an absolute one, the static
      if (position === 'fixed' ? !traps
          : position === 'absolute' && s.position === 'static' && !traps) continue;
      position = s.position;
      if ((p === body && bodyIsViewport) || s.display === 'inline') continue;
      if (s.overflowX !== 'visible' || s.overflowY !== 'visible'
          || /paint|strict|content/.test(s.contain)) found.push(p);
    }
    return found;
  };
  const measure = () => {
    const whole = box.getBoundingClientRect(), boxes = clippers(), win = view();
    let area = win, by = null;
    let most = [Math.min(whole.width, win.right), Math.min(whole.height, win.bottom)];
    for (const p of boxes) {
      const c = clipOf(p), [w, h] = size(cut(whole, c));
      if (!by && (w < 1 || h < 1)) by = p;
      area = cut(area, c);
      most = [Math.min(most[0], p.clientWidth), Math.min(most[1], p.clientHeight)];
    }
    const [w, h] = size(cut(whole, area));
    return {whole, area, by, shown: w >= most[0] - 1 && h >= most[1] - 1};
  };
  // -- receives events: the top element is the target, inside it, its label, or its button/link
  const reaches = hit => {
    const goals = [el, ...(el.labels || [])];
    if (el.tagName === 'LABEL' && el.control) goals.push(el.control);
    for (let n = el; n; n = flatParent(n)) {
      if (n.nodeType === 1 && n.matches('button, a[href], [role=button], [role=link]')) {
        goals.push(n);
        break;
      }
    }
    return goals.some(g => within(g, hit));
  };

  const locate = () => {
    let m = measure();
    if (opts.scroll && !m.shown) {
      box.scrollIntoView({block: 'center', inline: 'center', behavior: 'instant'});
      m = measure();
    }
    let point = null;
    for (const r of box.getClientRects()) {
      const v = cut(r, m.area), [w, h] = size(v);
      if (w >= 1 && h >= 1) { point = [(v.left + v.right) / 2, (v.top + v.bottom) / 2]; break; }
    }
    // typing or choosing needs no point: Playwright's fill and selectOption do not either
    if (!point) return opts.point ? {state: 'clipped', by: m.by ? selectorOf(m.by) : null}
                                  : {state: 'ok', framed: window !== window.top};
    // left and top are the element's own: input.py pairs them with its content quads
    const own = box === el ? m.whole : el.getBoundingClientRect();
    const answer = {state: 'ok', x: point[0], y: point[1], framed: window !== window.top,
                    left: own.left, top: own.top};
    if (!opts.hit) return answer;
    const hit = topAt(el, point[0], point[1]);
    return !hit || reaches(hit) ? answer : {...answer, state: 'covered', cover: coverOf(el, hit)};
  };
  return moving() ? still().then(ok => ok ? locate() : {state: 'unstable'}) : locate();
}"""
)

# The element at (x, y) in the target's frame, as _CHECK found it (a remote object, to name it).
_TOP_AT = "function(x, y) {" + _HELPERS + "  return topAt(this, x, y);\n}"

# A node of another document described as a cover (a box of a parent frame over an iframe).
_DESCRIBE = "function() {" + _HELPERS + "  return {top: describe(this), outer: null};\n}"


# Accessibility roles that say nothing a reader can find the cover by.
_NONDESCRIPT = {
    "",
    "generic",
    "none",
    "presentation",
    "StaticText",
    "InlineTextBox",
    "LineBreak",
    "paragraph",
    "LabelText",
    "RootWebArea",
    "WebArea",
    "Section",
    "group",
    "list",
    "listitem",
    "Div",
}
# ...and roles that name a window-like cover even without a name of their own.
_WINDOWS = {"dialog", "alertdialog", "alert", "status", "tooltip", "menu", "menubar", "listbox"}


class Patience:
    """The act's waiting: pauses from BACKOFF between tries, until its deadline (less RESERVE),
    or STATE_GRACE for a disabled or hidden element; how long it has waited."""

    def __init__(self, deadline: float, *, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.started = clock()
        self.deadline = deadline
        self.tries = 0

    def again(self, state: str, sleep: Callable[[float], None] = time.sleep) -> bool:
        """Sleep until the next try and True, or False when `state` is not waited for any longer."""
        if state == "detached":
            return False
        until = self.deadline - RESERVE
        if state in _SHORT_WAITS:
            until = min(until, self.started + STATE_GRACE)
        left = until - self.clock()
        if left <= 0:
            return False
        sleep(min(BACKOFF[min(self.tries, len(BACKOFF) - 1)], left))
        self.tries += 1
        return True

    def waited(self) -> float:
        return self.clock() - self.started


def check(element, *, hit: bool, enabled: bool, scroll: bool, point: bool = True) -> dict:
    """One try, one round trip: `{state: ok, x, y, framed, left, top}` (the point in the element's
    frame; without `point`, x and y only when it has one), or the state that stops it (detached,
    disabled, hidden, zero-size, unstable, clipped, covered)."""
    opts = {"hit": hit, "enabled": enabled, "scroll": scroll, "point": point}
    try:
        answer = element.call(_CHECK, opts)
    except errors.ActInvalidRequest:  # the page threw from our function: its node is gone
        answer = None
    return answer or {"state": "detached"}


def wait_actionable(
    element,
    *,
    hit: bool = True,
    enabled: bool = True,
    scroll: bool = True,
    point: bool = True,
    place: Callable[[dict], dict] | None = None,
) -> dict:
    """check() until it answers ok (and `place`, which puts the point in the tab, agrees), or the
    error of the state it was left in when waiting ran out (a try the deadline cut short is
    judged by the one before it)."""
    patience, last = Patience(element.deadline), None
    while True:
        try:
            answer = check(element, hit=hit, enabled=enabled, scroll=scroll, point=point)
            if answer["state"] == "ok" and place is not None:
                answer = place(answer)
        except errors.ActTimeout:
            if last is None:
                raise
            raise failure(element, last, patience.waited()) from None
        if answer["state"] == "ok":
            return answer
        last = answer
        if not patience.again(answer["state"]):
            raise failure(element, answer, patience.waited())


def failure(element, answer: dict, waited: float) -> errors.ClawdError:
    """The error for the state an element was left in, saying what was waited for and how long."""
    state, what = answer.get("state", "detached"), element.describe()
    after = f" (waited {waited:.1f} s)"
    if state == "disabled":
        return errors.ActElementDisabled(f"{what} is disabled{after}")
    if state == "hidden":
        return errors.ActElementHidden(f"{what} is not visible{after}")
    if state == "zero-size":
        return errors.ActElementHidden(
            f"{what} has no size (zero width or height){after}", reason="zero-size"
        )
    if state == "unstable":
        return errors.ActTimeout(
            f"{what} kept moving (its box changed from one animation frame to the next) "
            f"for {waited:.1f} s, until the action's timeout"
        )
    if state == "clipped":
        return _clipped(what, answer.get("by"), waited)
    if state == "covered":
        return _covered(element, answer, waited)
    return errors.ActElementDetached(f"{what} is no longer in the page; take a new snapshot")


def _clipped(what: str, by: str | None, waited: float) -> errors.ClawdError:
    if by:
        message = (
            f"{what} is clipped by {by}: it lies outside that box's visible part and scrolling "
            f"did not bring it in (waited {waited:.1f} s)"
        )
    else:
        message = (
            f"{what} is outside the page's viewport even after scrolling (waited {waited:.1f} s)"
        )
    return errors.ActElementHidden(message, reason="clipped", clippedBy=by)


def _covered(element, answer: dict, waited: float) -> errors.ClawdError:
    x, y = answer["x"], answer["y"]
    try:  # the accessibility role and name, in the time left; the page's description otherwise
        if answer.get("coverNode"):  # a box of the tab's document over the element's iframe
            covering = name_node(element.page.on(answer["coverSession"]), answer["coverNode"])
        else:
            found = _ax_role(element, answer.get("frameX", x), answer.get("frameY", y))
            cover = answer.get("cover") or {}
            covering = _cover_dict(found, cover.get("top") or {}, cover.get("outer"))
    except (errors.ActTimeout, errors.CdpError):
        covering = _cover_dict({}, (answer.get("cover") or {}).get("top") or {}, None)
    return errors.ActElementCovered(
        f"{element.describe()} is covered by {covering['label']} at ({x:.0f}, {y:.0f}); "
        f"waited {waited:.1f} s for it to go away. Close or scroll away what covers it, "
        "or act on that element",
        covering={k: v for k, v in covering.items() if k != "label"},
    )


# -- naming a cover -------------------------------------------------------------------------------
def _ax_role(element, x: float, y: float) -> dict:
    """{role, name} of what covers `element` at (x, y) of its frame, when they say something:
    looked for from the top element up to, not into, the boxes that hold the target. Two round
    trips."""
    page = element.page
    top_at = {
        "functionDeclaration": _TOP_AT,
        "objectId": element.object_id,
        "arguments": [{"value": x}, {"value": y}],
    }
    own = {"backendNodeId": element.backend_node_id, "fetchRelatives": True}
    top, holders = page.calls(
        [("Runtime.callFunctionOn", top_at), ("Accessibility.getPartialAXTree", own)],
        errors_as_values=True,
    )
    object_id = None if isinstance(top, errors.CdpError) else top["result"].get("objectId")
    if not object_id:
        return {}
    stop = set() if isinstance(holders, errors.CdpError) else _chain(holders, own["backendNodeId"])
    return _meaningful(page, {"objectId": object_id}, stop=stop)


def name_node(page: Guarded, backend_node_id: int) -> dict:
    """What a node of another document (`page`'s session) is as a cover (a box of a parent frame
    over an iframe)."""
    remote = page.call("DOM.resolveNode", {"backendNodeId": backend_node_id})
    object_id = remote["object"]["objectId"]
    describe = {"functionDeclaration": _DESCRIBE, "objectId": object_id, "returnByValue": True}
    answer = page.call("Runtime.callFunctionOn", describe)
    dom = (answer.get("result") or {}).get("value") or {}
    found = _meaningful(page, {"objectId": object_id}, stop=set())
    return _cover_dict(found, dom.get("top") or {}, None)


def _cover_dict(found: dict, top: dict, outer: dict | None) -> dict:
    """{role, name, tag, id?, selector, in?, label}: `label` is how a message says it. Every field
    is of one element: the top one when its role and name say what it is (`in`: the box around
    it), else the box (the cookie wall's div, not the paragraph in it)."""
    named = bool(found.get("name"))
    own = top if named or not outer else outer
    text = own.get("text")
    dom = own.get("selector", "another element") + (f' "{text}"' if text else "")
    if named:
        label = f"{found['role']} {found['name']!r}" + (f" in {outer['selector']}" if outer else "")
    else:  # a nameless role says little by itself: with the box's tag, classes and words
        label = f"{found['role']} {dom}" if found else dom
    covering = {
        "role": found.get("role") or "generic",
        "name": found.get("name") or text or "",
        "tag": own.get("tag"),
        "selector": own.get("selector"),
        "label": label,
    }
    if own.get("id"):
        covering["id"] = own["id"]
    if outer and own is top:
        covering["in"] = outer["selector"]
    return covering


def _chain(tree: dict, backend_node_id: int) -> set:
    """Backend ids of a node and its accessibility ancestors in a getPartialAXTree answer (not
    the siblings and children it also holds)."""
    nodes = tree.get("nodes") or []
    by_id = {n.get("nodeId"): n for n in nodes}
    node = next((n for n in nodes if n.get("backendDOMNodeId") == backend_node_id), None)
    held = {backend_node_id}
    while node is not None:
        held.add(node.get("backendDOMNodeId"))
        node = by_id.get(node.get("parentId"))
    return held


def _meaningful(page: Guarded, remote: dict, *, stop: set) -> dict:
    """{role, name} of the nearest accessibility node from `remote` up that says what it is,
    not going into the ones whose DOM node is in `stop` (those hold the target)."""
    described, tree = page.calls(
        [
            ("DOM.describeNode", remote),
            ("Accessibility.getPartialAXTree", {**remote, "fetchRelatives": True}),
        ],
        errors_as_values=True,
    )
    if isinstance(described, errors.CdpError) or isinstance(tree, errors.CdpError):
        return {}
    start = described["node"]["backendNodeId"]
    nodes = tree.get("nodes") or []
    by_id = {n.get("nodeId"): n for n in nodes}
    node = next((n for n in nodes if n.get("backendDOMNodeId") == start), None)
    while node is not None and node.get("backendDOMNodeId") not in stop:
        role = (node.get("role") or {}).get("value", "")
        name = (node.get("name") or {}).get("value", "")
        if not node.get("ignored") and role not in _NONDESCRIPT and (name or role in _WINDOWS):
            return {"role": role, "name": name}
        node = by_id.get(node.get("parentId"))
    return {}
