"""Session continuity for remote profiles on a browser pool (docs/architecture.md, issue 18).

A pool gives a fresh browser per websocket and ends it at its session timeout or restart. The
keeper holds what the agent would lose: the cookies, the localStorage of the origins its tabs
visited, and (restore: tabs) the tabs' URLs with their stable ids and labels. It reads them from
the live browser after each navigation and on a timer (never per request), and puts them back on
the next connect, before the agent's next call is served:
- before Browser.setup(), on the bare connection (no tab hooks, nothing in the tab registry):
  Storage.setCookies, then the scratch tab of page/state/scratch.py (every request answered by
  clawd, offline besides), so each origin's localStorage is written without a request reaching
  the site;
- after setup, the tabs: created through Target.createTarget at their URLs (so the tab hooks and
  the navigation policy see them as any new tab), then given back their old ids and labels.
A session ended by POST /stop is forgotten, never restored.
The same thread also sends the optional keep-alive (remote.keepAliveSeconds)."""

from __future__ import annotations

import json
import logging
import threading
import time
import urllib.parse

from clawd import errors
from clawd.browser.browser import Browser
from clawd.cdp.connection import Connection
from clawd.cdp.session import Session
from clawd.config.model import RemoteOptions
from clawd.page.state.scratch import ScratchTab

log = logging.getLogger("clawd.browser")

CALL_TIMEOUT = 5.0
TABS_LOAD_WAIT = 15.0  # reopened tabs, all together
NAV_SETTLE = 0.3  # after a navigation, wait this long for more before reading the state
COOKIE_PARAMS = (
    "name",
    "value",
    "domain",
    "path",
    "secure",
    "httpOnly",
    "sameSite",
    "expires",
    "priority",
    "sourceScheme",
    "sourcePort",
    "partitionKey",
)
READ_STORAGE = (
    "JSON.stringify([location.origin, Object.keys(localStorage).map(k => [k, "
    "localStorage.getItem(k)])])"
)


class StateKeeper:
    def __init__(self, profile: str, options: RemoteOptions):
        self.profile = profile
        self.options = options
        self._lock = threading.Lock()
        self.cookies: list[dict] = []
        self.storage: dict[str, dict[str, str]] = {}  # origin -> localStorage items
        self.tabs: list[dict] = []  # {"tabId", "url", "label"} in creation order
        self.captured_at: float | None = None
        self.ended: str | None = None  # why the pool ended the last session (restore pending)
        self.restored_at: float | None = None
        self.restored: dict | None = None
        self.keepalives = 0
        self._browser: Browser | None = None
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def mode(self) -> str:
        return self.options.restore

    # -- while a session lives ----------------------------------------------------------------
    def watch(self, browser: Browser) -> None:
        """Read the state after each navigation and every stateIntervalSeconds; send the
        keep-alive when due. One thread per connection; it ends with the connection."""
        self._browser = browser
        if self.mode != "none":
            browser.connection.events.subscribe(
                "Target.targetInfoChanged", lambda _params: self._wake.set(), None
            )
        self._thread = threading.Thread(
            target=self._run, args=(browser,), name=f"keeper-{self.profile}", daemon=True
        )
        self._thread.start()

    def _run(self, browser: Browser) -> None:
        connection = browser.connection
        interval = float(self.options.state_interval_seconds)
        keepalive = self.options.keep_alive_seconds
        tick = min(interval, float(keepalive)) if keepalive else interval
        next_capture = time.monotonic() + interval
        while not connection.closed and self._browser is browser:
            woken = self._wake.wait(min(tick, max(0.05, next_capture - time.monotonic())))
            if connection.closed or self._browser is not browser:
                return
            if woken:
                self._wake.clear()
                time.sleep(NAV_SETTLE)  # a navigation: let the page settle, then read
            if keepalive and connection.keepalive_due(keepalive):
                try:
                    browser.root.call("Browser.getVersion", timeout=CALL_TIMEOUT)
                    self.keepalives += 1
                except errors.ClawdError:
                    pass  # the connection's own close handling says why
            if self.mode != "none" and (woken or time.monotonic() >= next_capture):
                self.capture(browser)
                next_capture = time.monotonic() + interval

    def capture(self, browser: Browser) -> bool:
        """Read cookies, each open tab's origin's localStorage and the tab list. False when the
        connection went away meanwhile (the last good state is kept)."""
        try:
            cookies = browser.root.call("Storage.getCookies", timeout=CALL_TIMEOUT)["cookies"]
        except errors.ClawdError as exc:
            log.debug("profile %s: reading cookies failed: %s", self.profile, exc)
            return False
        storage, tabs = {}, []
        for tab in browser.tabs():
            if tab.type != "page":
                continue
            if tab.label or tab.url not in ("", "about:blank"):  # not a pool's empty start tab
                tabs.append({"tabId": tab.tab_id, "url": tab.url, "label": tab.label})
            if not tab.url.startswith(("http://", "https://")):
                continue
            try:
                answer = tab.session.call(
                    "Runtime.evaluate",
                    {"expression": READ_STORAGE, "returnByValue": True},
                    timeout=CALL_TIMEOUT,
                )
                origin, items = json.loads(answer["result"]["value"])
            except (errors.ClawdError, KeyError, TypeError, ValueError) as exc:
                log.debug("profile %s: reading %s storage failed: %s", self.profile, tab.url, exc)
                continue
            if origin and origin != "null":
                storage[origin] = dict(items)
        if browser.connection.closed:
            return False
        with self._lock:
            self.cookies = cookies
            self.storage.update(storage)  # origins no longer open keep their last reading
            self.tabs = tabs
            self.captured_at = time.time()
        return True

    # -- the session ends ---------------------------------------------------------------------
    def session_ended(self, reason: str) -> None:
        """The pool closed the socket: restore at the next connect (unless restore: none)."""
        self._browser = None
        self._wake.set()
        if self.mode != "none":
            self.ended = reason

    def forget(self) -> None:
        """POST /stop (or the profile went away): nothing is restored."""
        self._browser = None
        self._wake.set()
        with self._lock:
            self.cookies, self.storage, self.tabs = [], {}, []
            self.captured_at = None
            self.ended = None

    # -- the next session ---------------------------------------------------------------------
    @property
    def pending(self) -> bool:
        return self.ended is not None and self.mode != "none"

    def restore_state(self, connection: Connection) -> dict:
        """Before Browser.setup(): cookies and localStorage onto the new browser."""
        with self._lock:
            cookies, storage = list(self.cookies), dict(self.storage)
        root = Session(connection)
        done = {"cookies": 0, "origins": []}
        params = [_cookie_param(c) for c in cookies]
        try:  # best effort: a refused cookie must not make every reconnect fail
            if params:
                root.call("Storage.setCookies", {"cookies": params}, timeout=CALL_TIMEOUT)
                done["cookies"] = len(params)
            storage = {o: items for o, items in storage.items() if items}
            if storage:
                done["origins"] = _write_storage(connection, storage)
        except errors.CdpError as exc:
            log.warning("profile %s: restoring the state failed: %s", self.profile, exc)
            done["error"] = exc.message
        return done

    def restore_tabs(self, browser: Browser) -> list[str]:
        """After Browser.setup(): the previous tabs at their URLs, under their old ids and labels.
        The pool's own blank start tab is closed when tabs were reopened."""
        with self._lock:
            saved = list(self.tabs)
        blank = [t for t in browser.tabs() if t.url in ("", "about:blank")]
        reopened = []
        for entry in saved:
            url = entry["url"] or "about:blank"
            try:
                target_id = browser.root.call(
                    "Target.createTarget",
                    {"url": url, "newWindow": browser.window_per_tab},
                    timeout=CALL_TIMEOUT,
                )["targetId"]
                tab = browser.wait_for_tab(target_id)
            except errors.ClawdError as exc:
                log.warning(
                    "profile %s: reopening %s failed: %s", self.profile, entry["tabId"], exc
                )
                continue
            tab.tab_id = entry["tabId"]
            tab.label = entry.get("label")
            reopened.append(tab)
        deadline = time.monotonic() + TABS_LOAD_WAIT
        for tab in reopened:  # the agent's next call finds its pages there, not about:blank
            _wait_loaded(tab, deadline)
        reopened = [tab.tab_id for tab in reopened]
        if reopened:
            for tab in blank:
                browser.close_tab(tab)
        return reopened

    def finish_restore(self, what: dict) -> None:
        self.ended = None
        self.restored_at = time.time()
        self.restored = what
        log.info("profile %s: restored after the pool ended the session: %s", self.profile, what)

    # -- status -------------------------------------------------------------------------------
    def status(self) -> dict:
        with self._lock:
            return {
                "restore": self.mode,
                "stateCapturedAt": _iso(self.captured_at),
                "stateSaved": {
                    "cookies": len(self.cookies),
                    "origins": sorted(self.storage),
                    "tabs": [t["tabId"] for t in self.tabs],
                },
                "sessionEnded": self.ended,
                "restoredAt": _iso(self.restored_at),
                "restored": self.restored,
                "keepAliveSeconds": self.options.keep_alive_seconds,
                "keepAlivesSent": self.keepalives,
            }


def _cookie_param(cookie: dict) -> dict:
    param = {k: cookie[k] for k in COOKIE_PARAMS if k in cookie}
    if cookie.get("session") or param.get("expires", -1) < 0:
        param.pop("expires", None)
    if param.get("sourcePort", 0) < 0:
        param.pop("sourcePort")
    return param


def _write_storage(connection: Connection, storage: dict[str, dict[str, str]]) -> list[str]:
    """The shared scratch tab (page/state/scratch.py) at each origin in turn, writing that
    origin's items: no request of it reaches a site. The origins written."""
    written = []
    with ScratchTab(connection, timeout=CALL_TIMEOUT) as scratch:
        for origin, items in storage.items():
            if urllib.parse.urlsplit(origin).scheme not in ("http", "https"):
                continue
            try:
                if not scratch.visit(origin):
                    log.warning(
                        "localStorage of %s not restored: not reached (%s)", origin, scratch.failure
                    )
                    continue
                scratch.write_local(origin, list(items.items()))
            except errors.ClawdError as exc:
                log.warning("restoring localStorage of %s failed: %s", origin, exc)
                continue
            written.append(origin)
    return written


def _wait_loaded(tab, deadline: float) -> None:
    """Until the reopened tab left about:blank and its document is parsed (or the deadline)."""
    while time.monotonic() < deadline:
        try:
            answer = tab.session.call(
                "Runtime.evaluate",
                {"expression": "[location.href, document.readyState]", "returnByValue": True},
                timeout=max(0.1, deadline - time.monotonic()),
            )
            href, state = answer["result"]["value"]
        except (errors.ClawdError, KeyError, TypeError, ValueError):
            href, state = "", "loading"
        if href not in ("", "about:blank") and state != "loading":
            return
        time.sleep(0.05)
    log.warning("tab %s: not loaded within the restore's wait", tab.tab_id)


def _iso(when: float | None) -> str | None:
    if when is None:
        return None
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(when)) + f".{int(when % 1 * 1000):03d}Z"
