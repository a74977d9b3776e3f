"""One websocket to a browser's DevTools endpoint: a reader thread, a table of pending calls,
per-call deadlines. It speaks CDP only; it knows nothing of tabs or pages."""
from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from typing import Any, Callable

import websocket

from clawd import errors
from clawd.cdp.events import EventBus

log = logging.getLogger("clawd.cdp")

DEFAULT_TIMEOUT = 30.0
WsFactory = Callable[..., Any]


def default_ws_factory(url: str, *, timeout: float | None = None):
    # Chrome answers 403 to a handshake that carries an Origin header; UTF-8 validation in
    # websocket-client made an 8.4 MB reply take 2.8 s instead of 0.64 s (DESIGN.md §5).
    ws = websocket.create_connection(url, timeout=timeout, suppress_origin=True,
                                     skip_utf8_validation=True, enable_multithread=True)
    ws.settimeout(None)  # the reader blocks; deadlines live in call()
    return ws


class _Reply:
    __slots__ = ("event", "result", "error", "session_id")

    def __init__(self, session_id: str | None = None):
        self.session_id = session_id
        self.event = threading.Event()
        self.result: dict | None = None
        self.error: BaseException | None = None


class Pending:
    """A command that was sent and whose reply has not been waited for yet."""
    __slots__ = ("_connection", "_call_id", "method", "_reply")

    def __init__(self, connection: "Connection", call_id: int, method: str, reply: _Reply):
        self._connection, self._call_id, self.method, self._reply = connection, call_id, method, reply

    def result(self, timeout: float | None = None) -> dict:
        deadline = self._connection.default_timeout if timeout is None else timeout
        if not self._reply.event.wait(deadline):
            self._connection._forget(self._call_id)   # a late reply finds no waiter and is dropped
            raise errors.CdpTimeout(f"{self.method} did not answer within {deadline:g} s")
        if self._reply.error is not None:
            raise self._reply.error
        return self._reply.result

    def discard(self) -> None:
        """Nobody will wait for this reply: drop it from the pending table."""
        self._connection._forget(self._call_id)


class Connection:
    def __init__(self, url: str, *, ws_factory: WsFactory = default_ws_factory,
                 handshake_timeout: float | None = 10.0, default_timeout: float = DEFAULT_TIMEOUT,
                 name: str = "cdp"):
        self.url = url
        self.name = name
        self.default_timeout = default_timeout
        self.events = EventBus(name=f"{name}-events")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, _Reply] = {}
        self._close_reason: str | None = None
        self._close_callbacks: list[Callable[[str], None]] = []
        self.last_received = time.monotonic()
        try:
            self._ws = ws_factory(url, timeout=handshake_timeout)
        except Exception as exc:
            self.events.close()
            raise errors.CdpUnreachable(f"cannot connect to the DevTools websocket: {exc}") from exc
        self._reader = threading.Thread(target=self._read_loop, name=f"{name}-reader", daemon=True)
        self._reader.start()

    # -- calls --------------------------------------------------------------------------------
    def call(self, method: str, params: dict | None = None, *, session_id: str | None = None,
             timeout: float | None = None) -> dict:
        """Send one command and wait for its reply, at most `timeout` seconds."""
        return self.send(method, params, session_id=session_id).result(timeout)

    def send(self, method: str, params: dict | None = None, *, session_id: str | None = None) -> "Pending":
        """Send one command now; `.result(timeout)` waits for its reply later (pipelining)."""
        reply = _Reply(session_id)
        with self._lock:
            if self._close_reason is not None:
                raise errors.BrowserGone(f"browser connection closed ({self._close_reason})")
            call_id = next(self._ids)
            self._pending[call_id] = reply   # register before send: the reply can beat us back
        message = {"id": call_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        try:
            self._ws.send(json.dumps(message))
        except Exception as exc:
            self._forget(call_id)
            self._shutdown(f"send failed: {exc}")
            raise errors.BrowserGone(f"browser connection lost while sending {method}") from exc
        return Pending(self, call_id, method, reply)

    def fail_session(self, session_id: str, error: BaseException) -> int:
        """Fail at once every pending call of one session (its renderer crashed and will never
        answer). Returns how many calls were failed."""
        with self._lock:
            doomed = [i for i, r in self._pending.items() if r.session_id == session_id]
            replies = [self._pending.pop(i) for i in doomed]
        _fail(replies, error)
        return len(replies)

    def _forget(self, call_id: int) -> None:
        with self._lock:
            self._pending.pop(call_id, None)

    # -- keep-alive ---------------------------------------------------------------------------
    def start_keepalive(self, interval: float = 15.0, timeout: float = 5.0) -> None:
        """A half-open socket (a peer that vanished without a FIN) never errors by itself: after
        `interval` seconds of silence send a cheap call, and give up on the connection when it
        does not answer within `timeout`, failing every pending call at once."""
        def run():
            while not self.closed:
                time.sleep(min(interval, 1.0))
                if self.closed or time.monotonic() - self.last_received < interval:
                    continue
                try:
                    self.call("Browser.getVersion", timeout=timeout)
                except errors.CdpTimeout:
                    self._shutdown(f"keep-alive: no answer within {timeout:g} s")
                    self._close_socket()
                except errors.ClawdError:
                    return
        threading.Thread(target=run, name=f"{self.name}-keepalive", daemon=True).start()

    def _close_socket(self) -> None:
        try:
            self._ws.close(timeout=0.5) if _accepts_timeout(self._ws.close) else self._ws.close()
        except Exception:
            pass

    # -- lifecycle ----------------------------------------------------------------------------
    @property
    def closed(self) -> bool:
        return self._close_reason is not None

    @property
    def close_reason(self) -> str | None:
        return self._close_reason

    def on_close(self, callback: Callable[[str], None]) -> None:
        """callback(reason) runs once, on a thread of its own, when the socket is gone."""
        with self._lock:
            self._close_callbacks.append(callback)

    def close(self) -> None:
        self._shutdown("closed by clawd")
        self._close_socket()

    def _shutdown(self, reason: str) -> None:
        with self._lock:
            if self._close_reason is not None:
                return
            self._close_reason = reason
            pending, self._pending = self._pending, {}
            callbacks = list(self._close_callbacks)
        # every waiter learns at once, none waits out its deadline
        _fail(pending.values(), errors.BrowserGone(f"browser connection closed ({reason})"))
        self.events.close()
        if callbacks:   # not on the reader thread: a callback may take its time (relaunch, cleanup)
            threading.Thread(target=_run_callbacks, args=(callbacks, reason),
                             name="cdp-closed", daemon=True).start()

    # -- reader thread ------------------------------------------------------------------------
    def _read_loop(self) -> None:
        reason = "socket closed"
        try:
            while True:
                raw = self._ws.recv()
                if not raw:   # websocket-client answers a close frame with an empty string
                    reason = "closed by the browser"
                    break
                self.last_received = time.monotonic()
                self._route(raw)
        except Exception as exc:
            reason = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        self._shutdown(reason)

    def _route(self, raw: str | bytes) -> None:
        try:
            message = json.loads(raw)
        except ValueError:
            log.warning("dropping a DevTools message that is not JSON (%d bytes)", len(raw))
            return
        call_id = message.get("id")
        if call_id is None:
            self.events.publish(message.get("method", ""), message.get("params") or {},
                                message.get("sessionId"))
            return
        with self._lock:
            reply = self._pending.pop(call_id, None)
        if reply is None:
            return   # its caller timed out and left
        if "error" in message:
            err = message["error"] or {}
            reply.error = errors.CdpError(err.get("message", "unknown DevTools error")
                                          + (f": {err['data']}" if err.get("data") else ""),
                                          cdp_code=err.get("code"))
        else:
            reply.result = message.get("result") or {}
        reply.event.set()


def _fail(replies, error: BaseException) -> None:
    for reply in replies:
        reply.error = error
        reply.event.set()


def _run_callbacks(callbacks: list[Callable[[str], None]], reason: str) -> None:
    for callback in callbacks:
        try:
            callback(reason)
        except Exception:
            log.exception("connection close callback failed")


def _accepts_timeout(close) -> bool:
    import inspect
    try:
        return "timeout" in inspect.signature(close).parameters
    except (TypeError, ValueError):
        return False
