"""One-time observe links: GET /sandbox/observe issues a token good for TTL seconds until its first
use; that use spends it and hands the viewer a cookie that alone opens the rest of the page (its
frames, noVNC's files and websocket) for SESSION seconds. Unknown, expired or spent -> 403."""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from dataclasses import dataclass

from clawd import errors

TTL = 60.0
SESSION = 3600.0
COOKIE = "clawd_observe"


@dataclass
class Observation:
    token: str
    profile: str
    mode: str  # "vnc" | "screencast"
    expires_at: float  # wall clock: first use must come before
    cookie: str | None = None  # set at first use
    session_until: float = 0.0


class ObserveTokens:
    def __init__(self, *, clock=time.time, ttl: float = TTL, session: float = SESSION):
        self._clock, self._ttl, self._session = clock, ttl, session
        self._lock = threading.Lock()
        self._items: dict[str, Observation] = {}

    def issue(self, profile: str, mode: str) -> Observation:
        now = self._clock()
        item = Observation(secrets.token_urlsafe(32), profile, mode, now + self._ttl)
        with self._lock:
            self._drop_dead(now)
            self._items[item.token] = item
        return item

    def claim(self, token: str) -> Observation:
        """First use: spends the token, returns it with the viewer's cookie value."""
        now = self._clock()
        with self._lock:
            item = self._items.get(token)
            if item is None or item.cookie is not None or now >= item.expires_at:
                raise errors.ObserveForbidden("this observe link is unknown, expired or used")
            item.cookie = secrets.token_urlsafe(32)
            item.session_until = now + self._session
            return item

    def check(self, token: str, cookie: str | None) -> Observation:
        """A later request of the page that claimed `token`: its cookie must match."""
        now = self._clock()
        with self._lock:
            item = self._items.get(token)
        if (
            item is None
            or item.cookie is None
            or not cookie
            or not hmac.compare_digest(item.cookie, cookie)
            or now >= item.session_until
        ):
            raise errors.ObserveForbidden("this observe link is unknown, expired or used")
        return item

    def _drop_dead(self, now: float) -> None:
        dead = [
            t
            for t, i in self._items.items()
            if (i.cookie is None and now >= i.expires_at) or (i.cookie and now >= i.session_until)
        ]
        for token in dead:
            del self._items[token]
