"""Screenshots and PDFs of a tab. Images are bounded (2000 px a side, or less on request, and 5 MB)
so they can go straight into a model's context; PDFs are streamed to disk, never held whole."""

from __future__ import annotations

import base64
import pathlib
import struct
import threading
import time
import weakref

from clawd import errors
from clawd.browser.tab import Tab
from clawd.deadline import remaining
from clawd.page.observe.iostream import copy_stream

MAX_SIDE = 2000
MAX_BYTES = 5 * 1024 * 1024
JPEG_QUALITIES = (85, 70, 55, 40)
PDF_CHUNK = 1 << 20
_CAPTURE_LOCKS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # per browser
_LOCKS_GUARD = threading.Lock()


def screenshot(
    tab: Tab,
    *,
    full_page: bool = False,
    clip: dict | None = None,
    type: str = "png",
    quality: int | None = None,
    timeout: float = 30.0,
    max_side: int = MAX_SIDE,
) -> tuple[bytes, str]:
    """(image bytes, type), at most `max_side` px on the long side. `clip` is a page-coordinate box
    {x, y, width, height}."""
    if type not in ("png", "jpeg"):
        raise errors.InvalidRequest("type must be png or jpeg")
    max_side = max(1, min(MAX_SIDE, int(max_side)))
    box = clip or (_page_box(tab) if full_page else None)
    params: dict = {"format": type, "captureBeyondViewport": bool(box)}
    box = box or _viewport_box(tab)
    params["clip"] = {**box, "scale": _scale_for(box, max_side)}
    if type == "jpeg" and quality is not None:
        params["quality"] = int(quality)
    data = _capture(tab, params, timeout)
    params, data = _within(tab, params, data, max_side, timeout)
    for q in JPEG_QUALITIES:  # still too large for a model: fall back to smaller JPEGs
        if len(data) <= MAX_BYTES:
            break
        type, data = "jpeg", _capture(tab, {**params, "format": "jpeg", "quality": q}, timeout)
    return data, type


def _capture(tab: Tab, params: dict, timeout: float) -> bytes:
    # Headless Chromium often never answers Page.captureScreenshot for a background tab (5 of 15
    # calls hung here, sequentially); a tab brought to the front always answered. Tabs clawd opens
    # headless have a window each and are visible; a hidden one (a popup opened behind its opener)
    # is brought to the front first, one capture of a browser at a time so no other comes forward.
    deadline = time.monotonic() + timeout
    if _visible(tab, timeout):
        answer = tab.session.call("Page.captureScreenshot", params, timeout=timeout)
        return base64.b64decode(answer["data"])
    lock = _capture_lock(tab)
    if not lock.acquire(timeout=timeout):
        raise errors.CdpTimeout(
            f"screenshots of other tabs held tab {tab.tab_id} back for {timeout:g} s"
        )
    try:
        tab.session.call("Page.bringToFront", timeout=remaining(deadline, at_least=0.1))
        answer = tab.session.call(
            "Page.captureScreenshot", params, timeout=remaining(deadline, at_least=0.1)
        )
    finally:
        lock.release()
    return base64.b64decode(answer["data"])


def _visible(tab: Tab, timeout: float) -> bool:
    answer = tab.session.call(
        "Runtime.evaluate",
        {"expression": "document.visibilityState", "returnByValue": True},
        timeout=timeout,
    )
    return (answer.get("result") or {}).get("value") == "visible"


def _capture_lock(tab: Tab) -> threading.Lock:
    owner = tab.owner if tab.owner is not None else tab
    with _LOCKS_GUARD:
        return _CAPTURE_LOCKS.setdefault(owner, threading.Lock())


def _scale_for(box: dict, max_side: int = MAX_SIDE) -> float:
    longest = max(box["width"], box["height"], 1)
    return min(1.0, max_side / longest)


def _within(
    tab: Tab, params: dict, data: bytes, max_side: int, timeout: float
) -> tuple[dict, bytes]:
    """Capture again, smaller, when the image came out larger than asked: the clip scale is in CSS
    pixels and an emulated device pixel ratio (2 on a phone) multiplies it, unseen by layout
    metrics."""
    longest = max(image_size(data))
    if longest <= max_side:
        return params, data
    clip = params["clip"]
    # floor to 1/10000: rounding up a hair would give max_side + 1 px
    scale = int(clip["scale"] * max_side / longest * 10000) / 10000
    params = {**params, "clip": {**clip, "scale": scale}}
    return params, _capture(tab, params, timeout)


def image_size(data: bytes) -> tuple[int, int]:
    """(width, height) of a PNG or JPEG, read from its header; (0, 0) for anything else."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:2] == b"\xff\xd8":
        return _jpeg_size(data)
    return 0, 0


def _jpeg_size(data: bytes) -> tuple[int, int]:
    at = 2
    while at + 9 <= len(data):
        if data[at] != 0xFF:
            return 0, 0
        marker, length = data[at + 1], struct.unpack(">H", data[at + 2 : at + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF):
            height, width = struct.unpack(">HH", data[at + 5 : at + 9])  # start of frame
            return width, height
        at += 2 + length
    return 0, 0


def _page_box(tab: Tab) -> dict:
    metrics = tab.session.call("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    return {"x": 0, "y": 0, "width": max(1, size["width"]), "height": max(1, size["height"])}


def _viewport_box(tab: Tab) -> dict:
    metrics = tab.session.call("Page.getLayoutMetrics")
    view = metrics.get("cssVisualViewport") or metrics["visualViewport"]
    return {
        "x": view["pageX"],
        "y": view["pageY"],
        "width": max(1, view["clientWidth"]),
        "height": max(1, view["clientHeight"]),
    }


def node_box(
    tab: Tab, *, backend_node_id: int | None = None, selector: str | None = None, session=None
) -> dict:
    """A node's border box in page coordinates, by backend node id or CSS selector."""
    session = session or tab.session
    if selector is not None:
        backend_node_id = backend_node_of(tab, selector)
    try:
        session.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend_node_id})
        quad = session.call("DOM.getBoxModel", {"backendNodeId": backend_node_id})["model"][
            "border"
        ]
    except errors.CdpError as exc:
        raise errors.ActElementHidden(
            f"the element has no box to capture ({exc.message})"
        ) from None
    xs, ys = quad[0::2], quad[1::2]
    view = session.call("Page.getLayoutMetrics").get("cssVisualViewport", {})
    x0, y0 = min(xs) + view.get("pageX", 0), min(ys) + view.get("pageY", 0)
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    if width < 1 or height < 1:
        raise errors.ActElementHidden("the element has zero size")
    return {"x": x0, "y": y0, "width": width, "height": height}


def backend_node_of(tab: Tab, selector: str) -> int:
    """The first element of the page matching CSS `selector` (a request's `element`): 400 when the
    selector is not valid CSS, 404 SELECTOR_NOT_FOUND when nothing matches."""
    doc = tab.session.call("DOM.getDocument", {"depth": 0})
    try:
        node_id = tab.session.call(
            "DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": selector}
        )["nodeId"]
    except errors.CdpError:
        raise errors.InvalidRequest(f"element: {selector!r} is not a valid CSS selector") from None
    if not node_id:
        raise errors.SelectorNotFound(f"no element matches {selector!r}")
    return tab.session.call("DOM.describeNode", {"nodeId": node_id})["node"]["backendNodeId"]


def pdf(tab: Tab, out: pathlib.Path, *, timeout: float = 60.0, **options) -> int:
    """Print the page to `out` through an IO stream; returns the byte count."""
    params = {"printBackground": True, "transferMode": "ReturnAsStream", **options}
    try:
        handle = tab.session.call("Page.printToPDF", params, timeout=timeout)["stream"]
    except errors.CdpError as exc:
        raise errors.ClawdError(
            f"printing to PDF failed: {exc.message} (PDF needs headless Chromium)",
        ) from None
    with open(out, "wb") as sink:
        return copy_stream(tab.session, handle, sink, chunk_size=PDF_CHUNK, timeout=timeout)
