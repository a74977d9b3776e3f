"""A fake DevTools transport for Connection tests: recv() takes from an inbox the test feeds,
send() records what clawd sent so the test can answer the right id. No network, no browser.
It has the surface of clawd.cdp.transport.WebSocketTransport: recv(timeout), wait(), ready(),
interrupt(), send(), send_many(), close(), release()."""

from __future__ import annotations

import collections
import json
import threading
from typing import Any

WAIT = 5.0  # generous bound for "this should happen promptly"; tests never sleep for it


class FakeWebSocket:
    def __init__(self):
        self._inbox: collections.deque = collections.deque()
        self._cond = threading.Condition()
        self._interrupted = False
        self.sent: list[dict] = []
        self.send_error: BaseException | None = None
        self.close_calls = 0
        self.released = False
        self.recv_threads: set[str] = set()
        self.writes = 0  # send_many calls (one write each)

    # -- the transport surface Connection uses --------------------------------------------------
    def send(self, data: str) -> None:
        if self.send_error is not None:
            raise self.send_error
        with self._cond:
            self.sent.append(json.loads(data))
            self._cond.notify_all()

    def send_many(self, texts: list[str]) -> None:
        if self.send_error is not None:
            raise self.send_error
        with self._cond:
            self.sent.extend(json.loads(text) for text in texts)
            self.writes += 1
            self._cond.notify_all()

    def recv(self, timeout: float | None) -> str | bytes:
        with self._cond:
            self.recv_threads.add(threading.current_thread().name)
            self._cond.notify_all()
            if not self._cond.wait_for(lambda: self._inbox, timeout):
                raise TimeoutError("no message within the deadline")
            item = self._inbox.popleft()
        if isinstance(item, BaseException):
            raise item
        return item

    def wait(self) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._inbox or self._interrupted)
            self._interrupted = False

    def ready(self) -> bool:
        with self._cond:
            return bool(self._inbox)

    def interrupt(self) -> None:
        with self._cond:
            self._interrupted = True
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self.close_calls += 1
            self._inbox.append("")  # like a real socket: a read in progress ends once it is shut
            self._cond.notify_all()

    def release(self) -> None:
        self.released = True

    # -- the test's side ------------------------------------------------------------------------
    def feed(self, message: dict | str | bytes) -> None:
        self._put(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def _put(self, item) -> None:
        with self._cond:
            self._inbox.append(item)
            self._cond.notify_all()

    def reply(self, call_id: int, result: dict | None = None, **extra: Any) -> None:
        self.feed({"id": call_id, "result": {} if result is None else result, **extra})

    def error_reply(
        self, call_id: int, message: str, code: int = -32000, data: str | None = None
    ) -> None:
        error = {"code": code, "message": message}
        if data is not None:
            error["data"] = data
        self.feed({"id": call_id, "error": error})

    def event(self, method: str, params: dict | None = None, session_id: str | None = None) -> None:
        message = {"method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        self.feed(message)

    def close_frame(self) -> None:
        self._put(b"")  # the transport answers a close frame with b""

    def fail_recv(self, exc: BaseException) -> None:
        self._put(exc)

    def wait_sent(self, count: int, timeout: float = WAIT) -> list[dict]:
        """The first `count` messages clawd sent; AssertionError when they do not come in time."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.sent) >= count, timeout):
                raise AssertionError(
                    f"expected {count} sent messages, got {len(self.sent)}: {self.sent}"
                )
            return list(self.sent[:count])

    def wait_reader(self, thread_name: str, timeout: float = WAIT) -> None:
        """Until the thread named `thread_name` has started reading."""
        with self._cond:
            if not self._cond.wait_for(lambda: thread_name in self.recv_threads, timeout):
                raise AssertionError(f"{thread_name} never read; readers: {self.recv_threads}")

    def wait_call(self, method: str, timeout: float = WAIT) -> dict:
        """The first sent message calling `method`."""

        def found():
            return next((m for m in self.sent if m.get("method") == method), None)

        with self._cond:
            if not self._cond.wait_for(lambda: found() is not None, timeout):
                raise AssertionError(f"{method} was never sent: {self.sent}")
            return found()


class FakeFactory:
    """A ws_factory for Connection: hands out one FakeWebSocket and records how it was asked."""

    def __init__(self, ws: FakeWebSocket | None = None):
        self.ws = ws or FakeWebSocket()
        self.calls: list[tuple[str, dict]] = []

    def __call__(self, url: str, **kwargs: Any) -> FakeWebSocket:
        self.calls.append((url, kwargs))
        return self.ws
