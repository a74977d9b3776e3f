"""Closing tabs nobody has used for `tabCleanup.idleMinutes`, so cron jobs that open a tab per
run cannot pile up hundreds of them. Managed profiles only: clawd never closes the tabs of a
browser it merely attached to."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

log = logging.getLogger("clawd.browser")


class TabSweeper:
    def __init__(
        self,
        browser,
        *,
        idle_seconds: float,
        interval: float,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.browser = browser
        self.idle_seconds = idle_seconds
        self.interval = interval
        self.clock = clock
        self._stop = threading.Event()
        self.closed_count = 0

    def sweep(self) -> list[str]:
        """Close every idle page tab now; returns their stable ids."""
        now = self.clock()
        closed = []
        for tab in self.browser.tabs():
            if tab.type == "page" and now - tab.last_used >= self.idle_seconds:
                log.info("closing %s: idle for %.0f s", tab.tab_id, now - tab.last_used)
                self.browser.close_tab(tab)
                closed.append(tab.tab_id)
        self.closed_count += len(closed)
        return closed

    def start(self) -> None:
        threading.Thread(target=self._run, name="tab-sweeper", daemon=True).start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            if self.browser.connection.closed:
                return
            try:
                self.sweep()
            except Exception:
                log.exception("tab sweep failed")
