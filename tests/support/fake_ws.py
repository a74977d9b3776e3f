"""A fake DevTools websocket for Connection tests: recv() blocks on a queue the test feeds, send()
records what clawd sent so the test can answer the right id. No network, no browser."""
from __future__ import annotations

import json
import queue
import threading
from typing import Any

WAIT = 5.0   # generous bound for "this should happen promptly"; tests never sleep for it


class FakeWebSocket:
    def __init__(self):
        self._inbox: queue.Queue = queue.Queue()
        self._cond = threading.Condition()
        self.sent: list[dict] = []
        self.send_error: BaseException | None = None
        self.timeouts: list[float | None] = []
        self.close_calls = 0
        self.recv_threads: set[str] = set()

    # -- the websocket-client surface Connection uses -------------------------------------------
    def send(self, data: str) -> None:
        if self.send_error is not None:
            raise self.send_error
        with self._cond:
            self.sent.append(json.loads(data))
            self._cond.notify_all()

    def recv(self) -> str:
        self.recv_threads.add(threading.current_thread().name)
        item = self._inbox.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def close(self) -> None:
        self.close_calls += 1
        self._inbox.put("")   # like a real socket: a blocked recv() returns once it is closed

    def settimeout(self, timeout: float | None) -> None:
        self.timeouts.append(timeout)

    # -- the test's side ------------------------------------------------------------------------
    def feed(self, message: dict | str | bytes) -> None:
        self._inbox.put(message if isinstance(message, (str, bytes)) else json.dumps(message))

    def reply(self, call_id: int, result: dict | None = None, **extra: Any) -> None:
        self.feed({"id": call_id, "result": {} if result is None else result, **extra})

    def error_reply(self, call_id: int, message: str, code: int = -32000, data: str | None = None) -> None:
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
        self._inbox.put("")   # websocket-client's recv() answers a close frame with ""

    def fail_recv(self, exc: BaseException) -> None:
        self._inbox.put(exc)

    def wait_sent(self, count: int, timeout: float = WAIT) -> list[dict]:
        """The first `count` messages clawd sent; AssertionError when they do not come in time."""
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.sent) >= count, timeout):
                raise AssertionError(f"expected {count} sent messages, got {len(self.sent)}: {self.sent}")
            return list(self.sent[:count])

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
