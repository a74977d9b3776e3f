"""A profile's browser over the life of the service: launched (managed) or connected to
(attach-only, remote cdpUrl, existing-session), stopped on request, relaunched after a crash."""

from __future__ import annotations

import itertools
import logging
import pathlib
import threading
import time
from collections.abc import Callable, Iterable

from clawd import errors
from clawd.browser import decorate, filebridge, launcher, user_chrome
from clawd.browser.browser import Browser, TabHook
from clawd.browser.continuity import StateKeeper
from clawd.browser.executables import find_executable
from clawd.browser.sweeper import TabSweeper
from clawd.cdp import discovery, pool
from clawd.cdp.connection import Connection
from clawd.config.model import BrowserConfig, ProfileConfig, StateLayout

log = logging.getLogger("clawd.browser")

CLOSE_WAIT = 2.5
EXIT_WAIT = 1.0  # a connect to a browser that failed: is it exiting?
KEEPALIVE_INTERVAL = 15.0
BACKOFF_MAX = 30.0


class BrowserRuntime:
    def __init__(
        self,
        profile: ProfileConfig,
        config: BrowserConfig,
        layout: StateLayout,
        *,
        hooks: Iterable[TabHook] = (),
        connect: Callable[..., Connection] = Connection,
        launch_args: Iterable[str] = (),
        relay=None,
    ):
        self.profile = profile
        self.config = config
        self.layout = layout
        self.hooks = list(hooks)
        self._connect = connect
        self.launch_args = tuple(launch_args)  # clawd's own additions (strict mode's proxy)
        self.relay = relay  # the extension relay (clawd/relay/server.py) for driver: extension
        self._lock = threading.RLock()
        self._ids = itertools.count(1)  # stable tab ids are never reused within a service run
        self.browser: Browser | None = None
        self.process: launcher.ChromiumProcess | None = None
        self.headless: bool | None = None
        self.executable: str | None = None
        self.ws_url: str | None = None
        self.started_at: float | None = None
        self.sweeper: TabSweeper | None = None
        self._found_user_data: pathlib.Path | None = None
        self._failures = 0  # consecutive failed starts: automatic relaunches back off
        self._retry_at = 0.0
        self._lost_tabs: set[str] = set()  # tab ids of a session the pool ended
        self.endpoint: str | None = None  # the cdpUrl in use (of a failover list)
        self.skipped: list[str] = []  # endpoints skipped at the last connect, and why (redacted)
        self.keeper = (
            StateKeeper(profile.name, profile.remote) if profile.kind == "remote" else None
        )
        self._sandbox = None  # driver: sandbox, its container (clawd/sandbox/container.py)

    @property
    def kind(self) -> str:
        if self.profile.kind == "managed" and self.attach_only:
            return "attach-only"
        return self.profile.kind

    @property
    def attach_only(self) -> bool:
        flag = self.profile.attach_only
        return self.config.attach_only if flag is None else flag

    @property
    def managed(self) -> bool:
        return self.kind == "managed"

    @property
    def user_data_dir(self) -> pathlib.Path | None:
        if self.profile.kind == "existing-session":
            if self.profile.user_data_dir is None:  # found when connecting (browser/user_chrome.py)
                return self._found_user_data
            return pathlib.Path(self.profile.user_data_dir).expanduser()
        if self.managed:
            return self.layout.user_data_dir(self.profile.name)
        return None

    def running(self) -> bool:
        browser = self.browser
        return browser is not None and not browser.connection.closed

    def connect_if_free(self) -> None:
        """Connect now when that launches nothing: profile chrome with its extension there, so
        listing tabs shows the shared tabs without a start first."""
        if self.kind == "extension" and not self.running() and self.relay and self.relay.connected:
            self.ensure()

    # -- start --------------------------------------------------------------------------------
    def ensure(self) -> Browser:
        """The running browser, started (or connected) first when it is not. After a crash the
        next request relaunches a managed browser, once per call; repeated failures back off."""
        browser = self.browser
        if browser is not None and not browser.connection.closed:
            if self._sandbox is not None:
                self._sandbox.touch()  # its hot window counts from the last use
            return browser
        wait = self._retry_at - time.monotonic()
        if wait > 0 and self.kind != "extension":  # asking the relay costs nothing: no back-off
            raise errors.BrowserGone(
                f"profile {self.profile.name}: the browser failed to start "
                f"{self._failures} time(s); next attempt in {wait:.1f} s"
            )
        if self.kind == "sandbox" and not self.profile.sandbox.auto_start:
            raise errors.BrowserNotRunning(
                f"sandbox profile {self.profile.name} has sandbox.autoStart false: run "
                f"clawd-browser --browser-profile {self.profile.name} start"
            )
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
        if self.kind == "remote":
            connection, ws_url = self._connect_remote()
        else:
            ws_url = self._launch(headless) if self.managed else self._locate()
        restored = None
        try:
            connection = connection or self._open(ws_url)
            if self.keeper is not None and self.keeper.pending:
                began = time.perf_counter()
                restored = self.keeper.restore_state(connection)
                spent = time.perf_counter() - began
            if self.kind == "sandbox":  # uploads and downloads cross into the container
                filebridge.bind(connection, self.sandbox.files())
            browser = Browser(
                connection,
                profile=self.profile.name,
                hooks=self.hooks,
                max_tabs=self.config.max_tabs if self.managed else None,
                id_counter=self._ids,
                window_per_tab=self.managed and bool(self.headless),
                no_tab=_relay_no_tab if self.kind == "extension" else None,
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
            process = self.process
            if process is not None and launcher.wait_exit(process, EXIT_WAIT):
                # it died starting (after its listening line): its stderr says why
                self.process = None
                raise launcher.exited_while_starting(process) from exc
            self._kill_launched()
            raise
        connection.on_close(lambda reason: self._on_connection_closed(browser, reason))
        if not self.managed:  # a remote peer can vanish without closing the socket
            connection.start_keepalive(KEEPALIVE_INTERVAL)
        self.browser, self.ws_url, self.started_at = browser, ws_url, time.time()
        self._start_sweeper(browser)
        if self.keeper is not None:
            if restored is not None:
                self.keeper.finish_restore(restored)
            browser.gone_tabs = {
                tab_id: "it was in the browser session the pool ended, and its tabs ended with it"
                f" (remote.restore: {self.keeper.mode}); see GET /tabs"
                for tab_id in self._lost_tabs - set((restored or {}).get("tabs", ()))
            }
            self._lost_tabs = set()
            self.keeper.watch(browser)
        where = f" at {discovery.redact(self.endpoint)}" if self.endpoint else ""
        log.info("profile %s: %s browser ready%s", self.profile.name, self.kind, where)
        return browser

    def _connect_remote(self) -> tuple[Connection, str]:
        """The first endpoint of cdpUrl (a list: in order) that gives a session; busy, refusing
        and unreachable ones are skipped. All failed: the most telling error (auth, then busy)."""
        failures: list[errors.ClawdError] = []
        self.skipped = []
        for url in self.profile.cdp_urls:
            try:
                ws_url = self._locate(url)
                connection = self._open(ws_url, gone=self._gone_error(url))
            except errors.CdpUnreachable as exc:
                failures.append(exc)
                self.skipped.append(f"{discovery.redact(url)}: {exc.code}")
                if len(self.profile.cdp_urls) > 1:
                    log.warning(
                        "profile %s: skipping %s (%s)",
                        self.profile.name,
                        discovery.redact(url),
                        exc.code,
                    )
                continue
            self.endpoint = url
            return connection, ws_url
        if len(failures) == 1:
            raise failures[0]
        for kind in (errors.RemoteAuthFailed, errors.PoolBusy):
            chosen = next((f for f in failures if isinstance(f, kind)), None)
            if chosen is not None:
                break
        else:
            chosen = failures[-1]
        raise type(chosen)(
            f"no endpoint of profile {self.profile.name} gave a session: "
            + "; ".join(f.message for f in failures),
            **chosen.details,
        )

    def _gone_error(self, url: str) -> Callable[[str], errors.ClawdError]:
        restore = self.keeper.mode if self.keeper is not None else "none"

        def gone(reason: str) -> errors.ClawdError:
            if reason == "closed by clawd":
                return errors.BrowserGone(f"browser connection closed ({reason})")
            return pool.session_ended(discovery.redact(url), reason, restore=restore)

        return gone

    def _start_sweeper(self, browser: Browser) -> None:
        cleanup = self.config.tab_cleanup
        if cleanup.enabled and self.managed:
            self.sweeper = TabSweeper(
                browser, idle_seconds=cleanup.idle_minutes * 60, interval=cleanup.interval_seconds
            )
            self.sweeper.start()

    def _launch(self, headless: bool | None) -> str:
        self.executable = find_executable(self.config.executable_path)
        self.headless = (
            launcher.resolve_headless(self.config.headless) if headless is None else headless
        )
        no_sandbox = launcher.resolve_no_sandbox(self.config.no_sandbox)
        if no_sandbox:
            log.info(
                "launching Chromium with --no-sandbox (browser.noSandbox: %s)",
                self.config.no_sandbox,
            )
        user_data = self.user_data_dir
        user_data.mkdir(parents=True, exist_ok=True, mode=0o700)
        decorate.decorate(
            user_data,
            self.profile.name,
            self.profile.color or self.config.color,
            proxied_udp_only=self.config.ssrf_policy.strict,  # every request judged: WebRTC too
        )
        spec = launcher.LaunchSpec(
            self.executable,
            self.profile.cdp_port,
            user_data,
            self.headless,
            no_sandbox,
            tuple(self.config.extra_args) + self.launch_args,
        )
        launcher.wait_port_free(
            spec.port, CLOSE_WAIT
        )  # our own previous browser may still be exiting
        self.process = launcher.launch(spec)
        return launcher.wait_ready(self.process)

    def _locate(self, url: str | None = None) -> str:
        """The websocket of a browser we do not launch (`url`: a remote profile's endpoint)."""
        timeout = self.config.remote_cdp_timeout_ms / 1000
        kind = self.kind
        if kind == "remote":
            return discovery.websocket_url(
                url or self.profile.cdp_urls[0],
                timeout=timeout,
                allow_other_host=self.config.ssrf_policy.dangerously_allow_private_network,
            )
        if kind == "sandbox":
            return self.sandbox.ensure()
        if kind == "extension":
            return _relay_endpoint(self.relay)
        if kind == "existing-session":
            if self.profile.user_data_dir is None:
                self._found_user_data = user_chrome.find()
            return _devtools_active_port(self.user_data_dir)
        try:
            return discovery.discover(f"http://127.0.0.1:{self.profile.cdp_port}", timeout=timeout)
        except errors.CdpUnreachable:
            raise errors.BrowserNotRunning(
                f"profile {self.profile.name} is attach-only and no browser answers on port "
                f"{self.profile.cdp_port}; start Chromium with "
                f"--remote-debugging-port={self.profile.cdp_port}"
            ) from None

    def _open(self, ws_url: str, **kw) -> Connection:
        timeout = self.config.remote_cdp_handshake_timeout_ms / 1000 if not self.managed else 10.0
        return self._connect(
            ws_url, handshake_timeout=timeout, name=f"cdp-{self.profile.name}", **kw
        )

    # -- stop ---------------------------------------------------------------------------------
    def stop(self) -> bool:
        """Managed: close Chromium (Browser.close, then the process tree). Otherwise only our
        connection closes (the hooks clear their overrides first). True if anything was running."""
        with self._lock:
            browser, process = self.browser, self.process
            was_running = browser is not None or process is not None
            if browser is not None and not browser.connection.closed:
                if self.managed:
                    browser.root.try_call("Browser.close", timeout=CLOSE_WAIT)
                else:
                    self._clear_overrides(browser)
                browser.close()
            self._kill_launched()
            self._forget()
            if self.keeper is not None:
                self.keeper.forget()  # a session the user ended is not restored
            if self._sandbox is not None:  # POST /stop stops the container
                was_running = self._sandbox.stop() or was_running
            return was_running

    @property
    def sandbox(self):
        """driver: sandbox, the profile's container; None for the other drivers."""
        if self._sandbox is None and self.kind == "sandbox":
            from clawd.sandbox.container import SandboxContainer

            self._sandbox = SandboxContainer(self.profile, self.layout)
        return self._sandbox

    def _clear_overrides(self, browser: Browser) -> None:
        for tab in browser.tabs():
            for hook in self.hooks:
                reset = getattr(hook, "reset", None)
                if reset is not None:
                    try:
                        reset(tab)
                    except errors.ClawdError as exc:
                        log.warning("clearing overrides of %s failed: %s", tab.tab_id, exc)

    def _kill_launched(self) -> None:
        process, self.process = self.process, None
        if process is not None and not launcher.wait_exit(
            process, CLOSE_WAIT if process.alive() else 0
        ):
            launcher.stop_tree(process)

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
        if self.process is not None and not self.process.alive():
            # it died (crash, OOM killer, kill -9): reap what it left, free its port
            launcher.stop_tree(self.process, grace=1.0)
            self.process = None
        self._forget()

    # -- status -------------------------------------------------------------------------------
    def status(self) -> dict:
        browser = self.browser if self.running() else None
        process = self.process
        return {
            "profile": self.profile.name,
            "driver": self.kind,
            "running": browser is not None,
            "pid": process.pid if process is not None and process.alive() else None,
            "cdpPort": self.profile.cdp_port,
            "cdpUrl": redacted_cdp_url(self.profile.cdp_url),
            "executablePath": self.executable,
            "headless": self.headless,
            "userDataDir": str(self.user_data_dir) if self.user_data_dir else None,
            "color": self.profile.color or self.config.color,
            "tabCount": len(browser.tabs()) if browser else 0,
            **self._remote_status(),
            **({"sandbox": self.sandbox.status()} if self.kind == "sandbox" else {}),
            **({"relay": _relay_status(self.relay)} if self.kind == "extension" else {}),
        }

    def _remote_status(self) -> dict:
        if self.keeper is None:
            return {}
        return {
            "endpoint": discovery.redact(self.endpoint) if self.endpoint else None,
            "endpointsSkipped": list(self.skipped),
            **self.keeper.status(),
        }


def _relay_endpoint(relay) -> str:
    """The relay's DevTools websocket, once the extension is connected."""
    if relay is None:
        raise errors.RelayDisconnected(
            "the extension relay is off: set relay.enabled: true and restart clawd"
        )
    if not relay.connected:
        raise errors.RelayDisconnected(
            f"no clawd extension is connected to the relay on 127.0.0.1:{relay.port}: open "
            "Chrome with the clawd extension and pair it (its options page: relay port and token)"
        )
    return relay.browser_ws_url


def _relay_no_tab() -> Exception:
    return errors.RelayNoTab(
        "no tab is shared with clawd: click the clawd button on the tab to share "
        "(the badge shows ON)"
    )


def _relay_status(relay) -> dict:
    return relay.status() if relay is not None else {"enabled": False, "connected": False}


def _devtools_active_port(user_data_dir: pathlib.Path) -> str:
    path = user_data_dir / "DevToolsActivePort"
    try:
        port, ws_path = path.read_text().splitlines()[:2]
        int(port)
    except (OSError, ValueError):
        raise errors.BrowserNotRunning(
            f"no running browser with remote debugging found for {user_data_dir} (no readable "
            f"DevToolsActivePort); {user_chrome.SWITCH_ON}"
        ) from None
    return f"ws://127.0.0.1:{port.strip()}{ws_path.strip()}"


def redacted_cdp_url(url: str | tuple[str, ...] | None) -> str | list[str] | None:
    """A cdpUrl (or failover list) without tokens or userinfo, for statuses and answers."""
    if not url:
        return None
    if isinstance(url, str):
        return discovery.redact(url)
    return [discovery.redact(u) for u in url]
