"""Accessibility snapshots of a tab (docs/snapshot.md): options, walking every frame (same-process
and out-of-process iframes), the text operations, refs, find and the labelled screenshot.
Getting the walker into a frame is inject.py's, walking it and Chrome's names aria.py's, text
operations ariatext.py's, resolving a ref refs.py's."""

from __future__ import annotations

import base64
import binascii
import json
import re
import time
from dataclasses import dataclass, replace

from clawd import errors, ref_syntax
from clawd.deadline import left_or_raise
from clawd.page.snapshot import aria, ariatext, inject
from clawd.page.snapshot import refs as refstore

DEFAULT_MAX_CHARS = 80000
# no depth: the flat list loses no interactive line however deep (docs/snapshot.md)
EFFICIENT = {"interactive": True, "compact": True, "max_chars": 10000}
MAX_FRAMES = 50


@dataclass(frozen=True)
class Options:
    format: str = "ai"
    interactive: bool | None = None
    compact: bool | None = None
    depth: int | None = None
    max_chars: int | None = None
    mode: str | None = None
    selector: str | None = None
    frame: str | None = None
    limit: int = 500
    labels: bool = False
    urls: bool = False
    refs: bool = True
    ref_mode: str = (
        "aria"  # refs=aria (bound to the element) or refs=role (re-found by role + name)
    )
    wrap: bool = False  # for an agent: the route wraps the answer (clawd/untrusted_fields.py)
    timeout_ms: int = 20000

    def resolved(self) -> Options:
        """`mode=efficient` fills what was not given; maxChars defaults to 80000."""
        out = self
        if self.mode == "efficient":
            out = replace(out, **{k: v for k, v in EFFICIENT.items() if getattr(out, k) is None})
        if out.max_chars is None:
            out = replace(out, max_chars=DEFAULT_MAX_CHARS)
        return replace(out, interactive=bool(out.interactive), compact=bool(out.compact))


@dataclass
class Target:
    """One frame to walk: its session, its frame id and ref prefix."""

    session: object
    frame_id: str
    prefix: str
    base_url: str = ""
    context: int | None = None  # its world, when made ahead with its sibling iframes'


def take(tab, options: Options) -> dict:
    """A format=ai snapshot, `{format, url, snapshot, refs, stats, truncated?, next?}`: within
    timeoutMs or RequestTimeout (408), a page still loading its document TabLoading (409)."""
    opts = options.resolved()
    deadline = time.monotonic() + opts.timeout_ms / 1000
    tab.check_usable()
    lock = aria.lock(tab)
    if not lock.acquire(timeout=max(0.0, deadline - time.monotonic())):
        raise errors.RequestTimeout(
            f"another snapshot of tab {tab.tab_id} did not finish within "
            f"timeoutMs={opts.timeout_ms}"
        )
    try:
        return _take(tab, opts, deadline)
    except errors.CdpTimeout:
        raise errors.RequestTimeout(
            f"the snapshot did not finish within timeoutMs={opts.timeout_ms} "
            "(the page may be busy running script)"
        ) from None
    except errors.CdpError as exc:
        if tab.crashed:
            raise errors.TabCrashed(
                f"tab {tab.tab_id} crashed; close it and open a new one"
            ) from None
        if exc.document_gone:
            raise errors.TabLoading(
                "the tab is navigating: its document went away during the snapshot; "
                "wait for the page to load and take it again"
            ) from None
        raise
    finally:
        lock.release()


def _take(tab, opts: Options, deadline: float) -> dict:
    store = refstore.store(tab)
    root = _root_target(tab, opts, store, deadline)
    mode = "ai" if opts.refs else "default"
    text, refs, frames, counter, chrome, page = _walk_tree(tab, root, opts, mode, store, deadline)
    if root.prefix == "" and page:
        tab.url, tab.title = page[0], page[1]
    whole = _shape(text, opts, page[3] if page else tab.url)
    text, truncated = ariatext.truncate(whole, opts.max_chars)
    held = None
    if truncated and opts.refs:  # the next pages' refs are this snapshot's: kept with it
        held = refstore.Held(whole, _loader_id(tab, deadline), opts.max_chars, chrome)
    kept = ariatext.refs_in(whole if held else text)
    refs = {ref: info for ref, info in refs.items() if ref in kept}
    serial = 0
    if opts.refs:
        if root.prefix in frames:  # the scope a role ref's nth was counted in
            frames[root.prefix] = replace(frames[root.prefix], selector=opts.selector)
        serial = store.replace(refs, frames, counter, mode=opts.ref_mode, held=held)
    for session in {frame.session for frame in frames.values()}:
        inject.preload(session)  # the tab's later documents get the walker as they start
    shown = ariatext.refs_in(text) if held else kept
    body = _response(
        tab, opts, text, {r: i for r, i in refs.items() if r in shown}, truncated, chrome
    )
    if held:
        body["next"] = _cursor(store.key, serial, ariatext.kept_lines(text))
    return body


# -- cursors: the pages after a truncated snapshot -------------------------------------------------
def more(tab, cursor: str, max_chars: int | None = None, timeout_ms: int = 20000) -> dict:
    """The page of the tab's latest snapshot a cursor names, with its refs and the next cursor;
    SnapshotStale (409) once another snapshot was taken or the tab's document changed."""
    key, serial, offset = _read_cursor(cursor)
    tab.check_usable()
    store = refstore.store(tab)
    with store.lock:
        held, latest, refs = store.held, store.serial, store.refs
    if key != store.key or serial > latest:
        raise errors.InvalidRequest(f"cursor={cursor!r} is not one of this tab's snapshots")
    if serial < latest or held is None:
        raise errors.SnapshotStale(
            "a newer snapshot of this tab replaced the one this cursor pages; take a new snapshot"
        )
    if offset > held.text.count("\n"):
        raise errors.InvalidRequest(f"cursor={cursor!r} points past its snapshot's end")
    try:
        loader_id = _loader_id(tab, time.monotonic() + timeout_ms / 1000)
    except errors.CdpTimeout:
        raise errors.RequestTimeout(
            f"the tab did not answer within timeoutMs={timeout_ms} (it may be busy running script)"
        ) from None
    if loader_id != held.loader_id:
        raise errors.SnapshotStale(
            "the tab's document changed since the snapshot this cursor pages; take a new snapshot"
        )
    limit = held.max_chars if max_chars is None else max_chars
    text, after = ariatext.page(held.text, offset, limit)
    shown = ariatext.refs_in(text)
    page_refs = {ref: info for ref, info in refs.items() if ref in shown}
    body = _response(tab, None, text, page_refs, after is not None, held.chrome)
    if after is not None:
        body["next"] = _cursor(key, serial, after)
    return body


def _cursor(key: str, serial: int, offset: int) -> str:
    """Opaque to the agent: which tab's snapshot, and the line its next page starts at."""
    raw = json.dumps([key, serial, offset], separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _read_cursor(cursor: str) -> tuple[str, int, int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key, serial, offset = json.loads(raw)
    except (binascii.Error, ValueError, TypeError):
        raise errors.InvalidRequest(
            f"cursor={cursor!r} is not a snapshot cursor (use the `next` of a truncated snapshot)"
        ) from None
    if not (isinstance(key, str) and _natural(serial) and _natural(offset)):
        raise errors.InvalidRequest(f"cursor={cursor!r} is not a snapshot cursor")
    return key, serial, offset


def _natural(value) -> bool:
    return type(value) is int and value >= 0


def _loader_id(tab, deadline: float) -> str:
    """The tab's current document: its main frame's loader changes with every navigation."""
    tree = tab.session.call("Page.getFrameTree", timeout=_left(deadline))
    return tree["frameTree"]["frame"].get("loaderId", "")


def _shape(text: str, opts: Options, base_url: str) -> str:
    """The line operations asked for (absolute urls, depth, compact, interactive); a text
    that needs none is left as it is (on big.html, parsing and rendering it costs 10 ms)."""
    if not (opts.urls or opts.depth is not None or opts.compact or opts.interactive):
        return text
    lines = ariatext.parse(text)
    if opts.urls:
        lines = ariatext.absolute_urls(lines, base_url)
    if opts.depth is not None and not opts.interactive:
        lines = ariatext.depth(lines, opts.depth)
    if opts.compact:
        lines = ariatext.compact(lines)
    cut = 0
    if opts.interactive:  # depth applies to the lines' levels before they are made flat
        if opts.depth is not None:
            cut = ariatext.cut_by_depth(lines, opts.depth)
        lines = ariatext.interactive(lines, opts.depth)
    text = ariatext.render(lines)
    if opts.interactive and not text:
        text = "(no interactive elements)"
    if cut:  # said on the page, where an agent reads
        text += (
            f"\n- text: ({cut} interactive elements deeper than depth={opts.depth} "
            "not shown; ask without depth to see them)"
        )
    return text


def _response(
    tab, opts: Options | None, text: str, refs: dict, truncated: bool, chrome: int
) -> dict:
    # each ref is on one line: the interactive lines are counted from the refs, not by parsing
    interactive = sum(
        1 for info in refs.values() if info["role"] in ariatext.INTERACTIVE_ROLES or info["cursor"]
    )
    body = {
        "format": "ai",
        "url": tab.url,
        "snapshot": text,
        "refs": {ref: _public(info) for ref, info in refs.items()},
        "stats": {
            "lines": sum(1 for line in text.split("\n") if line),
            "chars": len(text),
            "refs": len(refs),
            "interactive": interactive,
            "chromeNames": chrome,
        },
    }
    if truncated:
        body["truncated"] = True
    return body


def _public(info: dict) -> dict:
    out = {"role": info["role"], "name": info["name"]}
    if info.get("nth"):
        out["nth"] = info["nth"]
    return out


# -- frames ---------------------------------------------------------------------------------------
def _left(deadline: float) -> float:
    """Seconds left for the snapshot; none left is its timeout."""
    return left_or_raise(deadline, errors.RequestTimeout, aria.LATE)


def _main_frame_id(session, deadline: float) -> str:
    if session.target_id:  # a page target's main frame has the target's id
        return session.target_id
    return session.call("Page.getFrameTree", timeout=_left(deadline))["frameTree"]["frame"]["id"]


def _root_target(tab, opts: Options, store, deadline: float) -> Target:
    main = Target(tab.session, _main_frame_id(tab.session, deadline), "")
    if not opts.frame:
        return main
    if (
        ref_syntax.CANONICAL.match(ref_syntax.normalize(opts.frame)) and "ax" not in opts.frame
    ):  # else CSS
        resolved = refstore.resolve_ref(tab, opts.frame)
        if resolved.role != "iframe":
            raise errors.InvalidRequest(f"frame={opts.frame} is a {resolved.role}, not an iframe")
        return _frame_of_node(
            tab, resolved.session, {"backendNodeId": resolved.backend_node_id}, store, deadline
        )
    reply = tab.session.call(
        "Runtime.evaluate",
        {"expression": f"document.querySelector({_js(opts.frame)})"},
        timeout=_left(deadline),
    )
    if "exceptionDetails" in reply:
        raise errors.InvalidRequest(f"frame={opts.frame!r} is not a valid CSS selector")
    if reply["result"].get("subtype") == "null":
        raise errors.FrameNotFound(f"no element matches frame={opts.frame!r}")
    return _frame_of_node(
        tab, tab.session, {"objectId": reply["result"]["objectId"]}, store, deadline
    )


def _frame_of_node(tab, session, node_ref: dict, store, deadline: float) -> Target:
    node = session.call("DOM.describeNode", node_ref, timeout=_left(deadline))["node"]
    target = _frame_target(tab, session, node, store, deadline)
    if target is None:
        raise errors.InvalidRequest(
            f"frame= names a <{node.get('nodeName', '?').lower()}>, not an iframe"
        )
    return target


def _frame_target(tab, session, node: dict, store, deadline: float) -> Target | None:
    """The frame a described <iframe> of `session`'s document holds: in a session of its own
    when out of process, else in `session`'s (a frame inside an out-of-process frame lives in
    that frame's process); None for a node that holds none."""
    frame_id = node.get("frameId") if node.get("nodeName") in ("IFRAME", "FRAME") else None
    if not frame_id:
        return None
    child = tab.child_sessions().get(frame_id)
    if child is not None:
        return Target(child, _main_frame_id(child, deadline), store.prefix_for(frame_id))
    return Target(session, frame_id, store.prefix_for(frame_id))


def _js(value: str) -> str:
    import json

    return json.dumps(value)


def _walk_tree(tab, root: Target, opts: Options, mode: str, store, deadline: float):
    """Walk `root` and, depth first, every iframe inside it; returns text, refs, frames, counter."""
    refs: dict[str, dict] = {}
    frames: dict[str, refstore.FrameRefs] = {}
    counter = store.counter
    state = {"frames": 0, "chrome": 0, "page": None}

    def walk(target: Target, selector: str | None) -> str:
        nonlocal counter
        walk_opts = aria.Walk(
            target.session,
            target.frame_id,
            mode,
            target.prefix,
            selector,
            deadline,
            root=target is root,
            context=target.context,
        )
        try:
            result = aria.walk_frame(walk_opts, counter)
        except errors.CdpError as exc:
            if target is root:
                raise
            return f"- text: (frame not available: {exc.message})"
        counter = max(counter, result.last)
        if target is root:
            state["page"] = result.page
        state["chrome"] += result.chrome_names
        frames[target.prefix] = refstore.FrameRefs(target.session, target.frame_id)
        for ref, role, name, nth, cursor in result.refs:
            refs[ref] = {
                "role": role,
                "name": name,
                "nth": nth,
                "cursor": cursor,
                "prefix": target.prefix,
            }
        text = result.text
        iframes = result.iframes[: max(0, MAX_FRAMES - state["frames"])]
        described = [ref for ref in iframes if ref not in result.empty_frames]
        targets, bare = _iframe_targets(
            tab, target, result.context, described, store, deadline, result.blank_frames
        )
        children, empty = dict(zip(described, targets)), result.empty_frames | bare
        for iframe_ref in iframes:
            state["frames"] += 1  # nested ones count too: the cap is for the whole snapshot
            if state["frames"] > MAX_FRAMES:
                break
            if iframe_ref in empty:
                text = aria.splice(text, iframe_ref, "")  # as its walk would: nothing under it
            elif children[iframe_ref] is not None:
                text = aria.splice(text, iframe_ref, walk(children[iframe_ref], None))
        return text

    text = walk(root, opts.selector)
    return text, refs, frames, counter, state["chrome"], state["page"]


def _iframe_targets(
    tab,
    parent: Target,
    context: int,
    iframe_refs: list[str],
    store,
    deadline: float,
    blank: set[str] = frozenset(),
) -> tuple[list[Target | None], set[str]]:
    """The frames of a document's iframes, in order (None for one that is gone or holds no
    frame), with their worlds made: the elements found in one evaluate, described in one
    pipelined batch, the worlds asked for together. One at a time that was four round trips an
    iframe before its walk (a page with 14 ad frames spent 370 ms on them). The `blank` ones
    (empty unless their body hosts a closed shadow root) are described with their document: the
    refs of those whose body hosts none come back as the second value, with no target made."""
    if not iframe_refs:
        return [], set()
    session = parent.session
    walk = aria.Walk(session, parent.frame_id, "ai", deadline=deadline)
    try:
        ids = aria.element_ids(
            walk, context, f"__clawd.elements({_js(iframe_refs)})", len(iframe_refs)
        )
        calls = [
            ("DOM.describeNode", _describe_params(object_id, ref in blank))
            for ref, object_id in zip(iframe_refs, ids)
        ]
        described = [
            (reply or {}).get("node") or {} for reply in aria.pipelined(session, calls, walk)
        ]
    finally:
        session.send_and_forget("Runtime.releaseObjectGroup", {"objectGroup": aria.GROUP})
    empty = {ref for ref, node in zip(iframe_refs, described) if ref in blank and _bare_body(node)}
    targets = [
        None if ref in empty else _frame_target(tab, session, node, store, deadline)
        for ref, node in zip(iframe_refs, described)
    ]
    found = [t for t in targets if t is not None]
    made = inject.worlds([(t.session, t.frame_id) for t in found], walk.remaining)
    for target, world in zip(found, made):
        target.context = world
    return targets, empty


def _describe_params(object_id: str | None, with_document: bool) -> dict:
    if not with_document:
        return {"objectId": object_id}
    # the iframe (0), its document (1), <html> (2), <body> (3) with its shadow roots, closed too
    return {"objectId": object_id, "depth": 3, "pierce": True}


def _bare_body(iframe: dict) -> bool:
    """Whether a described <iframe>'s document has a body without children or shadow roots."""
    document = iframe.get("contentDocument") or {}
    html = next((n for n in document.get("children", ()) if n.get("nodeName") == "HTML"), {})
    body = next((n for n in html.get("children", ()) if n.get("nodeName") == "BODY"), None)
    return body is not None and not body.get("shadowRoots") and not body.get("childNodeCount")


# -- find and labels ------------------------------------------------------------------------------
def find(tab, options: Options, pattern: str) -> dict:
    """The lines whose name or text matches, each with its ref and path:
    `{url, text, matches, count}`."""
    opts = replace(
        options, interactive=False, compact=False, depth=None, max_chars=0, mode=None, refs=True
    )
    taken = take(tab, opts)
    try:
        matches = ariatext.find(
            ariatext.parse(taken["snapshot"]), pattern, limit=options.limit or 50
        )
    except re.error as exc:
        raise errors.InvalidRequest(f"text is not a valid /regex/: {exc}") from None
    return {"url": tab.url, "text": pattern, "matches": matches, "count": len(matches)}


@dataclass(frozen=True)
class Labelled:
    """A viewport screenshot with refs drawn on it: the image, its type (png or jpeg), how many
    refs were labelled and how many were not (off screen, hidden, in an iframe)."""

    image: bytes
    type: str
    drawn: int
    skipped: int

    @property
    def suffix(self) -> str:
        return ".jpg" if self.type == "jpeg" else ".png"


def labels(tab, refs: dict, *, timeout_ms: int = 20000) -> Labelled:
    """A viewport screenshot with every ref of the main frame outlined and labelled."""
    from clawd.page.observe import capture

    main = [ref for ref in refs if not ref.startswith("f")]
    deadline = time.monotonic() + timeout_ms / 1000
    context = inject.world(tab.session, _main_frame_id(tab.session, deadline), _left(deadline))
    drawn = aria.evaluate(tab.session, context, f"__clawd.drawLabels({_js(main)})", _left(deadline))
    try:
        data, kind = capture.screenshot(tab, timeout=_left(deadline))
    finally:
        tab.session.try_call(
            "Runtime.evaluate", {"expression": "__clawd.clearLabels()", "contextId": context}
        )
    return Labelled(data, kind, drawn["drawn"], drawn["skipped"] + len(refs) - len(main))
