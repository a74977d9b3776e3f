"""One websocket to a browser's DevTools endpoint: a table of pending calls, per-call deadlines,
and reading done by whoever needs a reply. It speaks CDP only; it knows nothing of tabs or pages.

Reading: one thread at a time holds the read role. A caller waiting for its reply takes the role
when it is free and reads the socket itself, routing every message that comes before its own
(other callers' replies, events to the dispatcher thread). Only when no caller reads does the
watcher thread hold the role, so events keep flowing while nobody calls. Handing each reply from
a reader thread to its caller cost 40-90 us a call here (a thread wake-up and a turn of the
interpreter lock), as much as the whole CDP round trip (bench/latency.py)."""

from __future__ import annotations

import itertools
import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import websocket

from clawd import errors
from clawd.cdp import discovery, pool
from clawd.cdp.events import EventBus
from clawd.cdp.transport import WebSocketTransport

log = logging.getLogger("clawd.cdp")

DEFAULT_TIMEOUT = 30.0
# After a caller read, the watcher waits this long without one before it watches the socket
# again: woken for every call, it cost 30-40 us a call on 2 cores. Events that come between two
# calls wait at most this long (the next caller reads them sooner).
WATCH_AFTER = 0.005
WsFactory = Callable[..., Any]


def default_ws_factory(url: str, *, timeout: float | None = None) -> WebSocketTransport:
    # Chrome answers 403 to a handshake that carries an Origin header; UTF-8 validation in
    # websocket-client made an 8.4 MB reply take 2.8 s instead of 0.64 s (docs/architecture.md).
    url, headers = discovery.userinfo_as_header(url)
    ws = websocket.create_connection(
        url, timeout=timeout, suppress_origin=True, skip_utf8_validation=True, header=headers
    )
    ws.settimeout(None)  # the socket blocks; reads wait with poll() up to their deadline
    return WebSocketTransport(ws)


class _Reply:
    __slots__ = ("done", "result", "error", "session_id")

    def __init__(self, session_id: str | None = None):
        self.session_id = session_id
        self.done = False
        self.result: dict | None = None
        self.error: BaseException | None = None


class Pending:
    """A command that was sent and whose reply has not been waited for yet."""

    __slots__ = ("_connection", "_call_id", "method", "_reply")

    def __init__(self, connection: Connection, call_id: int, method: str, reply: _Reply):
        self._connection, self._call_id, self.method, self._reply = (
            connection,
            call_id,
            method,
            reply,
        )

    def result(self, timeout: float | None = None) -> dict:
        limit = self._connection.default_timeout if timeout is None else timeout
        if not self._connection._wait_for(self._reply, time.monotonic() + limit):
            self._connection._forget(self._call_id)  # a late reply finds no waiter and is dropped
            raise errors.CdpTimeout(f"{self.method} did not answer within {limit:g} s")
        if self._reply.error is not None:
            raise self._reply.error
        return self._reply.result

    def wait(self, timeout: float) -> bool:
        """True once the reply is in (`result` then returns at once); False when `timeout` passed
        first, the call still pending (a caller that waits in slices checks other things
        between them)."""
        return self._connection._wait_for(self._reply, time.monotonic() + timeout)

    def discard(self) -> None:
        """Nobody will wait for this reply: drop it from the pending table."""
        self._connection._forget(self._call_id)


class Connection:
    def __init__(
        self,
        url: str,
        *,
        ws_factory: WsFactory = default_ws_factory,
        handshake_timeout: float | None = 10.0,
        default_timeout: float = DEFAULT_TIMEOUT,
        name: str = "cdp",
        clock: Callable[[], float] = time.monotonic,
        gone: Callable[[str], errors.ClawdError] | None = None,
    ):
        self.url = url
        # what pending and later calls fail with once the socket is gone (a pool's own error)
        self._gone = gone or (
            lambda reason: errors.BrowserGone(f"browser connection closed ({reason})")
        )
        self._clock = clock  # when traffic last came, for the keep-alive (tests pass their own)
        self.name = name
        self.default_timeout = default_timeout
        self.events = EventBus(name=f"{name}-events")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._turn = threading.Condition(self._lock)  # a reply landed, or the read role is free
        # threads in _turn.wait: a reply read by its own caller (the usual case) wakes nobody,
        # and Condition.notify_all is three Python calls even then
        self._turn_waiters = 0
        self._pending: dict[int, _Reply] = {}
        self._idle = threading.Condition(self._lock)  # the watcher's: callers stopped reading
        self._reading = False  # somebody holds the read role
        self._watching = False  # the watcher waits for data without the role
        self._last_read = 0.0  # when a caller last gave the role back
        self._close_reason: str | None = None
        self._close_callbacks: list[Callable[[str], None]] = []
        self.last_received = clock()
        try:
            self._transport = ws_factory(url, timeout=handshake_timeout)
        except Exception as exc:
            self.events.close()
            raise pool.handshake_error(exc, discovery.redact(url)) from exc
        self._reader = threading.Thread(target=self._watch, name=f"{name}-reader", daemon=True)
        self._reader.start()

    # -- calls --------------------------------------------------------------------------------
    def call(
        self,
        method: str,
        params: dict | None = None,
        *,
        session_id: str | None = None,
        timeout: float | None = None,
    ) -> dict:
        """Send one command and wait for its reply, at most `timeout` seconds."""
        return self.send(method, params, session_id=session_id).result(timeout)

    def send(
        self, method: str, params: dict | None = None, *, session_id: str | None = None
    ) -> Pending:
        """Send one command now; `.result(timeout)` waits for its reply later (pipelining)."""
        reply = _Reply(session_id)
        with self._lock:
            if self._close_reason is not None:
                raise self._gone(self._close_reason)
            call_id = next(self._ids)
            self._pending[call_id] = reply  # register before send: the reply can beat us back
        message = {"id": call_id, "method": method, "params": params or {}}
        if session_id:
            message["sessionId"] = session_id
        try:
            self._transport.send(json.dumps(message))
        except Exception as exc:
            self._forget(call_id)
            self._shutdown(f"send failed: {exc}")
            raise self._gone(f"lost while sending {method}") from exc
        return Pending(self, call_id, method, reply)

    def send_many(
        self, calls: list[tuple[str, dict | None]], *, session_id: str | None = None
    ) -> list[Pending]:
        """send() for several commands of one session, written to the socket at once (Chrome
        runs them in this order); their Pendings in the same order. A gone socket fails them as
        it fails send(): with the connection's own error."""
        replies = [_Reply(session_id) for _ in calls]
        with self._lock:
            if self._close_reason is not None:
                raise self._gone(self._close_reason)
            ids = [next(self._ids) for _ in calls]
            for call_id, reply in zip(ids, replies):
                self._pending[call_id] = reply
        messages = []
        for call_id, (method, params) in zip(ids, calls):
            message = {"id": call_id, "method": method, "params": params or {}}
            if session_id:
                message["sessionId"] = session_id
            messages.append(json.dumps(message))
        try:
            self._transport.send_many(messages)
        except Exception as exc:
            for call_id in ids:
                self._forget(call_id)
            self._shutdown(f"send failed: {exc}")
            raise self._gone(f"lost while sending {calls[0][0]}") from exc
        return [
            Pending(self, call_id, method, reply)
            for call_id, (method, _), reply in zip(ids, calls, replies)
        ]

    def fail_session(self, session_id: str, error: BaseException) -> int:
        """Fail at once every pending call of one session (its renderer crashed and will never
        answer). Returns how many calls were failed."""
        with self._lock:
            doomed = [i for i, r in self._pending.items() if r.session_id == session_id]
            self._fail([self._pending.pop(i) for i in doomed], error)
        return len(doomed)

    def _forget(self, call_id: int) -> None:
        with self._lock:
            self._pending.pop(call_id, None)

    def _wait_for(self, reply: _Reply, deadline: float) -> bool:
        """Until the reply is in, read the socket whenever nobody else does.
        False at the deadline."""
        while True:
            with self._lock:
                while not reply.done and self._reading:
                    left = deadline - time.monotonic()
                    if left <= 0:
                        return False
                    self._wait_turn(left)
                if reply.done:
                    return True
                if time.monotonic() >= deadline:
                    return False
                self._reading = True
                watching = self._watching
            if watching:
                self._transport.interrupt()  # the watcher steps aside while we read
            try:
                while not reply.done and self._read_one(deadline - time.monotonic()):
                    pass
            finally:
                self._leave_role(caller=True)

    def _read_one(self, timeout: float | None) -> bool:
        """Read and route one message (the read role held). False when none came in time or the
        connection is gone."""
        if timeout is not None and timeout <= 0:
            return False
        try:
            raw = self._transport.recv(timeout)
        except TimeoutError:
            return False
        except Exception as exc:
            self._shutdown(f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)
            return False
        if not raw:  # a close frame
            self._shutdown("closed by the browser")
            return False
        self.last_received = self._clock()
        self._route(raw)
        return True

    def _leave_role(self, *, caller: bool) -> None:
        """Give the read role back. A caller's reading also keeps the watcher aside a while."""
        with self._lock:
            self._reading = False
            if self._turn_waiters:
                self._turn.notify_all()
            if caller:
                self._last_read = time.monotonic()

    # -- keep-alive ---------------------------------------------------------------------------
    def start_keepalive(self, interval: float = 15.0, timeout: float = 5.0) -> None:
        """A half-open socket (a peer that vanished without a FIN) never errors by itself: after
        `interval` seconds of silence send a cheap call, and give up on the connection when it
        does not answer within `timeout`, failing every pending call at once."""

        def run():
            while not self.closed:
                time.sleep(min(interval, 1.0))
                if not self.keepalive_due(interval):
                    continue
                try:
                    self.call("Browser.getVersion", timeout=timeout)
                except errors.CdpTimeout:
                    self._shutdown(f"keep-alive: no answer within {timeout:g} s")
                except errors.ClawdError:
                    return

        threading.Thread(target=run, name=f"{self.name}-keepalive", daemon=True).start()

    def keepalive_due(self, interval: float) -> bool:
        """Nothing came from the peer for `interval` seconds (and the connection is open)."""
        return not self.closed and self._clock() - self.last_received >= interval

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

    def _shutdown(self, reason: str) -> None:
        with self._lock:
            if self._close_reason is not None:
                return
            self._close_reason = reason
            pending, self._pending = self._pending, {}
            callbacks = list(self._close_callbacks)
            self._idle.notify_all()
            # every waiter learns at once, none waits out its deadline
            self._fail(pending.values(), self._gone(reason))
        self._transport.close()  # a read in progress ends; the watcher releases the socket
        self.events.close()
        if callbacks:  # not on a reading thread: a callback may take its time (relaunch, cleanup)
            threading.Thread(
                target=_run_callbacks, args=(callbacks, reason), name="cdp-closed", daemon=True
            ).start()

    # -- the watcher thread ---------------------------------------------------------------------
    def _watch(self) -> None:
        """Reads while no caller does: waits for data without the role, then takes the role to
        read it (unless a caller took it first), so events arrive while nobody calls."""
        try:
            while True:
                with self._lock:
                    if not self._step_aside():
                        return
                    self._watching = True
                self._transport.wait()
                with self._lock:
                    self._watching = False
                    if self._reading or self._close_reason is not None:
                        continue
                    self._reading = True
                try:
                    if self._transport.ready():
                        self._read_one(None)
                finally:
                    self._leave_role(caller=False)
        except Exception as exc:  # a bug here must not leave callers waiting out their deadlines
            log.exception("the DevTools watcher failed")
            self._shutdown(f"watcher failed: {exc}")
        finally:
            with self._lock:  # wait out a caller still reading the shut socket, then let go
                while self._reading:
                    self._wait_turn(None)
            self._transport.release()

    def _step_aside(self) -> bool:
        """(self._lock held.) Wait while callers read, and WATCH_AFTER after the last of them.
        False once the connection is closed. No caller wakes it when it leaves the role: it
        looks again every WATCH_AFTER (woken by the caller, it took the interpreter lock from
        a busy client's thread about once in four calls, for nothing but to wait again)."""
        while self._close_reason is None:
            if self._reading:
                quiet = WATCH_AFTER
            else:
                quiet = WATCH_AFTER - (time.monotonic() - self._last_read)
            if quiet <= 0:
                return True
            self._idle.wait(quiet)
        return False

    def _route(self, raw: str | bytes) -> None:
        if isinstance(raw, bytes):  # DevTools speaks UTF-8: json.loads would sniff for UTF-16/32
            raw = raw.decode("utf-8", "surrogatepass")
        try:
            message = json.loads(raw)
        except ValueError:
            log.warning("dropping a DevTools message that is not JSON (%d bytes)", len(raw))
            return
        call_id = message.get("id")
        if call_id is None:
            self.events.publish(
                message.get("method", ""), message.get("params") or {}, message.get("sessionId")
            )
            return
        with self._lock:
            reply = self._pending.pop(call_id, None)
            if reply is None:
                return  # its caller timed out and left
            if "error" in message:
                err = message["error"] or {}
                # the extension relay names what chrome.debugger cannot run (clawd/relay/)
                kind = errors.CdpError
                if err.get("clawdCode") == errors.RelayUnsupported.code:
                    kind = errors.RelayUnsupported
                reply.error = kind(
                    err.get("message", "unknown DevTools error")
                    + (f": {err['data']}" if err.get("data") else ""),
                    cdp_code=err.get("code"),
                )
            else:
                reply.result = message.get("result") or {}
            reply.done = True
            if self._turn_waiters:
                self._turn.notify_all()

    def _wait_turn(self, timeout: float | None) -> None:
        """(self._lock held.) Wait for a reply to land or the read role to be free."""
        self._turn_waiters += 1
        try:
            self._turn.wait(timeout)
        finally:
            self._turn_waiters -= 1

    def _fail(self, replies, error: BaseException) -> None:
        """(self._lock held.)"""
        for reply in replies:
            reply.error = error
            reply.done = True
        self._turn.notify_all()


def _run_callbacks(callbacks: list[Callable[[str], None]], reason: str) -> None:
    for callback in callbacks:
        try:
            callback(reason)
        except Exception:
            log.exception("connection close callback failed")
