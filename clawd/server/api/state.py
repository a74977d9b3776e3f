"""Browser state of the current page: cookies, localStorage and sessionStorage. With wrap=true
(for an agent) a value is wrapped as untrusted content and names, keys and domains sanitized:
a page writes them all. POST /state/save and /state/load: the profile's state as a portable file
(clawd/page/state/portable.py, state_file.py)."""

from __future__ import annotations

from clawd.page.state import portable, state_file, storage
from clawd.server.answers import tab_answer
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked


def cookies(req: Request) -> dict:
    tab = req.tab()
    everything = req.args.get("all", False)
    answer = tab_answer(tab, all=everything, cookies=storage.cookies(tab, everything=everything))
    return as_asked(answer, req.args.get("wrap", False), {"cookies[].value": "cookie"})


def set_cookie(req: Request) -> dict:
    tab = req.tab()
    return tab_answer(tab, cookie=storage.set_cookie(tab, req.args["cookie"]))


def clear_cookies(req: Request) -> dict:
    tab = req.tab()
    storage.clear_cookies(tab)
    return tab_answer(tab, cleared=True)


def storage_get(req: Request) -> dict:
    kind = req.params["kind"]
    area = storage.storage_name(kind)  # a bad kind is a 400 before any tab is touched
    tab = req.tab()
    key = req.args.get("key")
    # `values` (key -> value) beside clawd's own: what OpenClaw's client reads
    if key is not None:
        value = storage.storage_get(tab, kind, key)
        values = {} if value is None else {key: value}
        answer = tab_answer(tab, kind=kind, key=key, value=value, values=values)
        return as_asked(answer, req.args.get("wrap", False), {"value": area, "values.*": area})
    items = storage.storage_get(tab, kind)
    answer = tab_answer(tab, kind=kind, items=items, values=dict(items))
    return as_asked(answer, req.args.get("wrap", False), {"items.*": area, "values.*": area})


def storage_set(req: Request) -> dict:
    kind = req.params["kind"]
    storage.storage_name(kind)
    tab = req.tab()
    storage.storage_set(tab, kind, req.args["key"], req.args["value"])
    return tab_answer(tab, kind=kind, key=req.args["key"])


def storage_clear(req: Request) -> dict:
    kind = req.params["kind"]
    storage.storage_name(kind)
    tab = req.tab()
    return tab_answer(tab, kind=kind, cleared=storage.storage_clear(tab, kind))


def save_state(req: Request) -> dict:
    """Cookies and each origin's storage to a storageState file under $CLAWD_HOME/state."""
    tab = req.tab()
    judge = req.service.guard.verdict
    state, skipped = portable.collect(req.browser(), tab, req.args.get("origins"), judge)
    home = req.service.layout.home
    key = home / state_file.KEY_FILE if req.args.get("encrypt", False) else None
    written = state_file.write(home / "state", req.args.get("path"), state, key)
    origins = [o["origin"] for o in state["origins"]]
    return tab_answer(
        tab, **written, cookies=len(state["cookies"]), origins=origins, skipped=skipped
    )


def load_state(req: Request) -> dict:
    """A storageState file (clawd's or Playwright's) restored into the profile.
    It is checked whole first: a corrupt or foreign file is a 400 that changes nothing."""
    home = req.service.layout.home
    state, sealed = state_file.read(home / "state", req.args["path"], home / state_file.KEY_FILE)
    tab = req.tab()
    applied = portable.apply(req.browser(), tab, state, req.service.guard.verdict)
    return tab_answer(tab, encrypted=sealed, **applied)
