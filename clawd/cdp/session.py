"""One CDP session (a sessionId on the shared browser connection, or None for the browser
itself): calls that carry the id, event subscriptions scoped to it, and waiting for an event."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from clawd import errors
from clawd.cdp.connection import Connection


class Waiter:
    """An event expectation registered before the call that causes the event."""

    def __init__(self, predicate: Callable[[dict], bool] | None):
        self._predicate = predicate
        self._event = threading.Event()
        self.params: dict | None = None
        self.unsubscribe: Callable[[], None] = lambda: None

    def _feed(self, params: dict) -> None:
        if self._event.is_set():
            return
        if self._predicate is None or self._predicate(params):
            self.params = params
            self._event.set()

    def wait(self, timeout: float) -> dict | None:
        """The matching event's params, or None when `timeout` passed first."""
        try:
            return self.params if self._event.wait(timeout) else None
        finally:
            self.unsubscribe()

    @property
    def done(self) -> bool:
        return self._event.is_set()


class Session:
    def __init__(
        self, connection: Connection, session_id: str | None = None, target_id: str | None = None
    ):
        self.connection = connection
        self.session_id = session_id
        self.target_id = target_id

    def call(
        self, method: str, params: dict | None = None, *, timeout: float | None = None
    ) -> dict:
        return self.connection.call(method, params, session_id=self.session_id, timeout=timeout)

    def send(self, method: str, params: dict | None = None):
        """Send now, wait later: returns a Pending whose .result(timeout) is the reply."""
        return self.connection.send(method, params, session_id=self.session_id)

    def try_call(
        self, method: str, params: dict | None = None, *, timeout: float | None = None
    ) -> dict | None:
        """call(), but a CDP error answer becomes None (for best-effort calls such as cleanup)."""
        try:
            return self.call(method, params, timeout=timeout)
        except errors.CdpError:
            return None

    def send_many(self, calls: list[tuple[str, dict | None]]) -> list:
        """Several commands written at once (pipelined; Chrome runs them in order): their
        Pendings."""
        return self.connection.send_many(calls, session_id=self.session_id)

    def send_and_forget(self, method: str, params: dict | None = None) -> None:
        """Send a command whose answer nobody needs (releasing handles): no round trip waited
        for; its reply, or error, is dropped when it comes."""
        try:
            self.connection.send(method, params, session_id=self.session_id).discard()
        except errors.BrowserGone:
            pass

    def on(self, event: str, handler: Callable[[dict], None]) -> Callable[[], None]:
        return self.connection.events.subscribe(event, handler, self.session_id)

    def expect(self, event: str, predicate: Callable[[dict], bool] | None = None) -> Waiter:
        waiter = Waiter(predicate)
        waiter.unsubscribe = self.on(event, waiter._feed)
        return waiter

    @property
    def unwrapped(self) -> Session:
        """This session (a PipelinedSession's is the one it wraps)."""
        return self

    @property
    def closed(self) -> bool:
        return self.connection.closed

    def __repr__(self) -> str:
        return f"Session({self.session_id or 'browser'}, target={self.target_id})"


class PipelinedSession:
    """A Session stand-in for instrumenting a target that is paused before its first script:
    while `deferring`, call() sends and returns at once, so every command is on its way before
    the target is resumed. A target that has no renderer yet (a noopener popup) answers
    renderer-side commands only after it is resumed; waiting first would wait forever.
    Afterwards it behaves as the session it wraps (hooks may keep it for later calls)."""

    def __init__(self, session: Session):
        self._session = session
        self.deferring = True
        self.sent: list = []

    def call(
        self, method: str, params: dict | None = None, *, timeout: float | None = None
    ) -> dict:
        if not self.deferring:
            return self._session.call(method, params, timeout=timeout)
        self.sent.append(self._session.send(method, params))
        return {}

    def try_call(
        self, method: str, params: dict | None = None, *, timeout: float | None = None
    ) -> dict | None:
        if not self.deferring:
            return self._session.try_call(method, params, timeout=timeout)
        return self.call(method, params)

    def finish(self, timeout: float = 10.0) -> list[tuple[str, Exception]]:
        """Stop deferring and wait, `timeout` seconds in all, for the replies of what was sent;
        returns the failures. One deadline for all: callers wait for this (Browser.use), and a
        renderer that never answers must cost one timeout, not one per command."""
        self.deferring = False
        deadline = time.monotonic() + timeout
        failures = []
        for pending in self.sent:
            try:
                pending.result(max(0.0, deadline - time.monotonic()))
            except (
                errors.CdpError,
                errors.CdpTimeout,
                errors.BrowserGone,
                errors.TabCrashed,
            ) as exc:
                failures.append((pending.method, exc))
        return failures

    @property
    def unwrapped(self) -> Session:
        """The session itself (what a record kept per session is keyed by)."""
        return self._session

    def __getattr__(self, name):
        return getattr(self._session, name)

    def __repr__(self) -> str:
        return f"Pipelined({self._session!r})"
