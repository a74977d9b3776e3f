"""Navigating a tab and waiting for the load of exactly that navigation (by its loaderId)."""
from __future__ import annotations

import threading
import time

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.interception import BLOCKED_SLOT

DEFAULT_TIMEOUT = 30.0
ABORTED = "net::ERR_ABORTED"


class PageLifecycle:
    """The tab hook that turns on the Page domain and lifecycle events every tab needs."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        session.call("Page.enable")
        session.call("Page.setLifecycleEventsEnabled", {"enabled": True})

    def detach(self, tab: Tab) -> None:
        pass


class LifecycleWatch:
    """Collects lifecycle events of the main frame from before a navigation is sent, so the load
    of the loader it starts cannot slip past us."""

    def __init__(self, tab: Tab):
        self._seen: set[tuple[str, str]] = set()
        self._cond = threading.Condition()
        self._frame = tab.target_id
        self._off = tab.session.on("Page.lifecycleEvent", self._feed)

    def _feed(self, params: dict) -> None:
        if params.get("frameId") != self._frame:
            return
        with self._cond:
            self._seen.add((params.get("loaderId", ""), params.get("name", "")))
            self._cond.notify_all()

    def wait(self, loader_id: str, name: str, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while (loader_id, name) not in self._seen:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def close(self) -> None:
        self._off()


def navigate(tab: Tab, url: str, *, policy, timeout: float = DEFAULT_TIMEOUT) -> dict:
    """Go to `url` (already judged by the caller or judged here) and wait for its load event."""
    url = policy.check(url)
    tab.check_usable()
    tab.slots.pop(BLOCKED_SLOT, None)
    watch = LifecycleWatch(tab)
    try:
        started = time.monotonic()
        result = tab.session.call("Page.navigate", {"url": url}, timeout=timeout)
        error_text = result.get("errorText")
        if error_text:
            _raise_navigation_error(tab, url, error_text)
        loaded = True
        if result.get("loaderId"):
            left = max(0.1, timeout - (time.monotonic() - started))
            loaded = watch.wait(result["loaderId"], "load", left)
    finally:
        watch.close()
    return {**page_state(tab), "loaded": loaded}


def _raise_navigation_error(tab: Tab, url: str, error_text: str) -> None:
    blocked = tab.slots.pop(BLOCKED_SLOT, None)
    if blocked is not None:
        raise errors.NavigationBlocked(f"navigation to {url} was blocked: a request to "
                                       f"{blocked['url']} is not allowed by the navigation policy")
    if error_text == ABORTED:
        return   # a navigation that became a download, or was replaced by another one
    raise errors.NavigationFailed(f"navigation to {url} failed: {error_text}", errorText=error_text)


def page_state(tab: Tab) -> dict:
    """The tab's current URL and title, read from the page itself."""
    value = evaluate_value(tab.session, "[location.href, document.title]") or [tab.url, tab.title]
    tab.url, tab.title = value[0], value[1]
    return {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id, "url": tab.url, "title": tab.title}


def evaluate_value(session: Session, expression: str, *, timeout: float | None = 10.0):
    """Runtime.evaluate returning the value; None when the page threw."""
    answer = session.call("Runtime.evaluate", {"expression": expression, "returnByValue": True},
                          timeout=timeout)
    if "exceptionDetails" in answer:
        return None
    return answer.get("result", {}).get("value")
