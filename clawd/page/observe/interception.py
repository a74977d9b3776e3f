"""The Fetch domain on every tab and iframe session: each document request (main frame,
sub-frames, every redirect hop) is paused and judged by the navigation policy before it leaves;
with `strict` every request is. Then the profile's network routes (routes.py) may answer it: the
policy is judged first, so no route lets a blocked request through, and a route's rewritten URL is
judged too. HTTP auth challenges are answered from the tab's credentials. While a /response/body
waiter is pending, the responses it may want are paused too, their bodies read there (taps)."""

from __future__ import annotations

import base64
import contextlib
import logging
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Protocol

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session
from clawd.page.observe import routes as network_routes

log = logging.getLogger("clawd.security")

POLICY_ERRORS = (errors.NavigationBlocked, errors.HostUnresolved, errors.InvalidRequest)
# documents that make no request of their own and are safe to end on
INERT_DOCUMENTS = ("about:blank", "about:srcdoc", "chrome-error://chromewebdata/")


class NavigationGuard:
    def __init__(self, policy, *, strict: bool = False, workers: int = 8):
        self.policy = policy
        self.strict = strict
        self.routes = network_routes.RouteBook()
        # a verdict can wait on DNS: never on the event thread, where it would hold up every
        # other event (and with them every other paused request) behind one slow lookup
        self._judges = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="fetch-judge")

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        session.on(
            "Fetch.requestPaused", lambda p: self._judges.submit(self._on_paused, tab, session, p)
        )
        session.on("Fetch.authRequired", lambda p: self._on_auth(tab, session, p))
        held = state(tab)
        held.refresh = lambda: self.refresh(tab)
        if not child:
            session.on("Page.frameNavigated", lambda p: self._on_navigated(tab, p))
            session.on("Page.frameRequestedNavigation", held.watch.requested)
        held.add_session(session)
        self._enable(tab, session)

    def detach(self, tab: Tab) -> None:
        pass

    def refresh(self, tab: Tab) -> None:
        """Re-enable Fetch on every session of the tab (after credentials changed)."""
        for session in state(tab).sessions():
            if not tab.closed.is_set():
                session.try_call("Fetch.enable", self._params(tab))

    def routes_changed(self, browser) -> None:
        """Make every tab of `browser` pause what its routes now match (and no more), before
        the caller answers: a route is in force once POST /route returns."""
        for tab in browser.tabs():
            self.refresh(tab)

    def _enable(self, tab: Tab, session: Session) -> None:
        session.call("Fetch.enable", self._params(tab))

    def _params(self, tab: Tab) -> dict:
        pattern = {"urlPattern": "*", "requestStage": "Request"}
        if not self.strict:
            pattern["resourceType"] = "Document"
        patterns = [pattern]
        table = self.routes.peek(tab.owner)
        if table is not None and not self.strict:  # strict pauses every request already
            patterns += table.fetch_patterns()
        patterns += [tap.fetch_pattern() for tap in state(tab).taps()]
        return {"patterns": patterns, "handleAuthRequests": bool(state(tab).credentials())}

    def _on_paused(self, tab: Tab, session: Session, params: dict) -> None:
        if "responseStatusCode" in params or "responseErrorReason" in params:
            _on_response(tab, session, params)  # judged at its request stage already
            return
        url = params["request"]["url"]
        # every paused request is judged, those paused only for a route too: no route answers
        # or sends on a request the policy refuses
        refusal = self._refusal(url)
        if refusal is not None:
            self._refuse(tab, session, params, url, refusal)
            return
        _judged(tab, params)
        table = self.routes.peek(tab.owner)
        route, used_up = (None, False) if table is None else self._take(table, params)
        if route is None:
            session.try_call("Fetch.continueRequest", {"requestId": params["requestId"]})
            return
        self._answer(tab, session, params, route)
        if used_up:
            self.routes_changed(tab.owner)

    def _refusal(self, url: str) -> errors.ClawdError | None:
        try:
            if _policed(url):
                self.policy.check(_as_http(url))
        except POLICY_ERRORS as exc:
            return exc
        return None

    def _refuse(self, tab: Tab, session: Session, params: dict, url: str, exc) -> None:
        state(tab).block(
            {
                "url": url,
                "reason": exc.message,
                "code": exc.code,
                "frameId": params.get("frameId"),
                "at": time.monotonic(),
            }
        )
        _judged(tab, params)
        # routine on real pages (ads, trackers in iframes): the refusal a caller must see
        # is in the act answer or the navigation's error, so the log keeps it at debug
        log.debug(
            "blocked %s request of %s: %s", params.get("resourceType"), tab.tab_id, exc.message
        )
        session.try_call(
            "Fetch.failRequest",
            {"requestId": params["requestId"], "errorReason": "BlockedByClient"},
        )

    @staticmethod
    def _take(table, params: dict):
        request = params["request"]
        return table.take(
            request["url"], request.get("method", "GET"), params.get("resourceType", "Other")
        )

    def _answer(self, tab: Tab, session: Session, params: dict, route) -> None:
        """Do what the route says; a rewritten URL is judged like a request of its own (always:
        a route must not reach what the page itself could not be sent to)."""
        request_id = params["requestId"]
        if route.action == "fulfill":
            network_routes.fulfill(session, request_id, route)
        elif route.action == "abort":
            network_routes.abort(session, request_id)
        elif route.rewrite_url and (refusal := self._refusal(route.rewrite_url)) is not None:
            self._refuse(tab, session, params, route.rewrite_url, refusal)
        else:
            network_routes.send_on(session, request_id, route, params["request"])

    def _on_navigated(self, tab: Tab, params: dict) -> None:
        """The last line: a main frame that ended on a URL the policy refuses (a load that made
        no request we could pause: back/forward cache, a non-http scheme) closes the tab."""
        frame = params.get("frame") or {}
        if frame.get("parentId"):
            return
        url = frame.get("url", "")
        reason = self.verdict(url)
        if reason is not None and tab.quarantined is None:
            state(tab).block({"url": url, "reason": reason, "code": "TAB_QUARANTINED"})
            if tab.owner is not None:
                tab.owner.quarantine(tab, f"it navigated to a blocked URL ({reason})")

    def verdict(self, url: str) -> str | None:
        """None when a tab may rest on `url`, else why not."""
        if url.startswith(INERT_DOCUMENTS) or url.startswith(("data:", "blob:")):
            return None
        try:
            self.policy.check(url)
        except POLICY_ERRORS as exc:
            return exc.message
        return None

    def _on_auth(self, tab: Tab, session: Session, params: dict) -> None:
        creds = state(tab).credentials()
        response = {"response": "Default"}
        if creds:
            response = {
                "response": "ProvideCredentials",
                "username": creds.get("username", ""),
                "password": creds.get("password", ""),
            }
        session.try_call(
            "Fetch.continueWithAuth",
            {"requestId": params["requestId"], "authChallengeResponse": response},
        )


class NavigationWatch:
    """When the main frame last asked to navigate and when its document request was last judged,
    so an action can wait for the verdict on a navigation it caused."""

    def __init__(self, frame_id: str):
        self.frame_id = frame_id
        self.requested_at = 0.0
        self.judged_at = 0.0
        self._cond = threading.Condition()

    def requested(self, params: dict) -> None:
        if params.get("frameId") == self.frame_id:
            with self._cond:
                self.requested_at = time.monotonic()

    def judged(self) -> None:
        with self._cond:
            self.judged_at = time.monotonic()
            self._cond.notify_all()

    def wait_verdict(self, since: float, window: float) -> None:
        """If a navigation was requested after `since`, wait (at most `window` s) for its
        verdict."""
        with self._cond:
            if self.requested_at < since:
                return
            self._cond.wait_for(lambda: self.judged_at >= self.requested_at, timeout=window)


class BodyTap(Protocol):
    """What wants the bodies of some responses while it waits (network.py's waiter)."""

    cap: int  # the largest body (bytes, as declared) it reads

    def fetch_pattern(self) -> dict: ...

    def wants(self, url: str) -> bool: ...

    def took(self, network_id: str, body: bytes) -> None: ...


class Interception:
    """One tab's side of interception: its sessions (to re-enable Fetch on), the credentials
    POST /set/credentials gave, the last document request refused and why, the body taps in
    force and the main frame's NavigationWatch. Judge threads and the event thread write while
    requests read: one lock."""

    def __init__(self, frame_id: str):
        self.watch = NavigationWatch(frame_id)
        self.refresh = lambda: None  # the guard's: Fetch.enable again on every session
        self._taps: list[BodyTap] = []
        self._sessions: list[Session] = []
        self._credentials: dict | None = None  # {"username", "password"}
        self._blocked: dict | None = None  # {"url", "reason", "code", "at"?, "frameId"?}
        self._lock = threading.Lock()

    def add_session(self, session: Session) -> None:
        with self._lock:
            self._sessions.append(session)

    def sessions(self) -> list[Session]:
        with self._lock:
            return list(self._sessions)

    def taps(self) -> list[BodyTap]:
        with self._lock:
            return list(self._taps)

    def set_tap(self, tap: BodyTap, on: bool) -> None:
        with self._lock:
            if on:
                self._taps.append(tap)
            elif tap in self._taps:
                self._taps.remove(tap)

    def credentials(self) -> dict | None:
        with self._lock:
            return dict(self._credentials) if self._credentials else None

    def set_credentials(self, credentials: dict | None) -> dict | None:
        """Replace the credentials (None: none); the ones they replace."""
        with self._lock:
            previous, self._credentials = self._credentials, credentials
            return previous

    def block(self, blocked: dict) -> None:
        with self._lock:
            self._blocked = blocked

    def blocked(self) -> dict | None:
        with self._lock:
            return self._blocked

    def take_blocked(self) -> dict | None:
        """The last refusal, forgotten (a navigation starting afresh, or reporting one)."""
        with self._lock:
            blocked, self._blocked = self._blocked, None
            return blocked


INTERCEPTION = StateKey("interception", lambda tab: Interception(tab.target_id))


def state(tab: Tab) -> Interception:
    return tab.state[INTERCEPTION]


def blocked_since(tab: Tab, since: float, window: float = 0.25) -> dict | None:
    """The blocked navigation an action that started at `since` caused, if any, waiting up to
    `window` seconds for the verdict on a navigation it requested (docs/security.md)."""
    held = state(tab)
    held.watch.wait_verdict(since, window)
    blocked = held.blocked()
    if blocked and blocked.get("at", 0) >= since:
        return {k: blocked[k] for k in ("url", "reason", "code")}
    return None


@contextlib.contextmanager
def tapped(tab: Tab, tap: BodyTap) -> Iterator[None]:
    """Pause the responses `tap` may want at the Fetch Response stage while in this block (in
    force on every session of the tab when it begins): only then, so no other request pays."""
    held = state(tab)
    held.set_tap(tap, True)
    held.refresh()
    try:
        yield
    finally:
        held.set_tap(tap, False)
        if not tab.closed.is_set():
            held.refresh()


def _on_response(tab: Tab, session: Session, params: dict) -> None:
    """A response paused for a tap: the first tap that wants it gets its body, read here (the
    whole of it, even one the page never reads); the page then gets the response unchanged."""
    url = params["request"]["url"]
    tap = next((t for t in state(tab).taps() if t.wants(url)), None)
    try:
        if tap is not None and _readable(params, tap.cap):
            body = _response_body(session, params["requestId"])
            if body is not None:
                tap.took(params.get("networkId") or params["requestId"], body)
    finally:
        _continue_response(session, params["requestId"])


def _readable(params: dict, cap: int) -> bool:
    """A body we may hold whole: not a redirect's or a failure's, unencoded (its decoded size is
    what it declares) and declared within `cap` bytes."""
    if "responseErrorReason" in params or 300 <= params.get("responseStatusCode", 0) < 400:
        return False
    headers = {h["name"].lower(): h["value"] for h in params.get("responseHeaders") or []}
    length = headers.get("content-length", "").strip()
    encoding = headers.get("content-encoding", "identity").strip().lower()
    return length.isdigit() and int(length) <= cap and encoding in ("", "identity")


def _response_body(session: Session, request_id: str) -> bytes | None:
    try:
        got = session.call("Fetch.getResponseBody", {"requestId": request_id})
    except (errors.CdpError, errors.CdpTimeout) as exc:
        log.debug("response %s not read at its response stage: %s", request_id, exc.message)
        return None
    body = got.get("body", "")
    return base64.b64decode(body) if got.get("base64Encoded") else body.encode()


def _continue_response(session: Session, request_id: str) -> None:
    # Fetch.continueResponse is newer; continueRequest continues a response as it came too
    if session.try_call("Fetch.continueResponse", {"requestId": request_id}) is None:
        session.try_call("Fetch.continueRequest", {"requestId": request_id})


def _judged(tab: Tab, params: dict) -> None:
    watch = state(tab).watch
    if params.get("resourceType") == "Document" and params.get("frameId") == watch.frame_id:
        watch.judged()


def _as_http(url: str) -> str:
    """Websockets are judged by the host they reach, like their http(s) twins."""
    if url.startswith("wss:"):
        return "https:" + url[4:]
    if url.startswith("ws:"):
        return "http:" + url[3:]
    return url


def _policed(url: str) -> bool:
    # data:, blob: and about: documents make no network request; the policy judges the rest
    return not url.startswith(("data:", "blob:", "about:"))
