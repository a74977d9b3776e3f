"""The in-page half of snapshots: the aria walker (page/snapshot/js/*.js) in an isolated world of
each frame (found from Runtime's events, else made; the script preloaded into a snapshotted
tab's new documents, else injected), Chrome's own accessible names for the nodes whose names the
walker cannot vouch for, closed shadow roots handed to the walker, long answers fetched in
slices, and the splicing of iframe documents into their parent's text.

Why a hybrid (measured, see bench/snapshot.py): Accessibility.getFullAXTree costs more than
Playwright's whole snapshot on large pages (Chrome computes and serializes every node's name
with its sources), so the walker builds the tree in the page, and Chrome is asked, one node at a
time and pipelined, only for names that are not plain text or a plain aria-label.
"""

from __future__ import annotations

import importlib.resources
import json
import threading
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

from clawd import errors
from clawd.cdp.session import Session
from clawd.deadline import left_or_raise

WORLD = "clawd"
CLOSED_ROUNDS = 4  # nested closed shadow roots: one level per round
GROUP = "clawd-snapshot"  # the object group of the handles a snapshot takes
SLICE = 100000  # a long answer comes in slices this long (snapshot.js SLICE)
LATE = "the snapshot did not finish within timeoutMs"
_SCRIPT: str | None = None


def script() -> str:
    global _SCRIPT
    if _SCRIPT is None:
        files = importlib.resources.files("clawd.page.snapshot") / "js"
        parts = [
            (files / name).read_text(encoding="utf-8")
            for name in (
                "playwright_aria.js",
                "snapshot.js",
                "names.js",
                "content.js",
                "quickname.js",
            )
        ]
        _SCRIPT = "(() => {\n" + "\n".join(parts) + "\n})();"
    return _SCRIPT


def injector() -> str:
    """The script and a document's first build as one function of the build's options. Its text
    never changes, so V8 compiles it once a renderer and takes it from its compilation cache for
    every later document, inner functions compiled too (the script with each build's options
    appended was compiled anew each time: 8-10 ms more a cold snapshot and an iframe, measured
    on the corpus pages)."""
    return "function (options) {\n" + script() + "\nreturn __clawd.build(options);\n}"


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


class Injected:
    """The execution contexts of each session that clawd's script was injected into (the last
    KEEP of them), and the sessions whose new documents get it from Chrome (preload). A context
    not listed, in a session not preloaded, is a new document's: it gets the script and its
    first build in one round trip, without being asked first whether the script is there (a
    cold snapshot's round trip, and one per iframe). Any other is asked, and injected if its
    script is not there."""

    KEEP = 256

    def __init__(self):
        self._lock = threading.Lock()
        self._contexts: weakref.WeakKeyDictionary[Session, OrderedDict] = (
            weakref.WeakKeyDictionary()
        )
        self._preloaded: weakref.WeakSet[Session] = weakref.WeakSet()

    def known(self, session: Session, context: int) -> bool:
        """Whether the context may hold the script already: ask it before injecting."""
        with self._lock:
            return context in self._contexts.get(session, ()) or session in self._preloaded

    def first_preload(self, session: Session) -> bool:
        """Whether `session` is not preloaded yet; it is from now on."""
        with self._lock:
            if session in self._preloaded:
                return False
            self._preloaded.add(session)
            return True

    def add(self, session: Session, context: int) -> None:
        with self._lock:
            contexts = self._contexts.setdefault(session, OrderedDict())
            contexts[context] = True
            contexts.move_to_end(context)
            while len(contexts) > self.KEEP:
                contexts.popitem(last=False)


INJECTED = Injected()


def preload(session: Session) -> None:
    """Have Chrome run the script in clawd's world of every document the session's target makes
    from now on, iframes too, as the document starts (Page.addScriptToEvaluateOnNewDocument; once
    a session, the reply not waited for). Chrome takes a CDP message in at about 70 us a KB, so
    sending the 135 KB script cost 8-10 ms every cold snapshot and every iframe walked; this way
    it is sent once a tab, after the tab's first snapshot (a tab never snapshotted pays nothing).
    The world is the one Page.createIsolatedWorld hands back by name: no universal access
    either (tests/integration/test_snapshot_preload.py)."""
    if INJECTED.first_preload(session):
        session.send_and_forget(
            "Page.addScriptToEvaluateOnNewDocument", {"source": script(), "worldName": WORLD}
        )


class Worlds:
    """clawd's world in each frame of a session, as Runtime's events tell (Runtime is on in
    every tab: page/observe/console.py): a frame whose world Chrome reported (made by the
    preload as its document started, or by an earlier Page.createIsolatedWorld) is not asked
    for it again, a round trip of 1-5 ms on a page just loaded. Only the events fill it and
    empty it, so a world is forgotten when its context is destroyed; a session is watched from
    its first snapshot on."""

    def __init__(self):
        self._lock = threading.Lock()
        self._frames: weakref.WeakKeyDictionary[Session, dict[str, int]] = (
            weakref.WeakKeyDictionary()
        )

    def get(self, session: Session, frame_id: str, timeout: float) -> int | None:
        """The frame's world as the events handled so far tell, or None."""
        with self._lock:
            frames = self._frames.get(session)
            if frames is None:
                self._frames[session] = frames = {}
                self._watch(session, frames)
                return None
        session.connection.events.flush(max(0.05, min(1.0, timeout)))  # what came is handled
        with self._lock:
            return frames.get(frame_id)

    def _watch(self, session: Session, frames: dict[str, int]) -> None:
        lock = self._lock

        def created(params: dict) -> None:
            context = params.get("context") or {}
            frame_id = (context.get("auxData") or {}).get("frameId")
            if context.get("name") == WORLD and frame_id:
                with lock:
                    frames[frame_id] = context["id"]

        def destroyed(params: dict) -> None:
            with lock:
                for frame_id, context in list(frames.items()):
                    if context == params.get("executionContextId"):
                        del frames[frame_id]

        def cleared(params: dict) -> None:
            with lock:
                frames.clear()

        session.on("Runtime.executionContextCreated", created)
        session.on("Runtime.executionContextDestroyed", destroyed)
        session.on("Runtime.executionContextsCleared", cleared)


WORLDS = Worlds()


def world(session: Session, frame_id: str, timeout: float) -> int:
    """The execution context of clawd's isolated world in `frame_id` (created on first use;
    Chrome hands back the same world for the same name while the document lives)."""
    known = WORLDS.get(session, frame_id, timeout)
    if known is not None:
        return known
    reply = session.call(
        "Page.createIsolatedWorld",
        {"frameId": frame_id, "worldName": WORLD, "grantUniveralAccess": False},
        timeout=timeout,
    )
    return reply["executionContextId"]


def worlds(frames: list[tuple[Session, str]], walk: Walk) -> list[int | None]:
    """world() of several frames, those not known asked for together and waited for within the
    walk's time; None for a frame whose world could not be made (its walk asks again and fails
    with the reason)."""
    params = {"worldName": WORLD, "grantUniveralAccess": False}
    known = [WORLDS.get(session, frame_id, walk.remaining()) for session, frame_id in frames]
    sent = [
        None
        if context is not None
        else session.send("Page.createIsolatedWorld", {"frameId": frame_id, **params})
        for (session, frame_id), context in zip(frames, known)
    ]
    out: list[int | None] = []
    try:
        for context, pending in zip(known, sent):
            try:
                out.append(
                    context
                    if pending is None
                    else pending.result(walk.remaining())["executionContextId"]
                )
            except errors.CdpError:
                out.append(None)
    finally:
        for pending in sent[len(out) :]:  # out of time: nobody waits for the rest
            if pending is not None:
                pending.discard()
    return out


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
