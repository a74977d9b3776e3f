"""Screenshots and PDFs of a tab. Images are bounded (2000 px a side, 5 MB) so they can go
straight into a model's context; PDFs are streamed to disk, never held whole."""
from __future__ import annotations

import base64
import pathlib

from clawd import errors
from clawd.browser.tab import Tab

MAX_SIDE = 2000
MAX_BYTES = 5 * 1024 * 1024
JPEG_QUALITIES = (85, 70, 55, 40)
PDF_CHUNK = 1 << 20


def screenshot(tab: Tab, *, full_page: bool = False, clip: dict | None = None, type: str = "png",
               quality: int | None = None, timeout: float = 30.0) -> tuple[bytes, str]:
    """(image bytes, type). `clip` is a page-coordinate box {x, y, width, height}."""
    if type not in ("png", "jpeg"):
        raise errors.InvalidRequest("type must be png or jpeg")
    box = clip or (_page_box(tab) if full_page else None)
    params: dict = {"format": type, "captureBeyondViewport": bool(box)}
    if box is not None:
        params["clip"] = {**box, "scale": _scale_for(box)}
    else:
        params["clip"] = {**_viewport_box(tab), "scale": 1}
        params["clip"]["scale"] = _scale_for(params["clip"])
    if type == "jpeg" and quality is not None:
        params["quality"] = int(quality)
    data = _capture(tab, params, timeout)
    for q in JPEG_QUALITIES:   # still too large for a model: fall back to smaller JPEGs
        if len(data) <= MAX_BYTES:
            break
        type, data = "jpeg", _capture(tab, {**params, "format": "jpeg", "quality": q}, timeout)
    return data, type


def _capture(tab: Tab, params: dict, timeout: float) -> bytes:
    answer = tab.session.call("Page.captureScreenshot", params, timeout=timeout)
    return base64.b64decode(answer["data"])


def _scale_for(box: dict) -> float:
    longest = max(box["width"], box["height"], 1)
    return min(1.0, MAX_SIDE / longest)


def _page_box(tab: Tab) -> dict:
    metrics = tab.session.call("Page.getLayoutMetrics")
    size = metrics.get("cssContentSize") or metrics["contentSize"]
    return {"x": 0, "y": 0, "width": max(1, size["width"]), "height": max(1, size["height"])}


def _viewport_box(tab: Tab) -> dict:
    metrics = tab.session.call("Page.getLayoutMetrics")
    view = metrics.get("cssVisualViewport") or metrics["visualViewport"]
    return {"x": view["pageX"], "y": view["pageY"], "width": max(1, view["clientWidth"]),
            "height": max(1, view["clientHeight"])}


def node_box(tab: Tab, *, backend_node_id: int | None = None, selector: str | None = None,
             session=None) -> dict:
    """A node's border box in page coordinates, by backend node id or CSS selector."""
    session = session or tab.session
    if selector is not None:
        backend_node_id = _query(tab, selector)
    try:
        session.call("DOM.scrollIntoViewIfNeeded", {"backendNodeId": backend_node_id})
        quad = session.call("DOM.getBoxModel", {"backendNodeId": backend_node_id})["model"]["border"]
    except errors.CdpError as exc:
        raise errors.ActElementHidden(f"the element has no box to capture ({exc.message})") from None
    xs, ys = quad[0::2], quad[1::2]
    view = session.call("Page.getLayoutMetrics").get("cssVisualViewport", {})
    x0, y0 = min(xs) + view.get("pageX", 0), min(ys) + view.get("pageY", 0)
    width, height = max(xs) - min(xs), max(ys) - min(ys)
    if width < 1 or height < 1:
        raise errors.ActElementHidden("the element has zero size")
    return {"x": x0, "y": y0, "width": width, "height": height}


def _query(tab: Tab, selector: str) -> int:
    doc = tab.session.call("DOM.getDocument", {"depth": 0})
    try:
        node_id = tab.session.call("DOM.querySelector", {"nodeId": doc["root"]["nodeId"], "selector": selector})["nodeId"]
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
        raise errors.ClawdError(f"printing to PDF failed: {exc.message} (PDF needs headless Chromium)",
                                ) from None
    size = 0
    try:
        with open(out, "wb") as sink:
            while True:
                chunk = tab.session.call("IO.read", {"handle": handle, "size": PDF_CHUNK}, timeout=timeout)
                data = chunk.get("data", "")
                piece = base64.b64decode(data) if chunk.get("base64Encoded") else data.encode("latin-1")
                sink.write(piece)
                size += len(piece)
                if chunk.get("eof"):
                    break
    finally:
        tab.session.try_call("IO.close", {"handle": handle})
    return size
