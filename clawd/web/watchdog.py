"""The time limit of one web fetch (web.fetch.timeoutSeconds), and the one watchdog thread that
enforces every fetch's. A read blocks as long as its socket lets it and a server may trickle a
byte a second forever, so when a fetch's time is up the watchdog shuts the sockets it opened and
the blocked read fails at once. One thread for the service rather than a timer per fetch:
starting a thread waits until it runs, which on a busy machine costs more than the fetch."""

from __future__ import annotations

import heapq
import itertools
import socket
import threading
import time

from clawd import errors


class Deadline:
    def __init__(self, seconds: float):
        self.seconds = seconds
        self.end = time.monotonic() + seconds
        self.expired = False
        self.done = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()

    def __enter__(self) -> Deadline:
        WATCHDOG.add(self)
        return self

    def __exit__(self, *exc) -> None:
        self.done = True  # the watchdog drops it when its time comes

    def left(self) -> float:
        return max(0.0, self.end - time.monotonic())

    @property
    def passed(self) -> bool:
        """Time is up, whether or not the watchdog has come round to say so yet: under load a
        socket's own timeout can fire first."""
        return self.expired or self.left() <= 0

    def check(self) -> None:
        if self.passed:
            self.expired = True
            raise self.error()

    def error(self) -> errors.WebTimeout:
        return errors.WebTimeout(
            f"the fetch did not finish within {self.seconds:g} s (web.fetch.timeoutSeconds)"
        )

    def watch(self, sock: socket.socket) -> None:
        """A socket the fetch opened: shut when time is up (at once if it already is)."""
        with self._lock:
            self._sockets.append(sock)
            expired = self.expired
        if expired:
            _shut(sock)

    def expire(self) -> None:
        with self._lock:
            if self.done:
                return
            self.expired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _shut(sock)


def _shut(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: nothing left to interrupt


class _Watchdog:
    def __init__(self):
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Deadline]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def add(self, deadline: Deadline) -> None:
        with self._cond:
            heapq.heappush(self._heap, (deadline.end, next(self._order), deadline))
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="web-fetch-watchdog", daemon=True
                )
                self._thread.start()
            elif self._heap[0][2] is deadline:
                self._cond.notify()  # it ends before whatever the watchdog sleeps for

    def _run(self) -> None:
        while True:
            for deadline in self._due():
                deadline.expire()

    def _due(self) -> list[Deadline]:
        with self._cond:
            while True:
                now = time.monotonic()
                due = []
                while self._heap and self._heap[0][0] <= now:
                    due.append(heapq.heappop(self._heap)[2])
                if due:
                    return due
                self._cond.wait(self._heap[0][0] - now if self._heap else None)


WATCHDOG = _Watchdog()
