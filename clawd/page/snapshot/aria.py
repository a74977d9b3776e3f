"""The in-page half of snapshots: walking a frame's document with the aria walker (put there by
inject.py), Chrome's own accessible names for the nodes whose names the walker cannot vouch for,
closed shadow roots handed to the walker, long answers fetched in slices, and the splicing of
iframe documents into their parent's text.

Why a hybrid (measured, see bench/snapshot.py): Accessibility.getFullAXTree costs more than
Playwright's whole snapshot on large pages (Chrome computes and serializes every node's name
with its sources), so the walker builds the tree in the page, and Chrome is asked, one node at a
time and pipelined, only for names that are not plain text or a plain aria-label.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field

from clawd import errors
from clawd.browser.tab import StateKey
from clawd.cdp.session import Session
from clawd.deadline import left_or_raise
from clawd.page.snapshot.inject import INJECTED, injector, world

CLOSED_ROUNDS = 4  # nested closed shadow roots: one level per round
GROUP = "clawd-snapshot"  # the object group of the handles a snapshot takes
SLICE = 100000  # a long answer comes in slices this long (snapshot.js SLICE)
LATE = "the snapshot did not finish within timeoutMs"
# the in-page walker keeps one snapshot's state between its two steps, and the ref store is per
# tab: two snapshots of one tab at once would interleave, so they take turns. Reentrant: resolving
# frame= inside a snapshot may walk the frame again to find a role ref.
SNAPSHOT_LOCK = StateKey("snapshot.lock", lambda tab: threading.RLock())


def lock(tab) -> threading.RLock:
    """The tab's turn at walking its documents (a snapshot, a role ref's look-up)."""
    return tab.state[SNAPSHOT_LOCK]


@dataclass
class FrameText:
    """One frame's rendered text and refs [(ref, role, name, nth, cursor)]; iframes spliced in."""

    text: str
    refs: list[list] = field(default_factory=list)
    last: int = 0
    chrome_names: int = 0
    iframes: list[str] = field(default_factory=list)  # refs of its iframes, in document order
    empty_frames: set[str] = field(default_factory=set)  # those known to show nothing
    blank_frames: set[str] = field(default_factory=set)  # the same, unless a closed shadow root
    context: int | None = None  # the world it was walked in
    page: list | None = None  # [url, title, readyState, baseURI]


@dataclass
class Walk:
    """Where and how to walk: the session owning the frame, the frame, the options."""

    session: Session
    frame_id: str
    mode: str  # "ai" (refs) or "default" (Playwright's ariaSnapshot(), no refs)
    prefix: str = ""
    selector: str | None = None
    deadline: float = 0.0
    root: bool = False  # the snapshot's own document: one still loading is TabLoading
    lookup: bool = False  # finding a role ref's element: the page keeps the latest snapshot's refs
    context: int | None = None  # the frame's world, when it was made ahead (sibling iframes)

    def remaining(self) -> float:
        return left_or_raise(self.deadline, errors.RequestTimeout, LATE)


def evaluate(
    session: Session, context_id: int, expression: str, timeout: float, *, by_value: bool = True
):
    reply = session.call(
        "Runtime.evaluate", _evaluate_params(context_id, expression, by_value), timeout=timeout
    )
    return _result(reply, "Runtime.evaluate", by_value)


def call(session: Session, context_id: int, declaration: str, args: list, timeout: float):
    """`declaration` (a function's text) called with `args` (JSON values) in the context; its
    value."""
    reply = session.call(
        "Runtime.callFunctionOn", _call_params(context_id, declaration, args), timeout=timeout
    )
    return _result(reply, "Runtime.callFunctionOn", True)


def _evaluate_params(context_id: int, expression: str, by_value: bool = True) -> dict:
    params = {
        "expression": expression,
        "contextId": context_id,
        "returnByValue": by_value,
        "awaitPromise": False,
    }
    if not by_value:
        params["objectGroup"] = GROUP
    return params


def _call_params(context_id: int, declaration: str, args: list) -> dict:
    return {
        "functionDeclaration": declaration,
        "executionContextId": context_id,
        "arguments": [{"value": arg} for arg in args],
        "returnByValue": True,
        "awaitPromise": False,
    }


def _result(reply: dict, method: str, by_value: bool):
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text", "")
        raise errors.CdpError(
            f"snapshot script failed: {text.splitlines()[0] if text else 'unknown error'}",
            method=method,
        )
    return reply["result"].get("value") if by_value else reply["result"]


def walk_frame(walk: Walk, base: int) -> FrameText:
    """Snapshot one frame's document (not its iframes) into text and refs."""
    context = walk.context or world(walk.session, walk.frame_id, walk.remaining())
    asked = None
    try:
        built, asked = _build(walk, context, base)
        _raise_for(walk, built)
        names: list[str | None] = []
        if isinstance(built, dict) and built.get("pending"):
            names = chrome_names(walk, asked.name_ids())
            answer = evaluate(
                walk.session,
                context,
                f"__clawd.render({json.dumps(names)}, {json.dumps(walk.mode == 'ai')})",
                walk.remaining(),
            )
        else:  # nothing to ask Chrome: rendered with the build
            answer = built["rendered"] if isinstance(built, dict) else built
        packed = _packed(walk, context, answer)
    finally:
        if asked is not None:
            asked.discard()
        walk.session.send_and_forget("Runtime.releaseObjectGroup", {"objectGroup": GROUP})
    rendered = unpack(packed)
    return FrameText(
        text=rendered["text"],
        refs=rendered["refs"],
        last=rendered["last"],
        chrome_names=len(names),
        iframes=rendered["iframes"],
        empty_frames=set(rendered["emptyFrames"]),
        blank_frames=set(rendered["blankFrames"]),
        context=context,
        page=rendered["page"],
    )


def _raise_for(walk: Walk, built) -> None:
    """The error a build answered, as the request's error."""
    error = built.get("error") if isinstance(built, dict) else None
    if error == "selector":
        raise errors.SelectorNotFound(f"no element matches the selector {walk.selector!r}")
    if error == "badselector":
        raise errors.InvalidRequest(f"selector {walk.selector!r} is not a valid CSS selector")
    if error == "loading":
        raise errors.TabLoading(
            "the tab is still loading its document (readyState is loading); "
            "wait for it (POST /wait) and take the snapshot again"
        )


def _packed(walk: Walk, context: int, answer: str | int) -> str:
    """A packed answer; a long one (its length came back) in slices asked for together."""
    if isinstance(answer, str):
        return answer
    calls = [
        ("Runtime.evaluate", _evaluate_params(context, f"__clawd.slice({i})"))
        for i in range(-(-int(answer) // SLICE))
    ]
    replies = pipelined(walk.session, calls, walk, strict=True)
    return "".join(_result(reply, "Runtime.evaluate", True) for reply in replies)


def unpack(packed: str) -> dict:
    """__clawd.render's answer: a JSON line (refs, iframes, last, page), then the text."""
    head, _, text = packed.partition("\n")
    rendered = json.loads(head)
    rendered["text"] = text
    return rendered


class Asked:
    """The elements a build listed for Chrome (__clawd.askedElements, asked for in the same
    write as the build): its candidates for a closed shadow root, then the elements of the names
    Chrome must give. Their object ids are fetched when first wanted (a round trip); nothing is
    fetched for a build that listed none."""

    def __init__(self, walk: Walk, reply, built):
        counts = built if isinstance(built, dict) else {}
        self.hosts = int(counts.get("candidates") or 0)
        self.names = int(counts.get("pending") or 0)
        self._walk, self._reply = walk, reply
        self._ids: list[str | None] | None = None
        if not (self.hosts or self.names):
            self.discard()

    def host_ids(self) -> list[str | None]:
        return self._all()[: self.hosts]

    def name_ids(self) -> list[str | None]:
        return self._all()[self.hosts :]

    def _all(self) -> list[str | None]:
        if self._ids is None:
            reply, self._reply = self._reply, None
            array = _result(reply.result(self._walk.remaining()), "Runtime.evaluate", False)
            self._ids = array_ids(self._walk, array, self.hosts + self.names)
        return self._ids

    def discard(self) -> None:
        """Nobody waits for the array (its handles go with the snapshot's object group)."""
        if self._reply is not None:
            self._reply.discard()
            self._reply = None


def _build(walk: Walk, context: int, base: int) -> tuple[object, Asked]:
    """__clawd.build, injecting the script on first use. Its answer: a dict (names pending, the
    rendered snapshot beside closed-root candidates, an error), or the rendered snapshot (a
    string, or a long one's length); and what it asked (Asked). The page lists the elements that
    may host a closed shadow root as it walks; when Chrome finds such roots on them, the roots are
    handed to the page and it is walked again, one nesting level a round."""

    def build(probe: bool, inject: bool = False) -> tuple[object, Asked]:
        options = {
            "mode": walk.mode,
            "refPrefix": walk.prefix,
            "base": base,
            "selector": walk.selector,
            "probe": probe,
            "root": walk.root,
            "lookup": walk.lookup,
        }
        if inject:  # a new document: the script and the first build in one round trip
            method, params = "Runtime.callFunctionOn", _call_params(context, injector(), [options])
        else:
            expression = f"globalThis.__clawd ? __clawd.build({json.dumps(options)}) : null"
            method, params = "Runtime.evaluate", _evaluate_params(context, expression)
        elements = _evaluate_params(context, "__clawd.askedElements()", by_value=False)
        reply, asked = walk.session.send_many([(method, params), ("Runtime.evaluate", elements)])
        try:
            built = _result(reply.result(walk.remaining()), method, True)
        except BaseException:
            asked.discard()
            raise
        return built, Asked(walk, asked, built)

    built, asked = build(True, inject=not INJECTED.known(walk.session, context))
    if built is None:
        built, asked = build(True, inject=True)
    INJECTED.add(walk.session, context)
    for round_ in range(CLOSED_ROUNDS):
        if not asked.hosts or not attach_closed_roots(walk, context, asked.host_ids()):
            break
        built, asked = build(round_ + 1 < CLOSED_ROUNDS)
    return built, asked


def attach_closed_roots(walk: Walk, context: int, hosts: list[str | None]) -> int:
    """Hand the walker the closed shadow roots of its candidate hosts (their object ids): Chrome
    describes each candidate (shadowRoots lists closed ones too) and resolves the root into
    clawd's world. How many it handed."""
    described = pipelined(
        walk.session, [("DOM.describeNode", {"objectId": h, "depth": 0}) for h in hosts], walk
    )
    attached = 0
    for host, reply in zip(hosts, described):
        roots = [
            r
            for r in ((reply or {}).get("node") or {}).get("shadowRoots", [])
            if r.get("shadowRootType") == "closed"
        ]
        if roots and _hand_root(walk, context, host, roots[0]["backendNodeId"]):
            attached += 1
    return attached


def _hand_root(walk: Walk, context: int, host: str, backend_node_id: int) -> bool:
    session = walk.session
    root = session.try_call(
        "DOM.resolveNode",
        {"backendNodeId": backend_node_id, "executionContextId": context, "objectGroup": GROUP},
        timeout=walk.remaining(),
    )
    if not root:
        return False
    session.call(
        "Runtime.callFunctionOn",
        {
            "functionDeclaration": "function (root) { __clawd.closedRoots.set(this, root); }",
            "objectId": host,
            "arguments": [{"objectId": root["object"]["objectId"]}],
        },
        timeout=walk.remaining(),
    )
    return True


def element_ids(walk: Walk, context: int, expression: str, count: int = 0) -> list[str | None]:
    """The object ids of the elements of the array `expression` returns, in order (None for an
    entry that is not an object), at least `count` of them."""
    array = evaluate(walk.session, context, expression, walk.remaining(), by_value=False)
    return array_ids(walk, array, count)


def array_ids(walk: Walk, array: dict, count: int = 0) -> list[str | None]:
    """element_ids of an array whose handle was asked for already."""
    props = walk.session.call(
        "Runtime.getProperties",
        {"objectId": array["objectId"], "ownProperties": True},
        timeout=walk.remaining(),
    )["result"]
    ids = {
        int(p["name"]): p["value"]["objectId"]
        for p in props
        if p["name"].isdigit() and p.get("value", {}).get("objectId")
    }
    return [ids.get(i) for i in range(max(count, max(ids) + 1 if ids else 0))]


def chrome_names(walk: Walk, ids: list[str | None]) -> list[str | None]:
    """Chrome's accessible names of the elements `ids` (object ids), in order (None where Chrome
    has none); the handles are walk_frame's to release."""
    calls = [
        ("Accessibility.getPartialAXTree", {"objectId": i, "fetchRelatives": False}) for i in ids
    ]
    return [
        _node_name((reply or {}).get("nodes") or [{}])
        for reply in pipelined(walk.session, calls, walk)
    ]


def pipelined(
    session: Session, calls: list[tuple[str, dict]], walk: Walk, *, strict: bool = False
) -> list[dict | None]:
    """Every call sent at once, then the replies collected in order, so the round trips overlap;
    None where a call failed, or (`strict`) the first failure raised."""
    wanted = [(m, p) for m, p in calls if not any(v is None for v in p.values())]
    written = iter(session.send_many(wanted) if wanted else [])
    sent = [
        None if any(v is None for v in params.values()) else next(written)
        for method, params in calls
    ]
    out: list[dict | None] = []
    try:
        for pending in sent:
            out.append(_reply_or_none(pending, walk, strict))
    finally:
        for pending in sent[len(out) :]:  # timed out: nobody waits for the rest
            if pending is not None:
                pending.discard()
    return out


def _reply_or_none(pending, walk: Walk, strict: bool = False) -> dict | None:
    if pending is None:
        return None
    try:
        return pending.result(walk.remaining())
    except errors.CdpError:
        if strict:
            raise
        return None


def _node_name(nodes: list[dict]) -> str | None:
    node = nodes[0]
    if not node or node.get("ignored"):
        return None
    name = node.get("name")
    return name.get("value") if name else None


def splice(parent: str, iframe_ref: str, child: str) -> str:
    """Put `child` (a frame's text) under the `- iframe [ref=...]` line of `parent`."""
    lines = parent.split("\n")
    marker = f"[ref={iframe_ref}]"
    for index, line in enumerate(lines):
        if marker in line and line.lstrip().startswith("- iframe"):
            indent = " " * (len(line) - len(line.lstrip()) + 2)
            if not line.endswith(":"):
                lines[index] = line + ":"
            inner = [indent + text for text in child.split("\n") if text]
            lines[index + 1 : index + 1] = inner
            break
    return "\n".join(lines)
