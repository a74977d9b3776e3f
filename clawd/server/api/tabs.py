"""Tabs: list, open, focus, close, and the index-based tab actions of the CLI."""

from __future__ import annotations

from clawd import errors
from clawd.page import handoff
from clawd.page.state import navigation
from clawd.page.state.navigation import navigate
from clawd.server.answers import tab_answer
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked


def list_tabs(req: Request) -> dict:
    runtime = req.runtime()
    runtime.connect_if_free()
    if not runtime.running():
        return {"ok": True, "running": False, "tabs": []}
    answer = {"ok": True, "running": True, "tabs": _tab_dicts(runtime.browser)}
    # a title is whatever the page says it is, a url nearly so
    return as_asked(answer, req.args.get("wrap", False), {"tabs[].title": "title"})


def _tab_dicts(browser) -> list[dict]:
    active = browser.last_used
    return [t.to_dict(active=t is active) for t in navigation.refresh_all(browser.tabs())]


def open_tab(req: Request) -> dict:
    url = req.args["url"]
    req.service.policy.check(url)  # refuse before a tab exists
    browser = req.browser()
    tab = browser.new_tab(label=req.args.get("label"))
    req.tab_used = tab.tab_id
    try:
        state = navigate(tab, url, policy=req.service.policy, timeout=_timeout(req))
    except errors.ClawdError:
        browser.close_tab(tab)
        raise
    answer = {**tab.to_dict(active=True), "ok": True, "loaded": state["loaded"]}
    return as_asked(answer, req.args.get("wrap", False))  # the title is the page's


def focus(req: Request) -> dict:
    browser = req.browser()
    tab = browser.focus(req.tab(req.args["targetId"]))
    return {"ok": True, **tab.to_dict(active=True)}


def close_tab(req: Request) -> dict:
    browser = req.browser()
    tab = req.tab(req.params["target"], usable=False)
    browser.close_tab(tab)
    return tab_answer(tab, closed=tab.tab_id)


def tab_action(req: Request) -> dict:
    action = req.args["action"]
    browser = req.browser()
    if action == "list":
        return {"ok": True, "tabs": _tab_dicts(browser)}
    if action == "new":
        tab = browser.new_tab(label=req.args.get("label"))
        if req.args.get("url"):
            navigate(tab, req.args["url"], policy=req.service.policy, timeout=_timeout(req))
        return {"ok": True, **tab.to_dict(active=True)}
    tab = _by_index(browser, req.args.get("index"))
    if action == "close":
        handoff.check(tab, req.method, req.path)  # a person's tab is closed by them alone
        browser.close_tab(tab)
        return {"ok": True, "closed": tab.tab_id}
    if action == "select":
        return {"ok": True, **browser.focus(tab).to_dict(active=True)}
    raise errors.InvalidRequest(f"action must be one of list, new, close, select; not {action!r}")


def _by_index(browser, index):
    tabs = browser.tabs()
    if index is None:
        tab = browser.last_used
        if tab is None:
            raise errors.InvalidRequest("index is required")
        return tab
    if not 0 <= index < len(tabs):
        raise errors.TabNotFound(f"no tab at index {index}; there are {len(tabs)}")
    return tabs[index]


def _timeout(req: Request) -> float:
    return req.args.get("timeoutMs", 30000) / 1000
