"""Element refs: what a snapshot minted (`e12`, `f1e3` in iframes, `ax12` from format=aria) and
turning a ref back into a live node for actions, screenshots and highlights.

A ref is bound to the element itself: the page side keeps ref -> element for the latest snapshot
of its document (page/snapshot/js/snapshot.js). Numbers are never reused within a tab, so a ref
from an older document can never land on another element: it answers REF_STALE.

A snapshot taken with refs=role (OpenClaw's role refs, docs/snapshot.md) keeps that binding, and
when the element was removed from the same document since (a framework re-rendered it), the ref
lands on the element that now has its role, name and nth among equals, as Playwright's getByRole
would.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from clawd import errors
from clawd.browser.tab import StateKey
from clawd.cdp.session import Session
from clawd.deadline import left_or_raise
from clawd.page.snapshot import aria, inject
from clawd.ref_syntax import CANONICAL, REF_MODES, normalize

STALE_HINT = "take a new snapshot"
MODES = REF_MODES
LOOKUP_TIMEOUT = 10.0  # a role ref's look-up: one walk of its frame


@dataclass(frozen=True)
class ResolvedRef:
    session: Session
    backend_node_id: int
    frame_id: str
    role: str
    name: str
    ref: str
    replaced: bool = False  # a role ref found again by its role and name: another element
    # the element itself in clawd's world (resolve_ref(..., group=...)), in that object group;
    # backend_node_id is then None, for the caller to ask when it needs it
    object_id: str | None = None


@dataclass
class FrameRefs:
    session: Session
    frame_id: str
    selector: str | None = None  # the snapshot's selector= (the scope a role ref's nth counts in)


@dataclass(frozen=True)
class Held:
    """The whole text of a truncated snapshot, for its cursor's next pages (docs/snapshot.md)."""

    text: str
    loader_id: str  # the tab's document it was taken of
    max_chars: int
    chrome: int


@dataclass
class RefStore:
    """One tab's refs: those of its latest snapshot only (every frame), plus the counters."""

    counter: int = 0  # highest e-number minted in this tab
    refs: dict[str, dict] = field(default_factory=dict)  # ref -> {role, name, nth?, prefix}
    frames: dict[str, FrameRefs] = field(default_factory=dict)  # prefix ("" main, "f1") -> frame
    prefixes: dict[str, str] = field(default_factory=dict)  # frameId -> prefix, never reused
    ax_counter: int = 0
    ax: dict[str, dict] = field(default_factory=dict)  # "ax3" -> {session, backend, role, name}
    mode: str = "aria"  # how the latest snapshot's refs resolve
    serial: int = 0  # snapshots taken in this tab: a cursor names the one it pages
    key: str = field(default_factory=lambda: secrets.token_hex(3))  # a cursor of this tab's
    held: Held | None = None  # the latest snapshot's whole text, when it was truncated
    lock: threading.Lock = field(default_factory=threading.Lock)

    def prefix_for(self, frame_id: str) -> str:
        with self.lock:
            if frame_id not in self.prefixes:
                self.prefixes[frame_id] = f"f{len(self.prefixes) + 1}"
            return self.prefixes[frame_id]

    def replace(
        self,
        refs: dict[str, dict],
        frames: dict[str, FrameRefs],
        counter: int,
        *,
        mode: str = "aria",
        held: Held | None = None,
    ) -> int:
        """Make these the tab's refs; the new snapshot's serial."""
        with self.lock:
            self.refs = refs
            self.frames = frames
            self.counter = max(self.counter, counter)
            self.mode = mode
            self.serial += 1
            self.held = held
            return self.serial

    def replace_ax(self, nodes: dict[str, dict], counter: int) -> None:
        with self.lock:
            self.ax = nodes
            self.ax_counter = max(self.ax_counter, counter)


REFS = StateKey("refs", lambda tab: RefStore())


def store(tab) -> RefStore:
    return tab.state[REFS]


def resolve_ref(
    tab, ref: str, *, before: Callable | None = None, group: str | None = None
) -> ResolvedRef:
    """The live node behind `ref`; RefUnknown (404) or RefStale (409) otherwise. `before(session,
    frame_id, context, ref)` may give `(function source, arguments)` of a function to call in the
    ref's world just before its element is looked up there, in the same command (an act's watch:
    page/act/effects.py). With an object `group`, a ref of the latest snapshot answers its element
    in clawd's world, in that group, instead of its backend node id: the look-up is then the only
    round trip (an act's, which releases its group when it ends)."""
    name = normalize(ref)
    found = CANONICAL.match(name)
    if not found:
        raise errors.RefUnknown(f"{ref!r} is not a ref (refs look like e12, 12, f1e3 or ax12)")
    refs = store(tab)
    if found.group(3) is not None:
        return _resolve_ax(refs, name, int(found.group(3)))
    if int(found.group(2)) > refs.counter:
        raise errors.RefUnknown(
            f"ref {name} was never part of a snapshot of this tab; take a snapshot first"
        )
    with refs.lock:
        info, mode = refs.refs.get(name), refs.mode
    if info is None:
        raise errors.RefStale(f"ref {name} is from an older snapshot or page; {STALE_HINT}")
    frame = refs.frames.get(info["prefix"])
    if frame is None:
        raise errors.RefStale(f"the frame of ref {name} is gone; {STALE_HINT}")
    replaced, object_id = False, None
    try:
        object_id = _live_element(frame, name, before, group)
        backend = None if group else _backend_released(frame.session, object_id)
    except _Removed:
        if mode != "role":
            raise
        backend, replaced, object_id = _by_role(tab, frame, name, info), True, None
    return ResolvedRef(
        frame.session,
        backend,
        frame.frame_id,
        info["role"],
        info["name"],
        name,
        replaced,
        object_id if group else None,
    )


class _Removed(errors.RefStale):
    """The ref's element was removed from its document, which is still there."""


def _by_role(tab, frame: FrameRefs, ref: str, info: dict) -> int:
    """A role ref whose element a re-render replaced: the element that has its role, name and nth
    now (find_by_role walks the frame again without touching the refs of the latest snapshot)."""
    found = find_by_role(
        tab, frame, info["prefix"], info["role"], info["name"], info.get("nth") or 0
    )
    if found is None:
        nth = f" (nth={info['nth']})" if info.get("nth") else ""
        raise errors.RefStale(
            f"ref {ref} is stale: its element was removed and no {info['role']} "
            f"{info['name']!r}{nth} is on the page now; {STALE_HINT}"
        )
    return found


def find_by_role(tab, frame: FrameRefs, prefix: str, role: str, name: str, nth: int) -> int | None:
    """The backend node id of the element that has `role`, `name` and `nth` among equals in the
    frame's document now, counted as the snapshot counted them (same walk, same scope), or None.
    For a role ref whose element a re-render replaced: the walk leaves the page's refs of the latest
    snapshot as they are, so every other ref still resolves as before."""
    deadline = time.monotonic() + LOOKUP_TIMEOUT
    lock = aria.lock(tab)
    if not lock.acquire(timeout=LOOKUP_TIMEOUT):
        raise errors.RequestTimeout(f"another snapshot of tab {tab.tab_id} did not finish in time")
    try:
        walk = aria.Walk(
            frame.session, frame.frame_id, "ai", prefix, frame.selector, deadline, lookup=True
        )
        result = aria.walk_frame(walk, store(tab).counter)
        match = next(
            (
                ref
                for ref, r_role, r_name, r_nth, _ in result.refs
                if (r_role, r_name, r_nth or 0) == (role, name, nth)
            ),
            None,
        )
        return (
            None
            if match is None
            else _lookup_backend(frame.session, result.context, match, deadline)
        )
    except (
        errors.SelectorNotFound,
        errors.InvalidRequest,
    ):  # the snapshot's selector= matches nothing now
        return None
    except errors.CdpError:
        raise errors.RefStale(
            f"the document of the {role} {name!r} went away; take a new snapshot"
        ) from None
    finally:
        lock.release()


def _lookup_backend(session, context: int, ref: str, deadline: float) -> int | None:
    element = aria.evaluate(
        session, context, f"__clawd.lookup.get({json.dumps(ref)})", _left(deadline), by_value=False
    )
    if "objectId" not in element:
        return None
    try:
        return session.call(
            "DOM.describeNode", {"objectId": element["objectId"]}, timeout=_left(deadline)
        )["node"]["backendNodeId"]
    finally:
        session.send_and_forget("Runtime.releaseObjectGroup", {"objectGroup": aria.GROUP})


def _left(deadline: float) -> float:
    return left_or_raise(deadline, errors.RequestTimeout, aria.LATE)


# A ref's element in its world, `before(...args)` called first (never the look-up's failure). The
# ref is an argument: a source the same from act to act is compiled once (its own text in the
# source cost 0.1-0.3 ms an act).
_LOOKUP = """function(ref, ...args) {{
  const before = {before};
  try {{ if (before) before(...args); }} catch (e) {{}}
  return globalThis.__clawd ? __clawd.element(ref) : 'unknown';
}}"""


def _live_element(
    frame: FrameRefs, ref: str, before: Callable | None = None, group: str | None = None
) -> str:
    """The object id of `ref`'s element in clawd's world of its frame (in object `group`)."""
    try:
        context = inject.world(frame.session, frame.frame_id, 5.0)
        prelude = before(frame.session, frame.frame_id, context, ref) if before else None
        function, args = prelude if prelude else ("null", ())
        params = {
            "functionDeclaration": _LOOKUP.format(before=function),
            "executionContextId": context,
            "arguments": [{"value": value} for value in (ref, *args)],
            "returnByValue": False,
        }
        if group:
            params["objectGroup"] = group
        result = frame.session.call("Runtime.callFunctionOn", params, timeout=5.0)
    except errors.CdpError:
        raise errors.RefStale(f"the document of ref {ref} is gone; {STALE_HINT}") from None
    value = result.get("result", {})
    if value.get("type") == "string" or "objectId" not in value:
        if value.get("value") == "gone":
            raise _Removed(f"ref {ref} is stale (its element was removed); {STALE_HINT}")
        raise errors.RefStale(f"ref {ref} is stale (the page changed); {STALE_HINT}")
    return value["objectId"]


def _backend_released(session, object_id: str) -> int:
    """The backend node id of a remote element, the element's object released after."""
    try:
        return session.call("DOM.describeNode", {"objectId": object_id}, timeout=5.0)["node"][
            "backendNodeId"
        ]
    finally:
        session.send_and_forget("Runtime.releaseObject", {"objectId": object_id})


def _resolve_ax(refs: RefStore, name: str, number: int) -> ResolvedRef:
    if number > refs.ax_counter:
        raise errors.RefUnknown(f"ref {name} was never part of a format=aria snapshot of this tab")
    info = refs.ax.get(name)
    if info is None:
        raise errors.RefStale(f"ref {name} is from an older snapshot; {STALE_HINT}")
    session = info["session"]
    try:
        session.call("DOM.resolveNode", {"backendNodeId": info["backend"]}, timeout=5.0)
    except errors.CdpError:
        raise errors.RefStale(f"the element of ref {name} is gone; {STALE_HINT}") from None
    return ResolvedRef(session, info["backend"], info["frame"], info["role"], info["name"], name)
