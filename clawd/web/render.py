"""render: reading a page through the managed browser when its static HTML holds almost no text
(a single-page app builds it with scripts). A throwaway tab, strict for its whole life (every
request it makes is judged, not only documents), closed afterwards. The browser, the navigate
function and the policy are handed in by the caller: web/ does not reach into server/."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from clawd import errors
from clawd.deadline import left_or_raise

log = logging.getLogger("clawd.web")

RENDER_MODES = ("auto", "never", "always")  # web_fetch's render: when a page is rendered
LATE = "the page did not finish rendering within web.fetch.timeoutSeconds"
SETTLE_MAX_S = 3.0  # how long a page may keep building itself after its load event
QUIET_MS = 300  # no DOM change for this long: the page is done building
STRICT_FETCH = {
    "patterns": [{"urlPattern": "*", "requestStage": "Request"}],
    "handleAuthRequests": False,
}

# Resolves once the DOM has been quiet for QUIET_MS (or after the cap): an app that renders
# after its load event (data fetched, then drawn) is read once it is drawn.
_SETTLE_JS = """new Promise(resolve => {
  let timer = null;
  const done = () => { observer.disconnect(); resolve(true); };
  const observer = new MutationObserver(() => {
    clearTimeout(timer);
    timer = setTimeout(done, %d);
  });
  observer.observe(document, {subtree: true, childList: true, characterData: true});
  timer = setTimeout(done, %d);
  setTimeout(done, %d);
})"""
_READ_JS = """JSON.stringify({
  html: document.documentElement ? document.documentElement.outerHTML : "",
  title: document.title, url: location.href, contentType: document.contentType,
  status: (performance.getEntriesByType("navigation")[0] || {}).responseStatus || 0
})"""


@dataclass(frozen=True)
class Rendered:
    url: str
    status: int
    content_type: str
    title: str
    html: str


class BrowserReader:
    """`browser()` gives the (started) managed browser: new_tab(), close_tab(tab), use(tab),
    last_used; `navigate(tab, url, policy=, timeout=)` loads a URL and waits for its load."""

    def __init__(self, browser: Callable[[], Any], navigate: Callable[..., Any], policy: Any):
        self._browser = browser
        self._navigate = navigate
        self.policy = policy

    def read(self, url: str, timeout: float) -> Rendered:
        deadline = time.monotonic() + timeout
        self.policy.check(url)  # refused before a tab exists
        browser = self._browser()
        previous = browser.last_used
        tab = browser.new_tab()
        try:
            tab.session.call("Fetch.enable", STRICT_FETCH, timeout=_left(deadline))
            self._navigate(tab, url, policy=self.policy, timeout=_left(deadline))
            _settle(tab, deadline)
            return _read(tab, deadline)
        finally:
            browser.close_tab(tab)
            _give_back(browser, previous)


def _left(deadline: float) -> float:
    return left_or_raise(deadline, errors.WebTimeout, LATE)


def _settle(tab: Any, deadline: float) -> None:
    cap_ms = int(min(SETTLE_MAX_S, max(_left(deadline) - 0.5, 0.1)) * 1000)
    _evaluate(tab, _SETTLE_JS % (QUIET_MS, QUIET_MS, cap_ms), deadline, await_promise=True)


def _read(tab: Any, deadline: float) -> Rendered:
    raw = _evaluate(tab, _READ_JS, deadline)
    try:
        page = json.loads(raw)
    except (TypeError, ValueError):
        raise errors.WebFetchFailed("the rendered page could not be read", stage="render") from None
    return Rendered(
        page.get("url") or "",
        int(page.get("status") or 200),
        page.get("contentType") or "text/html",
        page.get("title") or "",
        page.get("html") or "",
    )


def _evaluate(tab: Any, expression: str, deadline: float, *, await_promise: bool = False):
    answer = tab.session.call(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": await_promise},
        timeout=_left(deadline),
    )
    if "exceptionDetails" in answer:
        detail = answer["exceptionDetails"].get("text", "an exception")
        raise errors.WebFetchFailed(f"reading the rendered page failed: {detail}", stage="render")
    return answer.get("result", {}).get("value")


def _give_back(browser: Any, previous: Any) -> None:
    """The tab the agent used before stays the one it uses: the throwaway tab was never its."""
    if previous is not None and not previous.closed.is_set():
        try:
            browser.use(previous)
        except errors.ClawdError:
            log.debug("could not hand tab %s back", getattr(previous, "tab_id", "?"))
