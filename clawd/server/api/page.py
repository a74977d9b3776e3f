"""Navigation, screenshots, PDFs and serving media files."""

from __future__ import annotations

import hashlib

from clawd import errors
from clawd.browser.tab import StateKey
from clawd.page.observe import capture, vision
from clawd.page.snapshot.refs import resolve_ref
from clawd.page.state.navigation import navigate as navigate_tab
from clawd.server.answers import tab_answer
from clawd.server.api.snapshot import labelled_screenshot
from clawd.server.handler import FileResponse
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked


def navigate(req: Request) -> dict:
    req.service.policy.check(req.args["url"])
    tab = req.tab()
    state = navigate_tab(
        tab,
        req.args["url"],
        policy=req.service.policy,
        timeout=req.args.get("timeoutMs", 30000) / 1000,
    )
    return as_asked(tab_answer(tab, **state), req.args.get("wrap", False))  # the page's title


def screenshot(req: Request) -> dict:
    a = req.args
    tab = req.tab()
    describe = _describing(req)
    if a.get("labels") and a.get("describe") is True:
        raise errors.InvalidRequest("labels and describe cannot be combined")
    if a.get("labels"):  # the labelled screenshot is a snapshot feature
        return labelled_screenshot(req, tab)
    clip = None
    if a.get("ref"):
        clip = _ref_box(tab, a["ref"])
    elif a.get("element"):
        clip = capture.node_box(tab, selector=a["element"])
    max_side = a.get("maxSide", capture.MAX_SIDE)
    if describe:  # describers get it no larger than vision.maxSide: Chromium scales it for us
        max_side = min(max_side, req.config.browser.vision.max_side)
    data, kind = capture.screenshot(
        tab,
        full_page=a.get("fullPage", False),
        clip=clip,
        type=a.get("type", "png"),
        quality=a.get("quality"),
        max_side=max_side,
    )
    width, height = capture.image_size(data)
    answer = tab_answer(tab, type=kind, width=width, height=height)
    same = _same_as_last(tab, (kind, a.get("quality"), clip, a.get("fullPage"), max_side), data)
    if same and a.get("ifChanged"):
        return {**answer, "unchanged": True}
    suffix = ".jpg" if kind == "jpeg" else ".png"
    if describe:
        return {**answer, **_described(req, data, suffix)}
    return {**answer, **req.service.media.save("screenshot", suffix, data)}


LAST_SHOT = StateKey("screenshot.last", lambda tab: {})


def _same_as_last(tab, shape: tuple, data: bytes) -> bool:
    """Whether `data` is the tab's last screenshot of the same shape (format, quality, clip, size),
    by a hash of the encoded bytes: Chromium encodes the same pixels to the same bytes, and
    hashing 1 MB costs about a millisecond where decoding the PNG costs tens. Keeps this one."""
    digest = hashlib.sha256(data).digest()
    last = tab.state[LAST_SHOT]
    same = last.get("shape") == shape and last.get("digest") == digest
    last.update(shape=shape, digest=digest)
    return same


def _describing(req: Request) -> bool:
    """describe: true or false as asked; "auto" (the agent tool's) when vision is enabled."""
    describe = req.args.get("describe")
    if describe == "auto":
        return req.config.browser.vision.enabled and not req.args.get("labels")
    return bool(describe)


def _described(req: Request, data: bytes, suffix: str) -> dict:
    """The describers' words instead of the image; the image (with a note naming each describer's
    failure) when none answers."""
    path = req.service.media.new_path("screenshot", suffix)
    path.write_bytes(data)
    outcome = vision.describe(path, req.config.browser.vision)
    failed = {"failures": list(outcome.failures)} if outcome.failures else {}
    if outcome.text is None:
        return {
            "described": False,
            "note": f"could not describe the screenshot ({outcome.failure}); "
            "here is the image instead",
            **failed,
            **req.service.media.describe(path),
        }
    path.unlink(missing_ok=True)
    return {
        "described": True,
        "describedBy": outcome.describer,
        "description": outcome.text,
        **failed,
    }


def _ref_box(tab, ref: str) -> dict:
    resolved = resolve_ref(tab, ref)
    return capture.node_box(tab, backend_node_id=resolved.backend_node_id, session=resolved.session)


def pdf(req: Request) -> dict:
    tab = req.tab()
    path = req.service.media.new_path("page", ".pdf")
    options = {}
    if req.args.get("landscape") is not None:
        options["landscape"] = req.args["landscape"]
    capture.pdf(tab, path, **options)
    return tab_answer(tab, **req.service.media.describe(path))


def media(req: Request) -> FileResponse:
    path, content_type = req.service.media.open(req.params["name"])
    return FileResponse(path, content_type)
