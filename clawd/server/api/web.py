"""The web tier's routes (DESIGN.md §13): POST /web/fetch and POST /web/search (their body
fields: clawd/route_fields.py's FETCH_BODY and SEARCH_BODY). Both belong to their agent tools
(a denied tool's route answers 403 TOOL_DENIED: server/handler.py). They work with
browser.enabled: false, except render, which reads pages through the profile's browser."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawd.page.state.navigation import navigate
from clawd.server.routing import Request
from clawd.web.render import BrowserReader
from clawd.web.untrusted import wrapped_fetch_answer, wrapped_search_answer

if TYPE_CHECKING:  # the tier (and requests) load at the first web call: server/service.py
    from clawd.web.tier import WebTier


def fetch(req: Request) -> dict:
    tier = req.service.web()
    a = req.args
    mode, render = a.get("extractMode", "markdown"), a.get("render", "auto")
    browser = _browser(req, tier) if render != "never" else None
    answer = tier.reader.read(
        a["url"], mode=mode, max_chars=a.get("maxChars"), render=render, browser=browser
    )
    return wrapped_fetch_answer(answer, mode) if a.get("wrap", True) else answer


def search(req: Request) -> dict:
    tier = req.service.web()
    a = req.args
    answer = tier.search.search(
        a["query"],
        count=a.get("count"),
        provider=a.get("provider"),
        country=a.get("country"),
        search_lang=a.get("search_lang"),
        ui_lang=a.get("ui_lang"),
        freshness=a.get("freshness"),
    )
    return wrapped_search_answer(answer) if a.get("wrap", True) else answer


def _browser(req: Request, tier: WebTier) -> BrowserReader | None:
    """The profile's browser to render with; None when there is none to use: the browser is
    disabled, or the profile is not managed (a remote pool or the user's own Chrome is not
    ours to open throwaway tabs in)."""
    if not req.config.browser.enabled or not req.runtime().managed:
        return None
    return BrowserReader(req.browser, navigate, tier.navigation_policy())
