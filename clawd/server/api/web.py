"""The web tier's routes (docs/architecture.md): POST /web/fetch and POST /web/search (their body
fields: clawd/route_fields.py's FETCH_BODY and SEARCH_BODY). Both belong to their agent tools
(a denied tool's route answers 403 TOOL_DENIED: server/handler.py). They work with
browser.enabled: false, except render, which reads pages through the profile's browser: only a
managed one (behind render's DNS-pinning proxy), and only where the browser tool may open a tab."""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawd import errors
from clawd.page.state.navigation import navigate
from clawd.server.routing import Request
from clawd.web.render import BrowserReader
from clawd.web.untrusted import wrapped_fetch_answer, wrapped_search_answer

# a render opens a page in a tab of its own: what the browser tool's `open` does
RENDER_TOOL = "browser_open"

if TYPE_CHECKING:  # the tier (and requests) load at the first web call: server/service.py
    from clawd.web.tier import WebTier


def fetch(req: Request) -> dict:
    tier = req.service.web()
    a = req.args
    mode, render = a.get("extractMode", "markdown"), a.get("render", "auto")
    browser = _browser(req, tier, render) if render != "never" else None
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


def _browser(req: Request, tier: WebTier, render: str) -> BrowserReader | None:
    """The profile's browser to render with. When it may not render, render always answers why
    and render auto gets None (it keeps the static text)."""
    refusal = _no_render(req)
    if refusal is None:
        return BrowserReader(
            req.browser,
            navigate,
            tier.navigation_policy(),
            pinning=tier.pinning_proxy,
            scope=req.runtime().profile.name,
        )
    if render == "always":
        raise refusal
    return None


def _no_render(req: Request) -> errors.ClawdError | None:
    """Why this request may not render, else None: the browser tool may not open a tab, the
    browser is disabled, or the profile's browser is not one clawd launched here (a remote pool,
    the extension, a sandbox container, a browser only attached to: none can be made to connect
    through a proxy on our loopback, and render never reads a page unpinned)."""
    if not req.service.tool_policy().allowed(RENDER_TOOL):
        return errors.ToolDenied(
            "render reads the page in a browser tab, and the tool "
            f"{RENDER_TOOL} is not allowed here (tools.allow and tools.deny)",
            tool=RENDER_TOOL,
        )
    if not req.config.browser.enabled:
        return errors.BrowserDisabled(
            "render always needs the browser, and this service has "
            "none to render with (browser.enabled: false)"
        )
    runtime = req.runtime()
    if not runtime.managed:
        return errors.WebRenderUnavailable(
            f"render reads pages only in a browser clawd launched here, behind its DNS-pinning "
            f"proxy; profile {runtime.profile.name} is {runtime.kind}: use render never, or a "
            "managed profile"
        )
    return None
