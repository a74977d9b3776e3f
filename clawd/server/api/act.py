"""Acting on pages: POST /act, /highlight, /hooks/file-chooser, /hooks/dialog, /download,
/wait/download, /permissions/grant (DESIGN.md §8)."""
from __future__ import annotations

import time

from clawd import errors
from clawd.page.act import actions, dialogs, downloads, filechooser
from clawd.page.act import input as pinput
from clawd.server.routing import Request

HIGHLIGHT_MS = 2000
_HIGHLIGHT = """function(ms, label) {
  const r = this.getBoundingClientRect();
  const box = document.createElement('div');
  box.setAttribute('data-clawd-highlight', '');
  box.style.cssText = 'position:fixed;z-index:2147483647;pointer-events:none;box-sizing:border-box;' +
    'border:2px solid #FF4500;background:rgba(255,69,0,.15);' +
    `left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px`;
  box.title = label;
  (document.body || document.documentElement).appendChild(box);
  setTimeout(() => box.remove(), ms);
  return {x: r.left, y: r.top, width: r.width, height: r.height};
}"""


def _context(req: Request, tab=None) -> actions.Context:
    return actions.Context(tab or req.tab(), req.browser(),
                           default_timeout_ms=req.config.browser.action_timeout_ms)


def _deadline(req: Request) -> float:
    ms = req.args.get("timeoutMs") or req.config.browser.action_timeout_ms
    return time.monotonic() + min(actions.MAX_TIMEOUT_MS, max(actions.MIN_TIMEOUT_MS, ms)) / 1000


def act(req: Request) -> dict:
    action = actions.parse(req.body, evaluate_enabled=req.config.browser.evaluate_enabled)
    tab = req.tab()
    body_key = req.body.get("targetId")
    if req.query.get("targetId") and body_key and not actions.tab_matches(tab, body_key):
        raise errors.ActTargetIdMismatch(f"body targetId {body_key!r} is not the tab of ?targetId= ({tab.tab_id})")
    actions.check_targets(action, tab)
    return actions.run(_context(req, tab), action)


def highlight(req: Request) -> dict:
    ctx = _context(req)
    deadline = _deadline(req)
    dialogs.check_not_blocked(ctx.tab)
    element = ctx.element(req.args["ref"], deadline)
    pinput.prepare(element, deadline)
    box = element.call(_HIGHLIGHT, req.args.get("durationMs", HIGHLIGHT_MS), element.describe(),
                       deadline=deadline)
    return {"ok": True, "targetId": ctx.tab.target_id, "tabId": ctx.tab.tab_id, "ref": req.args["ref"],
            "box": box}


def dialog(req: Request) -> dict:
    tab = req.tab()
    a = req.args
    state = dialogs.state(tab)
    base = {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id}
    pending = state.find(a.get("dialogId"))
    if pending is None:
        armed = state.arm(a["accept"], a.get("promptText"))
        return {**base, "armed": armed, "dialogs": {"pending": []}}
    answered = state.answer(pending, a["accept"], a.get("promptText"), timeout=_deadline(req) - time.monotonic())
    return {**base, "answered": answered, "dialogs": {"pending": state.public_pending()}}


def file_chooser(req: Request) -> dict:
    a = req.args
    given = [name for name in ("ref", "inputRef", "element") if a.get(name)]
    if len(given) > 1:
        raise errors.ActInvalidRequest(f"give one of ref (click to open a chooser), inputRef (a file input) or "
                                       f"element (a file input's CSS selector), not {' and '.join(given)}")
    files = filechooser.confined_paths(req.service.layout.uploads, a["paths"])
    ctx = _context(req)
    tab, deadline = ctx.tab, _deadline(req)
    base = {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id, "files": files}
    if a.get("element"):     # OpenClaw's upload field: a CSS selector, like screenshot's element
        dialogs.check_not_blocked(tab)
        backend = filechooser.file_input(tab, a["element"], timeout=max(0.1, deadline - time.monotonic()))
        filechooser.set_input_files(tab.session, backend, files, timeout=max(0.1, deadline - time.monotonic()))
        return {**base, "set": "input"}
    if a.get("inputRef"):
        dialogs.check_not_blocked(tab)
        element = ctx.element(a["inputRef"], deadline)
        filechooser.set_input_files(element.session, element.backend_node_id, files,
                                    timeout=max(0.1, deadline - time.monotonic()))
        return {**base, "set": "input"}
    chooser = filechooser.state(tab)
    if not a.get("ref"):
        pending = chooser.take_pending()
        if pending is not None:
            filechooser.set_input_files(pending["session"], pending["backendNodeId"], files,
                                        timeout=max(0.1, deadline - time.monotonic()))
            return {**base, "set": "pending chooser"}
        chooser.arm(files)
        return {**base, "armed": True}
    opened = chooser.opened
    chooser.arm(files)
    click = actions.parse({"kind": "click", "ref": a["ref"], "timeoutMs": a.get("timeoutMs")})
    result = actions.run(ctx, click)
    done = chooser.wait_satisfied(opened, deadline)
    if done.get("error"):
        raise errors.ActInvalidRequest(f"the files could not be set: {done['error']}")
    return {**result, "files": files, "set": "chooser"}


def download(req: Request) -> dict:
    a = req.args
    ctx = _context(req)
    deadline = _deadline_download(req)
    before = downloads.mark(ctx.browser)
    click = actions.parse({"kind": "click", "ref": a["ref"]})
    actions.run(ctx, click)
    item = downloads.wait_next(ctx.browser, deadline, after=before)
    if a.get("path"):
        item = downloads.rename(ctx.browser, item, a["path"])
    return {"ok": True, "targetId": ctx.tab.target_id, "tabId": ctx.tab.tab_id, "download": item,
            "path": item["path"]}


def _deadline_download(req: Request) -> float:
    ms = req.args.get("timeoutMs") or max(30000, req.config.browser.action_timeout_ms)
    return time.monotonic() + ms / 1000


def wait_download(req: Request) -> dict:
    browser = req.browser()
    item = downloads.wait_next(browser, _deadline_download(req))
    if req.args.get("path"):
        item = downloads.rename(browser, item, req.args["path"])
    return {"ok": True, "download": item, "path": item["path"]}


def grant_permissions(req: Request) -> dict:
    a = req.args
    permissions = a["permissions"]
    if not permissions or not all(isinstance(p, str) and p for p in permissions):
        raise errors.InvalidRequest("permissions must be a non-empty list of permission names "
                                    "(geolocation, notifications, clipboardReadWrite, ...)")
    params = {"permissions": permissions}
    if a.get("origin"):
        params["origin"] = a["origin"]
    browser = req.browser()
    try:
        browser.root.call("Browser.grantPermissions", params)
    except errors.CdpError as exc:
        raise errors.InvalidRequest(f"Chromium refused the permissions: {exc.message}") from None
    return {"ok": True, "granted": permissions, "origin": a.get("origin")}
