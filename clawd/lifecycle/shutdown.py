"""Stopping in order (daemon.py runs it on SIGTERM/SIGINT), within a budget: stop taking
requests, let those in flight finish, stop the managed browsers, answer whoever still waits."""

from __future__ import annotations

import logging
import os
import threading
import time
from collections.abc import Callable

from clawd import errors
from clawd.page.observe import recording
from clawd.server.app import ClawdServer
from clawd.server.service import Service

log = logging.getLogger("clawd.daemon")

SHUTDOWN_BUDGET = 10.0  # the promise: SIGTERM to exit in less than this
DRAIN_S = 4.0  # how long in-flight requests may finish before their browsers are stopped
BROWSER_STOP_S = 4.0  # Browser.close, SIGTERM, SIGKILL after 2.5 s: bounded, run in parallel
RECORDINGS_S = 2.0  # ffmpeg ends a real-time stream in well under a second


def give_up(began: float, budget: float) -> None:
    """The last resort when something hangs past the budget: better a logged exit than a
    SIGKILL from the service manager with nothing said."""
    log.error(
        "shutdown did not finish within %.0f s (%.1f s so far); exiting now",
        budget,
        time.monotonic() - began,
    )
    logging.shutdown()
    os._exit(1)


class Shutdown:
    """One orderly stop of `server` and the browsers of `service`. The budget, the drain time
    and what to do past the budget are seams for tests, which cannot wait 10 s nor survive
    os._exit."""

    def __init__(
        self,
        server: ClawdServer,
        service: Service,
        *,
        notify: Callable[[str], object] = lambda state: None,
        budget: float = SHUTDOWN_BUDGET,
        drain_s: float = DRAIN_S,
        past_budget: Callable[[float, float], None] = give_up,
    ):
        self.server, self.service, self.notify = server, service, notify
        self.budget, self.drain_s, self.past_budget = budget, drain_s, past_budget

    def __call__(self) -> int:
        """Stop accepting, let requests in flight finish (drain_s), stop the managed browsers
        (which fails the CDP calls still pending, so their requests answer with a code), close."""
        began = time.monotonic()
        self.notify("STOPPING=1\nSTATUS=stopping")
        watchdog = self._watchdog(began)
        self.server.drain()
        self._drain()
        self._end_recordings()
        self._stop_browsers()
        left = self.budget - 2.0 - (time.monotonic() - began)
        if not self.server.in_flight.wait_idle(max(left, 0.1)):
            self._answer_stragglers()
        self.server.server_close()
        watchdog.cancel()
        log.info("clawd stopped in %.1f s", time.monotonic() - began)
        return 0

    def _watchdog(self, began: float) -> threading.Timer:
        watchdog = threading.Timer(self.budget - 0.5, self.past_budget, args=(began, self.budget))
        watchdog.daemon = True
        watchdog.start()
        return watchdog

    def _drain(self) -> None:
        in_flight = self.server.in_flight
        if not in_flight.wait_idle(self.drain_s):
            running = in_flight.describe()
            log.info(
                "stopping the browsers under %d request(s) still running: %s",
                len(running),
                ", ".join(running),
            )

    def _answer_stragglers(self) -> None:
        error = errors.ServiceShuttingDown("the service shut down before this request finished")
        for request in self.server.in_flight.requests():
            answered = request.answer_instead(error)
            log.warning(
                "%s did not finish in time%s",
                request,
                f": answered {error.http_status} {error.code}" if answered else "",
            )

    def _end_recordings(self) -> None:
        """Recordings end as `shutdown` while their browsers still run: each video finished,
        each sidecar written (the acts drained above are in it)."""
        runtimes = self.service.running_runtimes()
        tabs = [tab for r in runtimes if r.browser is not None for tab in r.browser.tabs()]
        recording.end_all(tabs, "shutdown", RECORDINGS_S)

    def _stop_browsers(self) -> None:
        service = self.service
        names = [r.profile.name for r in service.running_runtimes()]
        threads = [
            threading.Thread(
                target=service.forget_runtime, args=(name,), name=f"stop-{name}", daemon=True
            )
            for name in names
        ]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + BROWSER_STOP_S
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0))
        service.stop_all()  # anything not running but holding a process
