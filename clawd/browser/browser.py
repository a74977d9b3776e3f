"""One connected browser: its DevTools connection, the page targets it auto-attaches (each a
Tab with a stable id), their out-of-process iframes, and resolving a `targetId` to a Tab."""

from __future__ import annotations

import collections
import itertools
import logging
import threading
import time
from collections.abc import Callable, Iterable
from operator import attrgetter
from typing import Protocol

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.connection import Connection
from clawd.cdp.session import PipelinedSession, Session

log = logging.getLogger("clawd.browser")

_CREATED = attrgetter("created")  # tabs in the order they opened
# the extension relay's event for a window a shared tab opened (clawd/relay/devtools.py)
RELAY_TAB_OPENED = "Relay.tabOpened"
ATTACH_TIMEOUT = 10.0
CLOSE_TIMEOUT = 5.0


class TabHook(Protocol):
    """What page/ modules plug in: called on the event thread while a new tab is still paused
    before its first script, so nothing it wants to see can slip past."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None: ...
    def detach(self, tab: Tab) -> None: ...


class Browser:
    def __init__(
        self,
        connection: Connection,
        *,
        profile: str,
        max_tabs: int | None = None,
        hooks: Iterable[TabHook] = (),
        id_counter: Iterable[int] | None = None,
        window_per_tab: bool = False,
        no_tab: Callable[[], Exception] | None = None,
        attaches_popups: bool = True,
    ):
        self.connection = connection
        self.profile = profile
        self.max_tabs = max_tabs
        self.root = Session(connection)
        self.hooks = list(hooks)
        # headless: each tab its own window, so no tab is ever a background tab (headless Chromium
        # often never answers a screenshot of one); a person never sees these windows
        self.window_per_tab = window_per_tab
        # with no tab, a call naming none opens about:blank, unless this says why it may not
        # (the extension relay: only the user shares tabs)
        self.no_tab = no_tab
        # whether a window a tab opens becomes a tab here (not through the extension relay: only
        # the user shares tabs), so an act may wait for it
        self.attaches_popups = attaches_popups
        self._ids = id_counter or itertools.count(1)
        self._tabs: dict[str, Tab] = {}  # raw targetId -> Tab
        # readers take the lock itself; Condition's own `with` is a Python call more each time
        self._lock = threading.RLock()
        self._changed = threading.Condition(self._lock)
        self._last_used: str | None = None
        self._quarantined: dict[str, str] = {}  # tabId / targetId / label -> why it was closed
        self.tabs_freed = 0  # closed tabs whose state was released
        self.gone_tabs: dict[str, str] = {}  # tab ids of an ended remote session -> why
        # windows a tab opened that never become tabs here (the extension relay's tabOpened):
        # (when, opener's targetId, url), the latest few
        self._unshared: collections.deque[tuple[float, str, str]] = collections.deque(maxlen=64)

    # -- set-up -------------------------------------------------------------------------------
    def setup(self) -> None:
        on = self.connection.events.subscribe
        on("Target.attachedToTarget", self._on_attached, None)
        on("Target.detachedFromTarget", self._on_detached, None)
        on("Target.targetInfoChanged", self._on_info_changed, None)
        on("Target.targetDestroyed", lambda p: self._drop(p.get("targetId")), None)
        on("Target.targetCrashed", self._on_crashed, None)
        on(RELAY_TAB_OPENED, self._on_unshared_opened, None)
        self.root.call(
            "Target.setDiscoverTargets", {"discover": True, "filter": [{"type": "page"}]}
        )
        self.root.call(
            "Target.setAutoAttach",
            {
                "autoAttach": True,
                "waitForDebuggerOnStart": True,
                "flatten": True,
                "filter": [{"type": "page"}],
            },
        )
        # attachedToTarget events of the existing tabs precede that reply: once the dispatcher
        # has handled them, every existing tab is registered.
        self.connection.events.flush(ATTACH_TIMEOUT)

    def close(self) -> None:
        for tab in self.tabs():
            self._release(tab)
        self.connection.close()

    # -- attach / detach ----------------------------------------------------------------------
    def _on_attached(self, params: dict) -> None:
        info, session_id = params["targetInfo"], params["sessionId"]
        with self._lock:
            known = self._tabs.get(info["targetId"])
        if known is not None and not known.closed.is_set():
            # a second session of a tab clawd has (the scratch tab's own, which Chrome reports
            # here too): instrumenting it would put the tab's hooks, the guard's Fetch among
            # them, on a session that is not theirs (seen: the guard continued the scratch tab's
            # request, which then failed offline)
            log.debug("tab %s: a second session attached, left alone", known.tab_id)
            return
        session = Session(self.connection, session_id, info["targetId"])
        tab = Tab(
            f"t{next(self._ids)}",
            info["targetId"],
            session,
            type=info.get("type", "page"),
            url=info.get("url", ""),
            title=info.get("title", ""),
            opener_id=info.get("openerId"),
        )
        tab.owner = self
        session.on("Target.attachedToTarget", lambda p: self._on_child_attached(tab, session, p))
        session.on("Target.detachedFromTarget", lambda p: tab.remove_child(p.get("targetId", "")))
        self._instrument(tab, session, child=False, waiting=params.get("waitingForDebugger", False))
        with self._changed:
            self._tabs[tab.target_id] = tab
            self._changed.notify_all()
        log.info("tab %s attached (%s)", tab.tab_id, tab.url or "about:blank")

    def _on_child_attached(self, tab: Tab, parent: Session, params: dict) -> None:
        info, session_id = params["targetInfo"], params["sessionId"]
        session = Session(self.connection, session_id, info["targetId"])
        if info.get("type") != "iframe":  # workers: let them run, we do not watch them
            session.try_call("Runtime.runIfWaitingForDebugger")
            self.root.try_call("Target.detachFromTarget", {"sessionId": session_id})
            return
        tab.add_child(info["targetId"], session)
        session.on("Target.attachedToTarget", lambda p: self._on_child_attached(tab, session, p))
        self._instrument(tab, session, child=True, waiting=params.get("waitingForDebugger", False))

    def _instrument(self, tab: Tab, session: Session, *, child: bool, waiting: bool) -> None:
        """Every hook's commands are sent, then the target resumed, then the replies collected
        off the event thread (a paused target's first requests need this thread to be judged).
        The tab's own session marks the tab instrumented once they are in (see use())."""
        done = None if child else tab.instrumented
        pipelined = PipelinedSession(session)
        try:
            pipelined.call(
                "Target.setAutoAttach",
                {"autoAttach": True, "waitForDebuggerOnStart": True, "flatten": True},
            )
            for hook in self.hooks:
                try:
                    hook.attach(tab, pipelined, child=child)
                except errors.BrowserGone:
                    raise
                except errors.RelayUnsupported as exc:  # a feature the extension relay lacks
                    log.warning("tab %s: %s: %s", tab.tab_id, type(hook).__name__, exc)
                except Exception:  # one feature's bug must not leave the tab paused forever
                    log.exception("tab hook %s failed on %s", type(hook).__name__, tab.tab_id)
            if waiting:
                pipelined.call("Runtime.runIfWaitingForDebugger")
        except errors.BrowserGone:
            if done is not None:
                done.set()  # nothing more will answer; the caller's next call says why
            return
        threading.Thread(
            target=self._collect, args=(tab, pipelined, done), name="instrument", daemon=True
        ).start()

    @staticmethod
    def _collect(tab: Tab, pipelined: PipelinedSession, done: threading.Event | None) -> None:
        try:
            for method, exc in pipelined.finish():
                if not tab.closed.is_set():
                    log.warning("instrumenting %s: %s failed: %s", tab.tab_id, method, exc)
        finally:
            if done is not None:
                done.set()

    def _on_detached(self, params: dict) -> None:
        self._drop(params.get("targetId"))

    def _drop(self, target_id: str | None) -> None:
        with self._changed:
            tab = self._tabs.pop(target_id, None) if target_id else None
            if tab is None:
                return
            if self._last_used == target_id:
                self._last_used = None
            self._changed.notify_all()
        self._release(tab)
        log.info("tab %s closed", tab.tab_id)

    def _release(self, tab: Tab) -> None:
        if tab.closed.is_set():
            return
        for hook in self.hooks:
            try:
                hook.detach(tab)
            except Exception:
                log.exception("releasing %s failed", tab.tab_id)
        tab.instrumented.set()  # whoever waits for the hooks learns the tab is gone instead
        tab.state.clear()
        tab.closed.set()
        for session_id in [tab.session.session_id] + [
            s.session_id for s in tab.child_sessions().values()
        ]:
            self.connection.events.forget_session(session_id)
        self.tabs_freed += 1

    def _on_info_changed(self, params: dict) -> None:
        """The URL only: Chromium sends this when the URL changes, never when the title does, and
        then with the URL standing in for the title (page/state/navigation.py keeps titles)."""
        info = params["targetInfo"]
        tab = self._tabs.get(info["targetId"])
        if tab is not None:
            tab.url = info.get("url", tab.url)

    def _on_unshared_opened(self, params: dict) -> None:
        opener, url = params.get("openerId"), params.get("url")
        if isinstance(opener, str):
            url = url if isinstance(url, str) else ""
            with self._lock:
                self._unshared.append((time.monotonic(), opener, url))

    def _on_crashed(self, params: dict) -> None:
        tab = self._tabs.get(params.get("targetId", ""))
        if tab is not None:
            tab.crashed = True
            log.warning("tab %s crashed (%s)", tab.tab_id, params.get("status"))
            self.connection.fail_session(
                tab.session.session_id,
                errors.TabCrashed(f"tab {tab.tab_id} crashed; close it and open a new one"),
            )

    # -- the registry -------------------------------------------------------------------------
    def tabs(self) -> list[Tab]:
        with self._lock:
            return sorted(self._tabs.values(), key=_CREATED)

    @property
    def last_used(self) -> Tab | None:
        with self._lock:
            return self._tabs.get(self._last_used) if self._last_used else None

    def use(self, tab: Tab) -> Tab:
        self._wait_instrumented(tab)
        with self._lock:
            self._last_used = tab.target_id
        tab.touch()
        return tab

    @staticmethod
    def _wait_instrumented(tab: Tab, timeout: float = ATTACH_TIMEOUT) -> None:
        """A tab is handed to a caller only once its renderer has answered the tab hooks. Sent is
        not enough: a new tab's renderer may still be starting (50 ms to over a second here), and
        a navigation sent meanwhile ran the page's first script before the renderer handled the
        queued Network.enable, so its first fetch was never reported (1 in 5 new tabs, up to 15
        of 50 fresh starts: bench/first_request.py). Once answered, the renderer has the domains
        on and Chromium carries them into a renderer a navigation swaps in: none missed since.
        Paused targets are resumed before this (a noopener popup answers only then)."""
        if not tab.instrumented.wait(timeout):
            log.warning(
                "tab %s: its renderer did not answer the tab hooks within %g s; what it does "
                "now may go unrecorded",
                tab.tab_id,
                timeout,
            )

    def resolve(self, key: str | None) -> Tab:
        """A stable id, a label, a raw id or a unique raw-id prefix; None -> the last tab used,
        else the first page tab, else a new about:blank tab."""
        if key is None or key == "":
            tab = self.last_used or next(iter(self.tabs()), None)
            if tab is None and self.no_tab is not None:
                raise self.no_tab()
            return self.use(tab or self.new_tab())
        key = str(key)
        if key in self._quarantined:
            raise errors.TabQuarantined(f"tab {key} was closed: {self._quarantined[key]}")
        tabs = self.tabs()
        for name in ("tab_id", "label", "target_id"):  # in this order, over every tab
            for tab in tabs:
                if getattr(tab, name) == key:
                    return self.use(tab)
        prefixed = [t for t in tabs if t.target_id.lower().startswith(key.lower())]
        if len(prefixed) > 1:
            raise errors.TabAmbiguous(
                f"{key!r} matches {len(prefixed)} tabs; use a longer prefix or the tabId",
                matches=[t.tab_id for t in prefixed],
            )
        if prefixed:
            return self.use(prefixed[0])
        if key in self.gone_tabs:
            raise errors.TabNotFound(f"no tab {key!r}: {self.gone_tabs[key]}")
        raise errors.TabNotFound(f"no tab {key!r}; see GET /tabs")

    def wait_for_tab(self, target_id: str, timeout: float = ATTACH_TIMEOUT) -> Tab:
        deadline = time.monotonic() + timeout
        with self._changed:
            while target_id not in self._tabs:
                left = deadline - time.monotonic()
                if left <= 0 or self.connection.closed:
                    raise errors.CdpTimeout(
                        f"tab {target_id} was not attached within {timeout:g} s"
                    )
                self._changed.wait(left)
            return self._tabs[target_id]

    def new_tab(self, *, label: str | None = None) -> Tab:
        if label is not None:
            self._check_label(label)
        self._make_room()
        tab = self._created()
        if tab.crashed:
            # Born dead: Chromium can hand a new tab its spare renderer process before it has
            # noticed that the process was killed (seen after the renderers were SIGKILLed, at
            # load 12). It knows by now, so the next tab gets a live renderer.
            log.warning("new tab %s crashed before its first use; opening another", tab.tab_id)
            self.close_tab(tab)
            tab = self._created()
        tab.label = label
        return tab

    def _created(self) -> Tab:
        target_id = self.root.call(
            "Target.createTarget", {"url": "about:blank", "newWindow": self.window_per_tab}
        )["targetId"]
        return self.use(self.wait_for_tab(target_id))

    def _check_label(self, label: str) -> None:
        if not isinstance(label, str) or not label.strip() or len(label) > 64:
            raise errors.InvalidRequest("label must be a non-empty string of at most 64 characters")
        if any(t.label == label for t in self.tabs()):
            raise errors.Conflict(f"label {label!r} is already used by another tab")

    def _make_room(self) -> None:
        """maxTabs (managed profiles): the oldest extra tabs are closed to make room."""
        if not self.max_tabs:
            return
        pages = [t for t in self.tabs() if t.type == "page"]
        for tab in pages[: max(0, len(pages) - self.max_tabs + 1)]:
            log.info("closing %s: maxTabs %d reached", tab.tab_id, self.max_tabs)
            self.close_tab(tab)

    def close_tab(self, tab: Tab, timeout: float = CLOSE_TIMEOUT) -> None:
        self.root.try_call("Target.closeTarget", {"targetId": tab.target_id})
        if not tab.closed.wait(timeout):
            self._drop(tab.target_id)

    def quarantine(self, tab: Tab, reason: str) -> None:
        """Close a tab that ended up somewhere the policy forbids; later calls naming it get 409.
        Safe to call from the event thread: the close waits on events, so it runs elsewhere."""
        tab.quarantined = reason
        with self._changed:
            for key in (tab.tab_id, tab.target_id, tab.label):
                if key:
                    self._quarantined[key] = reason
        log.warning("quarantining %s: %s", tab.tab_id, reason)
        threading.Thread(target=self.close_tab, args=(tab,), name="quarantine", daemon=True).start()

    def focus(self, tab: Tab) -> Tab:
        self.root.try_call("Target.activateTarget", {"targetId": tab.target_id})
        return self.use(tab)

    def tabs_opened_since(self, since: float, opener: Tab | None = None) -> list[Tab]:
        """Tabs created since `since`; with `opener`, only the windows that tab opened, so two
        tabs acting at once never see each other's."""
        tabs = [t for t in self.tabs() if t.created >= since and t is not opener]
        if opener is None:
            return tabs
        # Chromium 156 names the opener tab's own target as openerId for window.open,
        # target=_blank and rel=noopener/noreferrer alike (only canAccessOpener is false without
        # an opener), also when an iframe, even out-of-process, opened it; so a noopener window is
        # still its opener's, and a tab without openerId (Target.createTarget) is no act's
        return [t for t in tabs if t.opener_id == opener.target_id]

    def unshared_opened_since(self, since: float, opener: Tab) -> list[dict]:
        """Windows `opener` opened since `since` that are not tabs here (the relay shares only
        the tabs the user shares), each with its url when the browser knew it."""
        mine = opener.target_id
        with self._lock:
            found = [url for at, by, url in self._unshared if at >= since and by == mine]
        return [{"url": url} if url else {} for url in found]
