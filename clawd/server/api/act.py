"""Acting on pages: POST /act, /highlight, /hooks/file-chooser, /hooks/dialog, /download,
/wait/download, /permissions/grant (docs/actions.md)."""

from __future__ import annotations

import time

from clawd import acts, errors
from clawd.deadline import remaining
from clawd.fields import read_fields
from clawd.page import handoff
from clawd.page.act import actions, dialogs, downloads, filechooser
from clawd.page.act import input as pinput
from clawd.page.act.guard import Guarded
from clawd.route_fields import WRAP_STRINGS
from clawd.server import act_request
from clawd.server.answers import tab_answer
from clawd.server.api import uploads
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked

HIGHLIGHT_MS = 2000
_HIGHLIGHT = """function(ms, label) {
  const r = this.getBoundingClientRect();
  const box = document.createElement('div');
  box.setAttribute('data-clawd-highlight', '');
  box.style.cssText =
    'position:fixed;z-index:2147483647;pointer-events:none;box-sizing:border-box;' +
    'border:2px solid #FF4500;background:rgba(255,69,0,.15);' +
    `left:${r.left}px;top:${r.top}px;width:${r.width}px;height:${r.height}px`;
  box.title = label;
  (document.body || document.documentElement).appendChild(box);
  setTimeout(() => box.remove(), ms);
  return {x: r.left, y: r.top, width: r.width, height: r.height};
}"""


def _context(req: Request, tab=None) -> actions.Context:
    return actions.Context(
        tab or req.tab(),
        req.browser(),
        default_timeout_ms=req.config.browser.action_timeout_ms,
        effects=req.config.browser.act_effects,
    )


def _deadline(req: Request) -> float:
    ms = req.args.get("timeoutMs") or req.config.browser.action_timeout_ms
    return time.monotonic() + min(acts.MAX_TIMEOUT_MS, max(acts.MIN_TIMEOUT_MS, ms)) / 1000


def act(req: Request) -> dict:
    """Run one act request (its kinds: POST /act below); answer with the page's state after it."""
    action = act_request.read(req.body, evaluate_enabled=req.config.browser.evaluate_enabled)
    tab = req.tab()
    body_key = req.body.get("targetId")
    if req.query.get("targetId") and body_key and not tab_matches(tab, body_key):
        raise errors.ActTargetIdMismatch(
            f"body targetId {body_key!r} is not the tab of ?targetId= ({tab.tab_id})"
        )
    check_targets(action, tab)
    answer = act_answer(tab, action, actions.run(_context(req, tab), action))
    if (handed_back := handoff.take_report(tab)) is not None:  # what a person changed, once
        answer["handedBack"] = handed_back
    return as_asked(answer, _wrapped(req))  # title, dialogs, results: the page's words


def _wrapped(req: Request) -> bool:
    """?wrap= of /act, read alone: the rest of its query (targetId, profile) is read elsewhere."""
    if "wrap" not in req.query:
        return False
    return read_fields({"wrap": req.query["wrap"]}, WRAP_STRINGS, "query")["wrap"]


def act_answer(tab, action: acts.Action, data: dict) -> dict:
    """What the page reported about an action, in the tab's envelope; a batch's results each in
    their own (`ok: false` with the error for one that failed), the batch ok when all are."""
    if action.kind != "batch":
        return tab_answer(tab, **data)
    results = [
        _batched(tab, child, entry) for child, entry in zip(action.children, data["results"])
    ]
    answer = tab_answer(tab, **{**data, "results": results})
    answer["ok"] = all(r["ok"] for r in results)
    return answer


def _batched(tab, child: acts.Action, entry: dict) -> dict:
    kind, rest = entry["kind"], {k: v for k, v in entry.items() if k != "kind"}
    if "error" in rest:
        return {"kind": kind, "ok": False, **rest}
    return {"kind": kind, **act_answer(tab, child, rest)}


def check_targets(action: acts.Action, tab) -> None:
    """403 when a batched action names another tab than the one the request resolved to."""
    key = action.args.get("targetId")
    if key is not None and not tab_matches(tab, key):
        raise errors.ActTargetIdMismatch(
            f"targetId {key!r} is not the tab this action runs on "
            f"({tab.tab_id}); send one request per tab"
        )
    for child in action.children:
        check_targets(child, tab)


def tab_matches(tab, key: str) -> bool:
    return key in (tab.tab_id, tab.label, tab.target_id) or (
        len(key) >= 4 and tab.target_id.lower().startswith(key.lower())
    )


def highlight(req: Request) -> dict:
    ctx = _context(req)
    dialogs.check_not_blocked(ctx.tab)
    try:
        element = ctx.element(req.args["ref"], Guarded.page(ctx.tab, _deadline(req)))
        pinput.prepare(element, enabled=False)  # showing it is no act on it
        box = element.call(_HIGHLIGHT, req.args.get("durationMs", HIGHLIGHT_MS), element.describe())
    finally:
        ctx.release()
    return tab_answer(ctx.tab, ref=req.args["ref"], box=box)


def dialog(req: Request) -> dict:
    tab = req.tab()
    a = req.args
    state = dialogs.state(tab)
    pending = state.find(a.get("dialogId"))
    if pending is None:
        armed = state.arm(a["accept"], a.get("promptText"))
        return tab_answer(tab, armed=armed, dialogs={"pending": []})
    answered = state.answer(
        pending, a["accept"], a.get("promptText"), timeout=_deadline(req) - time.monotonic()
    )
    return tab_answer(tab, answered=answered, dialogs={"pending": state.public_pending()})


def file_chooser(req: Request) -> dict:
    a = req.args
    given = [name for name in ("ref", "inputRef", "element") if a.get(name)]
    if len(given) > 1:
        raise errors.ActInvalidRequest(
            f"give one of ref (click to open a chooser), inputRef (a "
            f"file input) or element (a file input's CSS selector), "
            f"not {' and '.join(given)}"
        )
    files = uploads.confined_paths(req.service, a["paths"])
    ctx = _context(req)
    if a.get("element") or a.get("inputRef"):
        return tab_answer(ctx.tab, files=files, set=_set_input(ctx, a, files, _deadline(req)))
    if not a.get("ref"):
        chosen = _pending_or_armed(ctx.tab, files, _deadline(req))
        return tab_answer(ctx.tab, files=files, **chosen)
    return _click_to_choose(req, ctx, files)


def _set_input(ctx: actions.Context, a: dict, files: list[str], deadline: float) -> str:
    """The files on a file input named by CSS (OpenClaw's upload `element`) or by ref."""
    tab = ctx.tab
    dialogs.check_not_blocked(tab)
    if a.get("element"):
        backend = filechooser.file_input(
            tab, a["element"], timeout=remaining(deadline, at_least=0.1)
        )
        filechooser.set_input_files(
            tab.session, backend, files, timeout=remaining(deadline, at_least=0.1)
        )
        return "input"
    try:
        element = ctx.element(a["inputRef"], Guarded.page(tab, deadline))
        filechooser.set_input_files(
            element.session,
            element.backend_node_id,
            files,
            timeout=remaining(deadline, at_least=0.1),
        )
    finally:
        ctx.release()
    return "input"


def _pending_or_armed(tab, files: list[str], deadline: float) -> dict:
    """The files for a chooser already open, else for the next one that opens."""
    chooser = filechooser.state(tab)
    pending = chooser.take_pending()
    if pending is not None:
        filechooser.set_input_files(
            pending["session"],
            pending["backendNodeId"],
            files,
            timeout=remaining(deadline, at_least=0.1),
        )
        return {"set": "pending chooser"}
    chooser.arm(files)
    return {"armed": True}


def _click_to_choose(req: Request, ctx: actions.Context, files: list[str]) -> dict:
    a, tab, deadline = req.args, ctx.tab, _deadline(req)
    chooser = filechooser.state(tab)
    opened = chooser.opened
    chooser.arm(files)
    click = act_request.read({"kind": "click", "ref": a["ref"], "timeoutMs": a.get("timeoutMs")})
    result = actions.run(ctx, click)
    done = chooser.wait_satisfied(opened, deadline)
    if done.get("error"):
        raise errors.ActInvalidRequest(f"the files could not be set: {done['error']}")
    return tab_answer(tab, **result, files=files, set="chooser")


def download(req: Request) -> dict:
    a = req.args
    ctx = _context(req)
    deadline = _deadline_download(req)
    before = downloads.mark(ctx.browser)
    click = act_request.read({"kind": "click", "ref": a["ref"]})
    actions.run(ctx, click)
    item = downloads.wait_next(ctx.browser, deadline, after=before)
    if a.get("path"):
        item = downloads.rename(ctx.browser, item, a["path"])
    return tab_answer(ctx.tab, download=item, path=item["path"])


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
        raise errors.InvalidRequest(
            "permissions must be a non-empty list of permission names "
            "(geolocation, notifications, clipboardReadWrite, ...)"
        )
    params = {"permissions": permissions}
    if a.get("origin"):
        params["origin"] = a["origin"]
    browser = req.browser()
    try:
        browser.root.call("Browser.grantPermissions", params)
    except errors.RelayUnsupported:
        raise
    except errors.CdpError as exc:
        raise errors.InvalidRequest(f"Chromium refused the permissions: {exc.message}") from None
    return {"ok": True, "granted": permissions, "origin": a.get("origin")}
