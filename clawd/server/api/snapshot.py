"""GET /snapshot and GET /snapshot/find (docs/snapshot.md)."""

from __future__ import annotations

from clawd import errors
from clawd.fields import read_fields
from clawd.page.snapshot import axtree, delta
from clawd.page.snapshot import build as snapshot
from clawd.route_fields import SNAPSHOT_CURSOR, SNAPSHOT_QUERY
from clawd.server.answers import tab_answer
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked

# what wrap=true wraps; every other string of the answer (refs' names, aria nodes, the url) is
# page-written too and has its markers sanitized
WRAPPED = {"ai": {"snapshot": "snapshot"}, "aria": {}, "find": {"matches[].line": "snapshot"}}


def options_from(req: Request) -> snapshot.Options:
    a = req.args or _read(req.query)
    fmt = a.get("format") or "ai"
    if fmt not in ("ai", "aria"):
        raise errors.InvalidRequest(f"format must be ai or aria, not {fmt!r}")
    mode = a.get("mode")
    if mode is None:
        mode = req.config.browser.snapshot_defaults.mode
    if mode not in (None, "efficient"):
        raise errors.InvalidRequest(f"mode must be efficient, not {mode!r}")
    refs = a.get("refs", True)
    return snapshot.Options(
        format=fmt,
        interactive=a.get("interactive"),
        compact=a.get("compact"),
        depth=a.get("depth"),
        max_chars=a.get("maxChars"),
        mode=mode,
        selector=a.get("selector"),
        frame=a.get("frame"),
        limit=a.get("limit", 500),
        labels=a.get("labels", False),
        urls=a.get("urls", False),
        refs=refs is not False,
        ref_mode=refs if isinstance(refs, str) else "aria",
        wrap=a.get("wrap", False),
        timeout_ms=a.get("timeoutMs", 20000),
    )


def _read(query: dict) -> dict:
    return read_fields(query, {**SNAPSHOT_QUERY, **SNAPSHOT_CURSOR}, "query")


def get_snapshot(req: Request) -> dict:
    options = options_from(req)
    tab = req.tab()
    asked = req.args or _read(req.query)
    cursor = asked.get("cursor")
    if cursor is not None:  # the next page of a truncated snapshot: taken already
        if options.format != "ai" or options.labels:
            raise errors.InvalidRequest("cursor= pages a format=ai snapshot, without labels")
        body = snapshot.more(tab, cursor, asked.get("maxChars"), options.timeout_ms)
        return as_asked(tab_answer(tab, **body), options.wrap, WRAPPED["ai"])
    if options.format == "aria":
        if asked.get("delta"):
            raise errors.InvalidRequest("delta=true compares format=ai snapshots")
        body, shape = axtree.take(tab, options), "aria"
    else:
        body, shape = _ai(tab, options, asked.get("delta", False)), "ai"
        if options.labels:
            body.update(_labels(req, tab, body["refs"], timeout_ms=options.timeout_ms))
    return as_asked(tab_answer(tab, **body), options.wrap, WRAPPED[shape])


def _ai(tab, options: snapshot.Options, asked_delta: bool) -> dict:
    """A format=ai snapshot, kept as the tab's latest; with delta=true, only what changed since
    the one before (page/snapshot/delta.py)."""
    document = delta.ask_document(tab)
    try:
        body = snapshot.take(tab, options)
    except BaseException:
        document.discard()
        raise
    return delta.answer(
        tab,
        body,
        scope=delta.scope_of(options),
        document=delta.document_of(document, options.timeout_ms / 1000),
        asked=asked_delta,
    )


def labelled_screenshot(req: Request, tab) -> dict:
    """POST /screenshot {labels: true}: a fresh snapshot's refs drawn on the viewport."""
    taken = snapshot.take(tab, snapshot.Options())
    body = _labels(req, tab, taken["refs"])
    return tab_answer(tab, path=body["imagePath"], **body)


def _labels(req: Request, tab, refs: dict, *, timeout_ms: int = 20000) -> dict:
    """The labelled screenshot saved as media:
    `{imagePath, mediaUrl, labelsCount, labelsSkipped}`."""
    shot = snapshot.labels(tab, refs, timeout_ms=timeout_ms)
    saved = req.service.media.save("labels", shot.suffix, shot.image)
    return {
        "imagePath": saved["path"],
        "mediaUrl": saved["mediaUrl"],
        "labelsCount": shot.drawn,
        "labelsSkipped": shot.skipped,
    }


def find(req: Request) -> dict:
    text = req.args.get("text") or req.query.get("text")
    if not text:
        raise errors.InvalidRequest(
            "text is required: GET /snapshot/find?text=Sign+in (or /regex/)"
        )
    options = options_from(req)
    tab = req.tab()
    found = snapshot.find(tab, options, text)
    return as_asked(tab_answer(tab, **found), options.wrap, WRAPPED["find"])
