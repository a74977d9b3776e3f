"""Navigating a tab and waiting for the load of exactly that navigation (by its loaderId); what the
main frame is doing (navigations requested, committed, loaded); a tab's URL and title now."""

from __future__ import annotations

import threading
import time

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session
from clawd.page.observe import interception

DEFAULT_TIMEOUT = 30.0
ABORTED = "net::ERR_ABORTED"


class PageLifecycle:
    """The tab hook that turns on the Page domain and lifecycle events every tab needs, and keeps
    the tab's NavigationLog."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        session.call("Page.enable")
        session.call("Page.setLifecycleEventsEnabled", {"enabled": True})
        if child:
            return
        log = navigation_log(tab)
        session.on("Page.frameRequestedNavigation", log.on_requested)
        session.on("Page.frameNavigated", log.on_navigated)
        session.on("Page.navigatedWithinDocument", log.on_same_document)
        session.on("Page.frameStartedLoading", log.on_started)
        session.on("Page.frameStoppedLoading", log.on_stopped)
        session.on("Page.lifecycleEvent", log.on_lifecycle)

    def detach(self, tab: Tab) -> None:
        pass


class NavigationLog:
    """The main frame's navigations as events tell them: requested (a link, a form, a script asked
    for one), then committed (a new document) and its DOMContentLoaded, or done another way (the
    same document, a download, a 204, a cancel: the frame stopped loading)."""

    def __init__(self, frame_id: str):
        self.frame_id = frame_id
        self.requested = 0  # navigations of this tab asked for so far
        self.settled = 0  # and those that reached a document or ended otherwise
        self.committed = 0  # new documents of the main frame (not a download, a 204)
        self._loader: str | None = None
        self._started = False  # a load began since the last request (its stop then counts)
        self._cond = threading.Condition()

    def on_requested(self, params: dict) -> None:
        if (
            params.get("frameId") == self.frame_id
            and params.get("disposition", "currentTab") == "currentTab"
        ):
            with self._cond:
                self.requested += 1
                self._started = False

    def on_navigated(self, params: dict) -> None:
        frame = params.get("frame") or {}
        if frame.get("id") == self.frame_id and not frame.get("parentId"):
            with self._cond:
                self._loader = frame.get("loaderId")
                self.committed += 1

    def on_lifecycle(self, params: dict) -> None:
        if (
            params.get("frameId") == self.frame_id
            and params.get("name") == "DOMContentLoaded"
            and params.get("loaderId") == self._loader
        ):
            self._settle()

    def on_same_document(self, params: dict) -> None:
        if params.get("frameId") == self.frame_id:
            self._settle()

    def on_started(self, params: dict) -> None:
        if params.get("frameId") == self.frame_id:
            self._started = True

    def on_stopped(self, params: dict) -> None:
        """A load that ended without a new document (a download, a 204) or after it; the stop of
        a load that began before the request does not count."""
        if params.get("frameId") == self.frame_id and self._started:
            self._settle()

    def _settle(self) -> None:
        with self._cond:
            self.settled = self.requested
            self._cond.notify_all()

    def wait_settled(self, requested_before: int, deadline: float) -> bool:
        """Once a navigation requested after `requested_before` has reached its new document's
        DOMContentLoaded (or ended otherwise); True at once when none was requested."""
        with self._cond:
            while self.requested > requested_before and self.settled < self.requested:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True


NAVIGATIONS = StateKey("navigation.log", lambda tab: NavigationLog(tab.target_id))


def navigation_log(tab: Tab) -> NavigationLog:
    return tab.state[NAVIGATIONS]


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
    """Go to `url` (already judged by the caller or judged here) and wait for its load event:
    `{url, title, loaded}`."""
    url = policy.check(url)
    tab.check_usable()
    interception.state(tab).take_blocked()
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
    blocked = interception.state(tab).take_blocked()
    if blocked is not None:
        raise errors.NavigationBlocked(
            f"navigation to {url} was blocked: a request to "
            f"{blocked['url']} is not allowed by the navigation policy"
        )
    if error_text == ABORTED:
        return  # a navigation that became a download, or was replaced by another one
    raise errors.NavigationFailed(f"navigation to {url} failed: {error_text}", errorText=error_text)


def refresh(tab: Tab) -> Tab:
    """The tab's URL and title as the browser holds them now (its current history entry), read
    without the renderer, so a busy page or an open dialog does not hold it up. Chromium sends no
    event when a title changes (Target.targetInfoChanged: URL changes only, the URL standing in
    for the title), so this is asked, not kept; 0.14 ms here."""
    if tab.closed.is_set():
        return tab
    try:
        history = tab.session.call("Page.getNavigationHistory", timeout=5.0)
        entry = history["entries"][history["currentIndex"]]
    except (errors.ClawdError, KeyError, IndexError):
        return tab  # closing, crashed: what we knew last
    tab.url, tab.title = entry.get("url", tab.url), entry.get("title", tab.title)
    return tab


def refresh_all(tabs: list[Tab], timeout: float = 5.0) -> list[Tab]:
    """refresh() for several tabs, their questions sent together: one round trip's wait for a
    list of tabs, not one per tab."""
    asked = []
    for tab in tabs:
        if tab.closed.is_set():
            continue
        try:
            asked.append((tab, tab.session.send("Page.getNavigationHistory")))
        except errors.ClawdError:
            continue  # closing: what we knew last
    deadline = time.monotonic() + timeout
    for tab, pending in asked:
        try:
            history = pending.result(max(0.0, deadline - time.monotonic()))
            entry = history["entries"][history["currentIndex"]]
        except (errors.ClawdError, KeyError, IndexError):
            continue
        tab.url, tab.title = entry.get("url", tab.url), entry.get("title", tab.title)
    return tabs


def page_state(tab: Tab) -> dict:
    """The tab's current URL and title, read from the page itself: `{url, title}`."""
    value = evaluate_value(tab.session, "[location.href, document.title]") or [tab.url, tab.title]
    tab.url, tab.title = value[0], value[1]
    return {"url": tab.url, "title": tab.title}


def evaluate_value(session: Session, expression: str, *, timeout: float | None = 10.0):
    """Runtime.evaluate returning the value; None when the page threw."""
    answer = session.call(
        "Runtime.evaluate", {"expression": expression, "returnByValue": True}, timeout=timeout
    )
    if "exceptionDetails" in answer:
        return None
    return answer.get("result", {}).get("value")
