"""Waiting for a page to settle after an action: the tab hook counts the requests of every session
of a tab (Network domain), so an action can wait for the requests it started, plus a short quiet
window, without any fixed wait when nothing is in flight; `networkidle` waits use it too."""

from __future__ import annotations

import threading
import time

from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session

SETTLE_LIMIT = 5.0  # requests started by an action get at most this long to finish
QUIET = 0.1  # and then this long without a new one
IDLE = 0.5  # networkidle: no request in flight for this long
FORGET_AFTER = 120.0  # a request that never reports its end stops counting after this


class RequestTracker:
    def __init__(self):
        self._cond = threading.Condition()
        # (session, requestId) -> (seq, started, url, frameId of a document request or None)
        self._inflight: dict[tuple, tuple[int, float, str, str | None]] = {}
        self.seq = 0  # requests started so far
        self.last_change = time.monotonic()
        self.windows = 0  # Page.windowOpen events so far
        self._document: tuple[int, int] | None = None  # (seq, HTTP status) of the main document

    def started(self, session_id, params: dict) -> None:
        key = (session_id, params.get("requestId"))
        now = time.monotonic()
        with self._cond:
            if key not in self._inflight:  # a redirect keeps its requestId: one request
                self.seq += 1
                document = params.get("frameId") if params.get("type") == "Document" else None
                self._inflight[key] = (
                    self.seq,
                    now,
                    (params.get("request") or {}).get("url", "?"),
                    document,
                )
                self._forget_old(now)
            self.last_change = now
            self._cond.notify_all()

    def responded(self, session_id, params: dict, main_frame: str) -> None:
        """A response came: a main-frame document's status is kept for the act's `effect`."""
        if params.get("type") != "Document" or params.get("frameId") != main_frame:
            return
        with self._cond:
            started = self._inflight.get((session_id, params.get("requestId")))
            if started is not None:
                self._document = (started[0], (params.get("response") or {}).get("status"))

    def document_status(self, since_seq: int) -> int | None:
        """The HTTP status of the main frame's document requested after `since_seq`, if any."""
        with self._cond:
            found = self._document
        return found[1] if found is not None and found[0] > since_seq else None

    def finished(self, session_id, params: dict) -> None:
        with self._cond:
            if self._inflight.pop((session_id, params.get("requestId")), None) is not None:
                self.last_change = time.monotonic()
                self._cond.notify_all()

    def frame_stopped(self, session_id, frame_id: str | None) -> None:
        """A frame stopped loading: its document request is over, though Chrome does not always
        report its end (seen: a tab's first document kept networkidle waiting out its deadline)."""
        if not frame_id:
            return
        with self._cond:
            done = [k for k, v in self._inflight.items() if k[0] == session_id and v[3] == frame_id]
            for key in done:
                del self._inflight[key]
            if done:
                self.last_change = time.monotonic()
                self._cond.notify_all()

    def window_opened(self) -> None:
        with self._cond:
            self.windows += 1

    def _forget_old(self, now: float) -> None:
        if len(self._inflight) > 200:
            for key in [k for k, (_, t, _, _) in self._inflight.items() if now - t > FORGET_AFTER]:
                del self._inflight[key]

    def _busy_since(self, seq: int) -> bool:
        return any(s > seq for s, _, _, _ in self._inflight.values())

    def in_flight(self, most: int = 3) -> str:
        """The oldest requests still in flight, for an error message: `url (2.1 s)`."""
        now = time.monotonic()
        with self._cond:
            oldest = sorted(self._inflight.values(), key=lambda item: item[1])
        shown = [f"{url[:120]} ({now - started:.1f} s)" for _, started, url, _ in oldest[:most]]
        return ", ".join(shown) + (f" and {len(oldest) - most} more" if len(oldest) > most else "")

    def settle(
        self, since_seq: int, deadline: float, *, limit: float = SETTLE_LIMIT, quiet: float = QUIET
    ) -> bool:
        """Wait until every request started after `since_seq` has finished and `quiet` seconds
        passed without a change; returns at once when the action started none."""
        end = min(deadline, time.monotonic() + limit)
        with self._cond:
            if self.seq <= since_seq:
                return True
            while True:
                now = time.monotonic()
                if not self._busy_since(since_seq) and now - self.last_change >= quiet:
                    return True
                if now >= end:
                    return False
                wait = (
                    end - now if self._busy_since(since_seq) else quiet - (now - self.last_change)
                )
                self._cond.wait(max(0.005, min(wait, end - now)))

    def idle(self, deadline: float, quiet: float = IDLE) -> bool:
        """networkidle: nothing in flight for `quiet` seconds (or False at the deadline)."""
        with self._cond:
            while True:
                now = time.monotonic()
                if not self._inflight and now - self.last_change >= quiet:
                    return True
                if now >= deadline:
                    return False
                wait = deadline - now if self._inflight else quiet - (now - self.last_change)
                self._cond.wait(max(0.005, min(wait, deadline - now)))


class NetworkHook:
    """Tab hook: Network.enable on every session of the tab, counted by one RequestTracker; and
    Page.windowOpen counted, so an action that opens a popup can wait for its tab to attach."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        tracker = tracker_of(tab)
        session.on("Page.windowOpen", lambda p: tracker.window_opened())
        sid = session.session_id
        session.on("Network.requestWillBeSent", lambda p: tracker.started(sid, p))
        session.on("Network.loadingFinished", lambda p: tracker.finished(sid, p))
        session.on("Network.loadingFailed", lambda p: tracker.finished(sid, p))
        if not child:
            main = tab.target_id
            session.on("Network.responseReceived", lambda p: tracker.responded(sid, p, main))
        session.on(
            "Page.frameStoppedLoading", lambda p: tracker.frame_stopped(sid, p.get("frameId"))
        )
        session.call("Network.enable")

    def detach(self, tab: Tab) -> None:
        pass


REQUESTS = StateKey("act.network", lambda tab: RequestTracker())


def tracker_of(tab: Tab) -> RequestTracker:
    return tab.state[REQUESTS]


def wait_for_popups(browser, tab: Tab, since: float, count: int, deadline: float) -> None:
    """Until `count` tabs opened by `tab` after `since` are attached (or SETTLE_LIMIT passed);
    where no opened window becomes a tab (the extension relay), until the relay told of them."""
    if getattr(browser, "attaches_popups", True):
        opened = browser.tabs_opened_since
    else:
        opened = browser.unshared_opened_since
    end = min(deadline, time.monotonic() + SETTLE_LIMIT)
    while time.monotonic() < end:
        if len(opened(since, opener=tab)) >= count:
            return
        time.sleep(0.01)
