"""Per-tab state: identity (stable id, label, raw target), its CDP session and those of its
out-of-process iframes, and `state`: what each page/ concern keeps per tab (refs, buffers,
dialogs, emulation), an object of the concern's own class found by the typed key the concern
declares. Everything here is freed when the tab closes."""

from __future__ import annotations

import collections
import threading
import time
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from clawd import errors
from clawd.cdp.session import Session

T = TypeVar("T")


class StateKey(Generic[T]):
    """The typed name of one concern's per-tab state, declared in the page/ module that owns it,
    next to the state's class: `DIALOGS = StateKey("dialogs", lambda tab: DialogState())`.
    `make` builds the state for a tab on first use. (browser/ never imports page/: the key
    carries the type, so the Tab need not know it.)"""

    __slots__ = ("name", "make")

    def __init__(self, name: str, make: Callable[[Tab], T]):
        self.name = name
        self.make = make

    def __repr__(self) -> str:
        return f"StateKey({self.name!r})"


class TabState:
    """A tab's per-concern state by StateKey: `tab.state[DIALOGS]` is that tab's DialogState.
    Made on first use, once even when the event thread and a request ask at once; each state
    object guards its own fields where threads share them."""

    def __init__(self, tab: Tab):
        self._tab = tab
        self._values: dict[StateKey, Any] = {}
        self._lock = threading.Lock()
        self._freed = False

    def __getitem__(self, key: StateKey[T]) -> T:
        found = self._values.get(key)  # made already: a dict read needs no lock (10 an act)
        if found is not None:
            return found
        with self._lock:
            found = self._values.get(key)
            if found is None:
                found = key.make(self._tab)
                if not self._freed:  # a late event of a closed tab gets state nobody keeps
                    self._values[key] = found
            return found

    def peek(self, key: StateKey[T]) -> T | None:
        """The state when the concern made it, else None (readers that must not make it)."""
        with self._lock:
            return self._values.get(key)

    def pop(self, key: StateKey[T]) -> T | None:
        with self._lock:
            return self._values.pop(key, None)

    def clear(self) -> None:
        """Free everything (the tab closed); nothing made later is kept."""
        with self._lock:
            self._values.clear()
            self._freed = True


class Tab:
    def __init__(
        self,
        tab_id: str,
        target_id: str,
        session: Session,
        *,
        type: str = "page",
        url: str = "",
        title: str = "",
        opener_id: str | None = None,
    ):
        self.tab_id = tab_id
        self.target_id = target_id
        self.session = session
        self.type = type
        self.url = url
        self.title = title
        self.opener_id = opener_id
        self.owner = None  # the Browser that registered it
        self.label: str | None = None
        self.created = time.monotonic()
        self.last_used = self.created
        self.state = TabState(self)
        # set by the Browser once the renderer answered every tab hook's command (or the tab
        # closed): see Browser.use()
        self.instrumented = threading.Event()
        self.crashed = False
        self.quarantined: str | None = None  # why, when the tab was closed for policy
        self.closed = threading.Event()
        self._children: dict[str, Session] = {}
        self._lock = threading.Lock()

    # -- child targets (out-of-process iframes) ------------------------------------------------
    def child_sessions(self) -> dict[str, Session]:
        """Auto-attached iframe targets by targetId (equal to the iframe's frameId)."""
        with self._lock:
            return dict(self._children)

    def add_child(self, target_id: str, session: Session) -> None:
        with self._lock:
            self._children[target_id] = session

    def remove_child(self, target_id: str) -> Session | None:
        with self._lock:
            return self._children.pop(target_id, None)

    # -- state --------------------------------------------------------------------------------
    def touch(self) -> None:
        self.last_used = time.monotonic()

    def check_usable(self) -> None:
        """Raise the right error when the tab cannot take commands."""
        if self.quarantined:
            raise errors.TabQuarantined(f"tab {self.tab_id} was closed: {self.quarantined}")
        if self.crashed:
            raise errors.TabCrashed(f"tab {self.tab_id} crashed; close it and open a new one")
        if self.closed.is_set():
            raise errors.TabNotFound(f"tab {self.tab_id} is closed")

    def to_dict(self, active: bool = False) -> dict:
        data = {
            "tabId": self.tab_id,
            "targetId": self.target_id,
            "title": self.title,
            "url": self.url,
            "type": self.type,
            "active": active,
        }
        if self.label:
            data["label"] = self.label
        if self.crashed:
            data["crashed"] = True
        return data

    def __repr__(self) -> str:
        return f"Tab({self.tab_id}, {self.target_id[:8]}, {self.url!r})"


class RingBuffer:
    """The newest `capacity` entries of a tab's stream (console, errors, requests); the oldest is
    dropped first. Thread-safe: events append on the dispatcher thread while requests read."""

    def __init__(self, capacity: int):
        self.capacity = capacity
        self._items: collections.deque = collections.deque(maxlen=capacity)
        self._lock = threading.Lock()
        self.dropped = 0

    def append(self, item: Any) -> Any:
        """Add `item`; returns the entry it pushed out, if any."""
        with self._lock:
            evicted = None
            if len(self._items) == self.capacity:
                evicted = self._items[0]
                self.dropped += 1
            self._items.append(item)
            return evicted

    def items(self) -> list:
        with self._lock:
            return list(self._items)

    def drain(self) -> list:
        """Every entry, and forget them."""
        with self._lock:
            items = list(self._items)
            self._items.clear()
            return items

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        return len(self._items)
