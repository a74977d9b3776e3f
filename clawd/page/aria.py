"""The in-page half of snapshots: the aria walker (page/js/*.js) in an isolated world of each
frame, Chrome's own accessible names for the nodes whose names the walker cannot vouch for,
and the splicing of iframe documents into their parent's text.

Why a hybrid (measured, see bench/snapshot.py): Accessibility.getFullAXTree costs more than
Playwright's whole snapshot on large pages (Chrome computes and serializes every node's name
with its sources), so the walker builds the tree in the page, and Chrome is asked, one node at a
time and pipelined, only for names that are not plain text or a plain aria-label.
"""
from __future__ import annotations

import importlib.resources
import json
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from clawd import errors
from clawd.cdp.session import Session

WORLD = "clawd"
PIPELINE = 16   # getPartialAXTree calls in flight
_SCRIPT: str | None = None


def script() -> str:
    global _SCRIPT
    if _SCRIPT is None:
        files = importlib.resources.files("clawd.page") / "js"
        parts = [(files / name).read_text(encoding="utf-8") for name in ("playwright_aria.js", "snapshot.js")]
        _SCRIPT = "(() => {\n" + "\n".join(parts) + "\n})();"
    return _SCRIPT


@dataclass
class FrameText:
    """One frame's rendered text and refs [(ref, role, name, nth, cursor)]; iframes spliced in."""
    text: str
    refs: list[list] = field(default_factory=list)
    last: int = 0
    chrome_names: int = 0


@dataclass
class Walk:
    """Where and how to walk: the session owning the frame, the frame, the options."""
    session: Session
    frame_id: str
    mode: str                 # "ai" (refs) or "default" (Playwright's ariaSnapshot(), no refs)
    prefix: str = ""
    selector: str | None = None
    deadline: float = 0.0

    def remaining(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise errors.RequestTimeout("the snapshot did not finish within timeoutMs")
        return left


def world(session: Session, frame_id: str, timeout: float) -> int:
    """The execution context of clawd's isolated world in `frame_id` (created on first use;
    Chrome hands back the same world for the same name while the document lives)."""
    reply = session.call("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD,
                                                     "grantUniveralAccess": False}, timeout=timeout)
    return reply["executionContextId"]


def evaluate(session: Session, context_id: int, expression: str, timeout: float, *, by_value: bool = True):
    reply = session.call("Runtime.evaluate", {"expression": expression, "contextId": context_id,
                                              "returnByValue": by_value, "awaitPromise": False},
                         timeout=timeout)
    if "exceptionDetails" in reply:
        details = reply["exceptionDetails"]
        text = details.get("exception", {}).get("description") or details.get("text", "")
        raise errors.CdpError(f"snapshot script failed: {text.splitlines()[0] if text else 'unknown error'}",
                              method="Runtime.evaluate")
    return reply["result"].get("value") if by_value else reply["result"]


def walk_frame(walk: Walk, base: int) -> FrameText:
    """Snapshot one frame's document (not its iframes) into text and refs."""
    context = world(walk.session, walk.frame_id, walk.remaining())
    options = json.dumps({"mode": walk.mode, "refPrefix": walk.prefix, "base": base, "selector": walk.selector})
    built = evaluate(walk.session, context, f"globalThis.__clawd ? __clawd.build({options}) : null", walk.remaining())
    if built is None:
        evaluate(walk.session, context, script(), walk.remaining())
        built = evaluate(walk.session, context, f"__clawd.build({options})", walk.remaining())
    if built.get("error") == "selector":
        raise errors.SelectorNotFound(f"no element matches the selector {walk.selector!r}")
    names = chrome_names(walk, context) if built["pending"] else []
    rendered = built.get("rendered") or evaluate(
        walk.session, context, f"__clawd.render({json.dumps(names)}, {json.dumps(walk.mode == 'ai')})",
        walk.remaining())
    result = FrameText(rendered["text"], rendered["refs"], rendered["last"], len(names))
    result.iframes = rendered["iframes"]
    result.context = context
    result.page = built["page"]
    return result


def chrome_names(walk: Walk, context: int) -> list[str | None]:
    """Chrome's accessible names of the pending nodes, in order (None where Chrome has none)."""
    session = walk.session
    array = evaluate(session, context, "__clawd.pendingElements()", walk.remaining(), by_value=False)
    try:
        props = session.call("Runtime.getProperties", {"objectId": array["objectId"], "ownProperties": True},
                             timeout=walk.remaining())["result"]
        ids = {int(p["name"]): p["value"]["objectId"] for p in props
               if p["name"].isdigit() and p.get("value", {}).get("objectId")}
        count = max(ids) + 1 if ids else 0
        return _partial_names(session, [ids.get(i) for i in range(count)], walk)
    finally:
        session.try_call("Runtime.releaseObjectGroup", {"objectGroup": "console"})
        session.try_call("Runtime.releaseObject", {"objectId": array["objectId"]})


def _partial_names(session: Session, object_ids: list[str | None], walk: Walk) -> list[str | None]:
    """One getPartialAXTree per node, many in flight at once: the round trips overlap."""
    def name_of(object_id: str | None) -> str | None:
        if object_id is None:
            return None
        try:
            reply = session.call("Accessibility.getPartialAXTree",
                                 {"objectId": object_id, "fetchRelatives": False}, timeout=walk.remaining())
        except errors.CdpError:
            return None
        nodes = reply.get("nodes") or []
        return _node_name(nodes[0]) if nodes else None

    if len(object_ids) < 4:
        return [name_of(object_id) for object_id in object_ids]
    with ThreadPoolExecutor(max_workers=PIPELINE, thread_name_prefix="ax-names") as pool:
        return list(pool.map(name_of, object_ids))


def _node_name(node: dict) -> str | None:
    if node.get("ignored"):
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
            lines[index + 1:index + 1] = inner
            break
    return "\n".join(lines)
