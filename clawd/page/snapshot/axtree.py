"""format=aria: Chrome's raw accessibility tree as a flat node list with `ax` refs
(Accessibility.getFullAXTree; ignored nodes are skipped, their children keep their depth)."""

from __future__ import annotations

import time

from clawd import errors
from clawd.page.snapshot import refs as refstore


def take(tab, options) -> dict:
    """A format=aria snapshot: `{format, url, nodes, truncated, stats}`."""
    tab.check_usable()
    timeout = options.timeout_ms / 1000
    deadline = time.monotonic() + timeout
    frame_id = tab.session.call("Page.getFrameTree", timeout=timeout)["frameTree"]["frame"]["id"]
    try:
        nodes = tab.session.call(
            "Accessibility.getFullAXTree", timeout=max(0.1, deadline - time.monotonic())
        )["nodes"]
    except errors.CdpTimeout:
        raise errors.RequestTimeout(
            "the accessibility tree did not arrive within timeoutMs"
        ) from None
    store = refstore.store(tab)
    flat = flatten(nodes, options.limit, store.ax_counter)
    held = {}
    for entry in flat:
        held[entry["ref"]] = {
            "session": tab.session,
            "backend": entry.get("backendDOMNodeId"),
            "frame": frame_id,
            "role": entry["role"],
            "name": entry["name"],
        }
    held = {ref: info for ref, info in held.items() if info["backend"] is not None}
    counter = max([int(ref[2:]) for ref in held] + [store.ax_counter])
    store.replace_ax(held, counter)
    return {
        "format": "aria",
        "url": tab.url,
        "nodes": flat,
        "truncated": len(flat) >= options.limit and len(nodes) > len(flat),
        "stats": {"nodes": len(flat), "total": len(nodes)},
    }


def flatten(nodes: list[dict], limit: int, base: int) -> list[dict]:
    """Depth-first, document order; `ax` numbers continue from `base` so none is ever reused."""
    by_id = {node["nodeId"]: node for node in nodes}
    roots = [node for node in nodes if not node.get("parentId") or node["parentId"] not in by_id]
    out: list[dict] = []
    stack = [(node, 0) for node in reversed(roots)]
    while stack and len(out) < limit:
        node, depth = stack.pop()
        child_depth = depth
        if not node.get("ignored"):
            out.append(_entry(node, depth, base + len(out) + 1))
            child_depth = depth + 1
        for child_id in reversed(node.get("childIds") or []):
            child = by_id.get(child_id)
            if child is not None:
                stack.append((child, child_depth))
    return out


def _entry(node: dict, depth: int, number: int) -> dict:
    entry = {
        "ref": f"ax{number}",
        "role": _value(node.get("role")),
        "name": _value(node.get("name")),
        "depth": depth,
    }
    for key in ("value", "description"):
        value = _value(node.get(key))
        if value not in ("", None):
            entry[key] = value
    if "backendDOMNodeId" in node:
        entry["backendDOMNodeId"] = node["backendDOMNodeId"]
    return entry


def _value(prop: dict | None):
    if not prop:
        return ""
    value = prop.get("value", "")
    return value if isinstance(value, str) else str(value)
