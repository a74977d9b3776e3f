"""A profile's browser over the life of the service: started on demand through its driver
(browser/drivers/: launched, found or asked for), stopped on request, started again after a crash
with back-off, failed over along a list of endpoints, its pool session carried over."""

from __future__ import annotations

import itertools
import logging
import pathlib
import threading
import time
from collections.abc import Callable, Iterable

from clawd import errors
from clawd.browser.browser import Browser, TabHook
from clawd.browser.drivers.base import Driver
from clawd.browser.sweeper import TabSweeper
from clawd.cdp import discovery
from clawd.cdp.connection import Connection
from clawd.config.model import BrowserConfig, ProfileConfig, StateLayout

log = logging.getLogger("clawd.browser")

KEEPALIVE_INTERVAL = 15.0
BACKOFF_MAX = 30.0


class BrowserRuntime:
    """One profile's browser, whichever its driver: the runtime asks the driver how to get the
    browser and what it allows, and keeps the rest (lock, back-off, failover, continuity)."""

    def __init__(
        self,
        profile: ProfileConfig,
        config: BrowserConfig,
        layout: StateLayout,
        driver: Driver,
        *,
        hooks: Iterable[TabHook] = (),
        connect: Callable[..., Connection] = Connection,
    ):
        self.profile = profile
        self.config = config
        self.layout = layout
        self.driver = driver
        self.hooks = list(hooks)
        self._connect = connect
        self._lock = threading.RLock()
        self._ids = itertools.count(1)  # stable tab ids are never reused within a service run
        self.browser: Browser | None = None
        self.ws_url: str | None = None
        self.started_at: float | None = None
        self.sweeper: TabSweeper | None = None
        self._failures = 0  # consecutive failed starts: automatic relaunches back off
        self._retry_at = 0.0
        self._lost_tabs: set[str] = set()  # tab ids of a session the pool ended
        self.endpoint: str | None = None  # the cdpUrl in use (of a failover list)
        self.skipped: list[str] = []  # endpoints skipped at the last connect, and why (redacted)
        self.keeper = driver.keeper  # continuity of a session the browser's end may take

    @property
    def kind(self) -> str:
        return self.driver.name

    @property
    def managed(self) -> bool:
        """clawd launched this browser here and owns its data (headless, reset, render apply)."""
        return self.driver.managed

    @property
    def user_data_dir(self) -> pathlib.Path | None:
        return self.driver.user_data_dir

    @property
    def process(self):
        """The Chromium process clawd launched (launcher.ChromiumProcess), if any."""
        return self.driver.process

    @property
    def sandbox(self):
        """driver: sandbox, the profile's container; None for the other drivers."""
        return self.driver.sandbox

    def running(self) -> bool:
        browser = self.browser
        return browser is not None and not browser.connection.closed

    def connect_if_free(self) -> None:
        """Connect now when that launches nothing: profile chrome with its extension there, so
        listing tabs shows the shared tabs without a start first."""
        if not self.running() and self.driver.free_to_connect():
            self.ensure()

    # -- start --------------------------------------------------------------------------------
    def ensure(self) -> Browser:
        """The running browser, started (or connected) first when it is not. After a crash the
        next request relaunches a managed browser, once per call; repeated failures back off."""
        browser = self.browser
        if browser is not None and not browser.connection.closed:
            self.driver.touch()
            return browser
        wait = self._retry_at - time.monotonic()
        if wait > 0 and self.driver.backs_off:
            raise errors.BrowserGone(
                f"profile {self.profile.name}: the browser failed to start "
                f"{self._failures} time(s); next attempt in {wait:.1f} s"
            )
        self.driver.check_on_demand()
        return self.start()

    def start(self, *, headless: bool | None = None) -> Browser:
        if not self.config.enabled:
            raise errors.BrowserDisabled("the browser is disabled (browser.enabled: false)")
        with self._lock:
            if self.running():
                return self.browser
            try:
                browser = self._start(headless)
            except (errors.PoolBusy, errors.RemoteAuthFailed):
                raise  # the pool's own answer: the caller retries (retryAfter) or fixes cdpUrl
            except errors.ClawdError:
                self._failures += 1
                self._retry_at = time.monotonic() + min(BACKOFF_MAX, 0.5 * 2**self._failures)
                raise
            self._failures, self._retry_at = 0, 0.0
            return browser

    def _start(self, headless: bool | None) -> Browser:
        old = self.browser
        if old is not None and old.connection.closed:  # before its close callback ran
            self._closed(old, old.connection.close_reason or "closed")
        self._forget()
        connection = None
        if self.driver.endpoints:
            connection, ws_url = self._connect_first()
        else:
            ws_url = self.driver.obtain(headless)
        restored = None
        try:
            connection = connection or self._open(ws_url)
            if self.keeper is not None and self.keeper.pending:
                began = time.perf_counter()
                restored = self.keeper.restore_state(connection)
                spent = time.perf_counter() - began
            self.driver.after_connect(connection)
            browser = Browser(
                connection,
                profile=self.profile.name,
                hooks=self.hooks,
                id_counter=self._ids,
                **self.driver.browser_options(),
            )
            browser.setup()
            if restored is not None and self.keeper.mode == "tabs":
                began = time.perf_counter()
                restored["tabs"] = self.keeper.restore_tabs(browser)
                spent += time.perf_counter() - began
            if restored is not None:  # the restoring alone, not the connect and set-up
                restored["ms"] = round(spent * 1000, 1)
        except Exception as exc:
            if connection is not None:
                connection.close()
            self.driver.start_failed(exc)
            raise
        connection.on_close(lambda reason: self._on_connection_closed(browser, reason))
        if self.driver.keepalive:  # a remote peer can vanish without closing the socket
            connection.start_keepalive(KEEPALIVE_INTERVAL)
        self.browser, self.ws_url, self.started_at = browser, ws_url, time.time()
        self._start_sweeper(browser)
        if self.keeper is not None:
            self._carry_over(browser, restored)
        where = f" at {discovery.redact(self.endpoint)}" if self.endpoint else ""
        log.info("profile %s: %s browser ready%s", self.profile.name, self.kind, where)
        return browser

    def _carry_over(self, browser: Browser, restored: dict | None) -> None:
        """After a pool session ended: what was restored, which tabs are gone and why."""
        if restored is not None:
            self.keeper.finish_restore(restored)
        browser.gone_tabs = {
            tab_id: "it was in the browser session the pool ended, and its tabs ended with it"
            f" (remote.restore: {self.keeper.mode}); see GET /tabs"
            for tab_id in self._lost_tabs - set((restored or {}).get("tabs", ()))
        }
        self._lost_tabs = set()
        self.keeper.watch(browser)

    def _connect_first(self) -> tuple[Connection, str]:
        """The first of the driver's endpoints (cdpUrl, a list: in order) that gives a session;
        busy, refusing and unreachable ones are skipped. All failed: the most telling error."""
        endpoints = self.driver.endpoints
        failures: list[errors.ClawdError] = []
        self.skipped = []
        for url in endpoints:
            try:
                ws_url = self.driver.locate(url)
                connection = self._open(ws_url, url)
            except errors.CdpUnreachable as exc:
                failures.append(exc)
                self.skipped.append(f"{discovery.redact(url)}: {exc.code}")
                if len(endpoints) > 1:
                    log.warning(
                        "profile %s: skipping %s (%s)",
                        self.profile.name,
                        discovery.redact(url),
                        exc.code,
                    )
                continue
            self.endpoint = url
            return connection, ws_url
        raise _most_telling(failures, self.profile.name)

    def _start_sweeper(self, browser: Browser) -> None:
        cleanup = self.config.tab_cleanup
        if cleanup.enabled and self.driver.managed:
            self.sweeper = TabSweeper(
                browser, idle_seconds=cleanup.idle_minutes * 60, interval=cleanup.interval_seconds
            )
            self.sweeper.start()

    def _open(self, ws_url: str, endpoint: str | None = None) -> Connection:
        return self._connect(
            ws_url, name=f"cdp-{self.profile.name}", **self.driver.connect_options(endpoint)
        )

    # -- stop ---------------------------------------------------------------------------------
    def stop(self) -> bool:
        """Close the browser when clawd owns it, else only our connection (the hooks clear their
        overrides first); the driver stops the rest. True if anything was running."""
        with self._lock:
            browser = self.browser
            was_running = browser is not None or self.driver.process is not None
            if browser is not None and not browser.connection.closed:
                if not self.driver.close_browser(browser):
                    self._clear_overrides(browser)
                browser.close()
            was_running = self.driver.stop() or was_running
            self._forget()
            if self.keeper is not None:
                self.keeper.forget()  # a session the user ended is not restored
            return was_running

    def _clear_overrides(self, browser: Browser) -> None:
        for tab in browser.tabs():
            for hook in self.hooks:
                reset = getattr(hook, "reset", None)
                if reset is not None:
                    try:
                        reset(tab)
                    except errors.ClawdError as exc:
                        log.warning("clearing overrides of %s failed: %s", tab.tab_id, exc)

    def _forget(self) -> None:
        if self.sweeper is not None:
            self.sweeper.stop()
            self.sweeper = None
        self.browser = None
        self.ws_url = None
        self.started_at = None

    def _on_connection_closed(self, browser: Browser, reason: str) -> None:
        log.warning("profile %s: browser connection closed (%s)", self.profile.name, reason)
        with self._lock:
            if self.browser is browser:
                self._closed(browser, reason)

    def _closed(self, browser: Browser, reason: str) -> None:
        """(self._lock held.) The connection of the current browser is gone: on the close
        callback's thread, or first thing in the next start when that comes sooner."""
        if self.keeper is not None and reason != "closed by clawd":
            self.keeper.session_ended(reason)
            self._lost_tabs = {t.tab_id for t in browser.tabs()}
        for tab in browser.tabs():
            browser._drop(tab.target_id)
        self.driver.connection_lost()
        self._forget()

    # -- status -------------------------------------------------------------------------------
    def status(self) -> dict:
        browser = self.browser if self.running() else None
        driver = self.driver
        return {
            "profile": self.profile.name,
            "driver": self.kind,
            "running": browser is not None,
            "pid": driver.pid(),
            "cdpPort": self.profile.cdp_port,
            "cdpUrl": redacted_cdp_url(self.profile.cdp_url),
            "executablePath": driver.executable,
            "headless": driver.headless,
            "userDataDir": str(self.user_data_dir) if self.user_data_dir else None,
            "color": self.profile.color or self.config.color,
            "tabCount": len(browser.tabs()) if browser else 0,
            **self._continuity_status(),
            **driver.status(),
        }

    def _continuity_status(self) -> dict:
        if self.keeper is None:
            return {}
        return {
            "endpoint": discovery.redact(self.endpoint) if self.endpoint else None,
            "endpointsSkipped": list(self.skipped),
            **self.keeper.status(),
        }


def _most_telling(failures: list[errors.ClawdError], profile: str) -> errors.ClawdError:
    """Of the endpoints' failures: the only one, else auth before busy before the last, its
    message naming them all."""
    if len(failures) == 1:
        return failures[0]
    for kind in (errors.RemoteAuthFailed, errors.PoolBusy):
        chosen = next((f for f in failures if isinstance(f, kind)), None)
        if chosen is not None:
            break
    else:
        chosen = failures[-1]
    return type(chosen)(
        f"no endpoint of profile {profile} gave a session: "
        + "; ".join(f.message for f in failures),
        **chosen.details,
    )


def redacted_cdp_url(url: str | tuple[str, ...] | None) -> str | list[str] | None:
    """A cdpUrl (or failover list) without tokens or userinfo, for statuses and answers."""
    if not url:
        return None
    if isinstance(url, str):
        return discovery.redact(url)
    return [discovery.redact(u) for u in url]
