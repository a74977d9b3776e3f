"""The event bus: CDP events are handed to subscribers on one dispatcher thread of their own,
so a slow subscriber never delays the thread reading the socket (and with it every reply)."""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable

log = logging.getLogger("clawd.cdp")

Handler = Callable[[dict], None]
ANY_SESSION = object()


class EventBus:
    def __init__(self, name: str = "cdp-events"):
        self._lock = threading.Lock()
        # (method, session_id | ANY_SESSION) -> list of handlers
        self._subs: dict[tuple, list[Handler]] = {}
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        # events put on the queue (by the one thread reading the socket at a time) and handled
        # (by the dispatcher): equal means nothing published is still waiting for its handlers
        self._published = 0
        self._handled = 0
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def subscribe(
        self, method: str, handler: Handler, session_id=ANY_SESSION
    ) -> Callable[[], None]:
        """Call handler(params) for every `method` event of `session_id` (None = browser level).
        Returns the function that unsubscribes."""
        key = (method, session_id)
        with self._lock:
            self._subs.setdefault(key, []).append(handler)

        def unsubscribe() -> None:
            with self._lock:
                handlers = self._subs.get(key, [])
                if handler in handlers:
                    handlers.remove(handler)
                if not handlers:
                    self._subs.pop(key, None)

        return unsubscribe

    def forget_session(self, session_id: str) -> None:
        """Drop every subscription of a detached session, so closed tabs free their handlers."""
        with self._lock:
            for key in [k for k in self._subs if k[1] == session_id]:
                del self._subs[key]

    def publish(self, method: str, params: dict, session_id: str | None) -> None:
        """Called by whichever thread reads the socket: only enqueues."""
        self._published += 1
        self._queue.put((method, params, session_id))

    def close(self) -> None:
        self._queue.put(None)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every event published so far has been handled. At once when none is
        waiting: a hand-off to the dispatcher thread and back cost 0.05-1 ms on a loaded host,
        the largest piece of a trivial act."""
        if self._handled == self._published:
            return True
        done = threading.Event()
        self._queue.put(done)
        return done.wait(timeout)

    def _handlers(self, method: str, session_id) -> list[Handler]:
        with self._lock:
            return list(self._subs.get((method, session_id), ())) + list(
                self._subs.get((method, ANY_SESSION), ())
            )

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            if isinstance(item, threading.Event):
                item.set()
                continue
            method, params, session_id = item
            for handler in self._handlers(method, session_id):
                try:
                    handler(params)
                except Exception:  # a subscriber's bug must not stop event delivery
                    log.exception("event handler for %s failed", method)
            self._handled += 1
