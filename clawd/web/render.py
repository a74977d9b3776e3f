"""render: reading a page through the managed browser when its static HTML holds almost no text
(a single-page app builds it with scripts). The page is read in a browser context of its own: no
cookie, storage or cache of the profile's, every connection through a DNS-pinning proxy that
judges it by the render's policy (Chromium resolves no name itself), in a tab strict for its
whole life (every request judged, not only documents). Context, tab and proxy are thrown away
afterwards. The browser, the navigate function, the policy and the proxy are handed in by the
caller: web/ does not reach into server/."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from clawd import errors
from clawd.deadline import left_or_raise
from clawd.security.proxy import PinningProxy

log = logging.getLogger("clawd.web")

LATE = "the page did not finish rendering within web.fetch.timeoutSeconds"
CLOSE_TIMEOUT = 5.0  # disposing of the context and its tab
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
    """`browser()` gives the (started) managed browser: root, new targets via wait_for_tab(),
    use(tab), close_tab(tab), last_used, window_per_tab; `navigate(tab, url, policy=, timeout=)`
    loads a URL and waits for its load; `pinning()` makes the (unstarted) proxy a render's
    connections go through. `scope` says whose browser it is (the profile): the answer cache
    keeps rendered answers apart by it."""

    def __init__(
        self,
        browser: Callable[[], Any],
        navigate: Callable[..., Any],
        policy: Any,
        *,
        pinning: Callable[[], PinningProxy],
        scope: str = "",
    ):
        self._browser = browser
        self._navigate = navigate
        self.policy = policy
        self._pinning = pinning
        self.scope = scope

    def read(self, url: str, timeout: float) -> Rendered:
        deadline = time.monotonic() + timeout
        self.policy.check(url)  # refused before a context exists
        place = ThrowawayContext(self._browser(), self._pinning())
        try:
            tab = place.open(deadline)
            tab.session.call("Fetch.enable", STRICT_FETCH, timeout=_left(deadline))
            loaded = self._load(place, tab, url, deadline)
            place.raise_refusal(loaded)  # the proxy's own answer is no page of the site's
            _settle(tab, deadline)
            page = _read(tab, deadline)
            place.raise_refusal(page.url)  # a script went on to a page the proxy refused
            return page
        finally:
            place.close()

    def _load(self, place: ThrowawayContext, tab: Any, url: str, deadline: float) -> str:
        """The URL the tab ended on; a failed load whose requests the proxy refused is that
        refusal (a CONNECT it refused fails the navigation as a tunnel error)."""
        try:
            state = self._navigate(tab, url, policy=self.policy, timeout=_left(deadline))
        except errors.NavigationFailed:
            place.raise_refusal(None)
            raise
        return (state or {}).get("url") or url


class ThrowawayContext:
    """A browser context of its own behind a pinning proxy, and one tab in it; close() disposes
    of both, stops the proxy and gives the agent back the tab it used before."""

    def __init__(self, browser: Any, proxy: PinningProxy):
        self.browser = browser
        self.proxy = proxy
        self.context_id: str | None = None
        self.tab: Any = None
        self._previous = browser.last_used
        self._refused: list[tuple[str, str, Exception]] = []
        self._lock = threading.Lock()
        proxy.on_refused = self._note

    def open(self, deadline: float) -> Any:
        self.proxy.start()
        root = self.browser.root
        params = {**self.proxy.context_params(), "disposeOnDetach": True}
        made = root.call("Target.createBrowserContext", params, timeout=_left(deadline))
        self.context_id = made["browserContextId"]
        # a page read is never a file saved: whatever the browser's default for a new context
        root.call(
            "Browser.setDownloadBehavior",
            {"behavior": "deny", "browserContextId": self.context_id},
            timeout=_left(deadline),
        )
        target = root.call(
            "Target.createTarget",
            {
                "url": "about:blank",
                "browserContextId": self.context_id,
                "newWindow": bool(self.browser.window_per_tab),
            },
            timeout=_left(deadline),
        )["targetId"]
        self.tab = self.browser.use(self.browser.wait_for_tab(target, _left(deadline)))
        return self.tab

    def _note(self, method: str, target: str, exc: Exception) -> None:
        with self._lock:
            self._refused.append((method, target, exc))

    def raise_refusal(self, document: str | None) -> None:
        """Raise what the proxy refused of the page at `document` (None: of whatever it was
        asked, for a load that failed); nothing when it refused none of it."""
        with self._lock:
            refused = list(self._refused)
        for method, target, exc in refused:
            if document is None or _same_document(target, document):
                raise _refusal(method, target, exc)

    def close(self) -> None:
        try:
            self._dispose()
        finally:
            self.proxy.stop_soon()  # the context is gone: nothing connects to it any more
            _give_back(self.browser, self._previous)

    def _dispose(self) -> None:
        """The context goes with its tab; a tab still open after that is closed on its own."""
        try:
            if self.context_id is not None:
                self.browser.root.call(
                    "Target.disposeBrowserContext",
                    {"browserContextId": self.context_id},
                    timeout=CLOSE_TIMEOUT,
                )
            if self.tab is not None and not self.tab.closed.wait(CLOSE_TIMEOUT):
                self.browser.close_tab(self.tab)
        except errors.ClawdError as exc:  # the browser went away: its contexts went with it
            log.info("disposing of render context %s failed: %s", self.context_id, exc)


def _same_document(target: str, document: str) -> bool:
    """A forwarded request's target is the absolute URL the page was asked at (no fragment)."""
    return target == urllib.parse.urldefrag(document).url


def _refusal(method: str, target: str, exc: Exception) -> errors.ClawdError:
    if isinstance(exc, errors.NavigationBlocked | errors.HostUnresolved):
        return type(exc)(f"the browser's request for {target} was refused: {exc.message}")
    if isinstance(exc, errors.ClawdError):
        return errors.WebFetchFailed(
            f"the browser's {method} {target} was refused: {exc.message}", stage="render"
        )
    return errors.WebFetchFailed(f"the browser could not reach {target}", stage="connect")


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
