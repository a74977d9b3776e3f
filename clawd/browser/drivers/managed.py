"""driver: managed, Chromium that clawd launches here with a user data directory of its own under
$CLAWD_HOME; stopping it closes the browser and reaps its process tree."""

from __future__ import annotations

import logging
import pathlib

from clawd.browser import decorate, launcher
from clawd.browser.browser import Browser
from clawd.browser.drivers.base import Driver
from clawd.browser.executables import find_executable

log = logging.getLogger("clawd.browser")

CLOSE_WAIT = 2.5
EXIT_WAIT = 1.0  # a connect to a browser that failed: is it exiting?
HANDSHAKE_TIMEOUT = 10.0


class ManagedDriver(Driver):
    name = "managed"
    managed = True
    chromium_flags = True
    keepalive = False  # our own child: its socket closes when it dies

    @property
    def user_data_dir(self) -> pathlib.Path:
        return self.layout.user_data_dir(self.profile.name)

    def obtain(self, headless: bool | None) -> str:
        spec = self._launch_spec(headless)
        launcher.wait_port_free(spec.port, CLOSE_WAIT)  # our own previous browser may still exit
        self.process = launcher.launch(spec)
        return launcher.wait_ready(self.process)

    def _launch_spec(self, headless: bool | None) -> launcher.LaunchSpec:
        """The command line: the executable found, headless resolved, the data dir decorated."""
        config = self.config
        self.executable = find_executable(config.executable_path)
        self.headless = launcher.resolve_headless(config.headless) if headless is None else headless
        no_sandbox = launcher.resolve_no_sandbox(config.no_sandbox)
        if no_sandbox:
            log.info(
                "launching Chromium with --no-sandbox (browser.noSandbox: %s)", config.no_sandbox
            )
        user_data = self.user_data_dir
        user_data.mkdir(parents=True, exist_ok=True, mode=0o700)
        decorate.decorate(
            user_data,
            self.profile.name,
            self.profile.color or config.color,
            proxied_udp_only=config.ssrf_policy.strict,  # every request judged: WebRTC too
        )
        return launcher.LaunchSpec(
            self.executable,
            self.profile.cdp_port,
            user_data,
            self.headless,
            no_sandbox,
            tuple(config.extra_args) + self.launch_args,
            webmcp=config.webmcp,
        )

    def connect_options(self, endpoint: str | None = None) -> dict:
        return {"handshake_timeout": HANDSHAKE_TIMEOUT}

    def browser_options(self) -> dict:
        return {"max_tabs": self.config.max_tabs, "window_per_tab": bool(self.headless)}

    def start_failed(self, exc: Exception) -> None:
        process = self.process
        if process is not None and launcher.wait_exit(process, EXIT_WAIT):
            # it died starting (after its listening line): its stderr says why
            self.process = None
            raise launcher.exited_while_starting(process) from exc
        self.stop()

    def close_browser(self, browser: Browser) -> bool:
        browser.root.try_call("Browser.close", timeout=CLOSE_WAIT)
        return True

    def stop(self) -> bool:
        """Reap the process tree (it exits by itself after Browser.close); the runtime already
        counted it as running."""
        process, self.process = self.process, None
        if process is not None and not launcher.wait_exit(
            process, CLOSE_WAIT if process.alive() else 0
        ):
            launcher.stop_tree(process)
        return False

    def connection_lost(self) -> None:
        if self.process is not None and not self.process.alive():
            # it died (crash, OOM killer, kill -9): reap what it left, free its port
            launcher.stop_tree(self.process, grace=1.0)
            self.process = None
