"""The web tier's in-memory answer cache: a time-to-live per entry and at most `max_entries`
entries, the least recently used leaving first. It only ever holds what a fetch or a search
answered; the callers choose the keys (docs/architecture.md: url + mode + maxChars)."""

from __future__ import annotations

import collections
import copy
import threading
import time
from collections.abc import Callable, Hashable

MAX_ENTRIES = 100


class TtlCache:
    def __init__(
        self,
        ttl_seconds: float,
        *,
        max_entries: int = MAX_ENTRIES,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.ttl = ttl_seconds
        self.max_entries = max_entries
        self._clock = clock
        self._lock = threading.Lock()
        self._entries: collections.OrderedDict[Hashable, tuple[float, dict]] = (
            collections.OrderedDict()
        )

    @property
    def enabled(self) -> bool:
        return self.ttl > 0 and self.max_entries > 0

    def get(self, key: Hashable) -> dict | None:
        """A copy of the live entry under `key`, else None (an expired one is dropped)."""
        if not self.enabled:
            return None
        with self._lock:
            hit = self._entries.get(key)
            if hit is None:
                return None
            if hit[0] <= self._clock():
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return copy.deepcopy(hit[1])  # callers add cached/tookMs: never to our copy

    def put(self, key: Hashable, value: dict) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._entries[key] = (self._clock() + self.ttl, copy.deepcopy(value))
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
