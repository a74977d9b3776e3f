"""The Network domain on every tab and iframe: per tab the newest 500 requests with their outcome,
and waiting for the next response whose URL matches (exact, substring or glob) to read its body.
The same events feed the tab's HAR recording when one runs (har.py). Request interception (the
navigation policy, routes, HTTP auth, pausing responses to read their bodies) is
interception.py's."""

from __future__ import annotations

import base64
import logging
import re
import threading
import time

from clawd import errors
from clawd.browser.tab import RingBuffer, StateKey, Tab
from clawd.cdp.session import Session
from clawd.page.observe import interception
from clawd.page.observe.urls import url_matcher

logger = logging.getLogger("clawd.page")

REQUESTS_CAPACITY = 500
DEFAULT_MAX_CHARS = 200_000
# an unread body Chromium does not cache reaches the page only whole, and never finishes: once
# bytes came, this long without more and what came is the answer
BODY_QUIET = 0.5
# the largest body a waiter reads at its response stage, whole whether the page reads it or not
BODY_CAP = 32 * 2**20
_TEXT_TYPES = re.compile(
    r"^(text/|application/([\w.+-]*\+)?(json|xml|javascript|ecmascript|x-www-form-urlencoded)"
    r"|image/svg\+xml)",
    re.I,
)


class NetworkWatch:
    """The tab hook: Network.enable on each session, its events into the tab's NetworkLog."""

    def __init__(self):
        self.buffers_freed = 0
        self._lock = threading.Lock()

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        log = tab.state[NETWORK]
        session.on("Network.requestWillBeSent", lambda p: log.on_request(p, session))
        session.on("Network.responseReceived", lambda p: log.on_response(session, p))
        session.on("Network.dataReceived", log.on_data)
        # the headers the network stack added (Cookie, Set-Cookie): a HAR's (har.py)
        session.on("Network.requestWillBeSentExtraInfo", lambda p: log.on_extra("request", p))
        session.on("Network.responseReceivedExtraInfo", lambda p: log.on_extra("response", p))
        session.on("Network.loadingFinished", lambda p: log.on_finished(p, session))
        session.on("Network.loadingFailed", lambda p: log.on_failed(p, session))
        if not child:  # a HAR's pageTimings: the main frame's
            session.on("Page.domContentEventFired", lambda p: log.on_page("onContentLoad", p))
            session.on("Page.loadEventFired", lambda p: log.on_page("onLoad", p))
        session.call("Network.enable")

    def detach(self, tab: Tab) -> None:
        log = tab.state.pop(NETWORK)
        if log is not None:
            log.close()
            with self._lock:
                self.buffers_freed += 1

    def describe(self, browser) -> dict:
        tabs = {}
        for tab in browser.tabs():
            log = tab.state.peek(NETWORK)
            if log is not None:
                tabs[tab.tab_id] = {"requests": len(log.entries), "waiting": log.waiting()}
        return {"network": {"tabs": tabs, "buffersFreed": self.buffers_freed}}


class NetworkLog:
    """One tab's requests. Entries are dicts owned here; readers get copies."""

    def __init__(self, capacity: int = REQUESTS_CAPACITY):
        self.entries = RingBuffer(capacity)
        self._by_id: dict[str, dict] = {}
        self._waiters: list[ResponseWaiter] = []
        self._taken: dict[str, bytes] = {}  # bodies read at their response stage, by request
        self.har = None  # the tab's HAR recorder (har.py) while one records
        self._lock = threading.Lock()

    def begin_har(self, recorder) -> bool:
        """Let `recorder` see the events from now on; False when another one does."""
        with self._lock:
            if self.har is not None:
                return False
            self.har = recorder
            return True

    def end_har(self):
        with self._lock:
            recorder, self.har = self.har, None
            return recorder

    # -- events (dispatcher thread) -------------------------------------------------------------
    def on_request(self, params: dict, session: Session | None = None) -> None:
        if (recorder := self.har) is not None:  # read once: a stop may clear it
            recorder.on_request(session, params)
        request_id = params["requestId"]
        with self._lock:
            previous = self._by_id.get(request_id)
            if previous is not None and params.get("redirectResponse"):
                # the same requestId carries every redirect hop: close the old hop under its own id
                _set_status(previous, params["redirectResponse"].get("status"))
                previous["id"] = f"{request_id}.{previous.get('hop', 0)}"
            entry = {
                "id": request_id,
                "timestamp": _wall_ms(params),
                "method": params["request"].get("method"),
                "url": params["request"].get("url"),
                "resourceType": params.get("type", "Other"),
                "status": None,
                "ok": None,
                "failureText": None,
                "hop": previous.get("hop", 0) + 1 if previous is not None else 0,
            }
            self._by_id[request_id] = entry
            evicted = self.entries.append(entry)
            if evicted is not None and self._by_id.get(evicted["id"]) is evicted:
                del self._by_id[evicted["id"]]

    def on_response(self, session: Session, params: dict) -> None:
        response = params.get("response") or {}
        with self._lock:
            # a body read at its response stage (took) came before this event: popped either way
            taken = self._taken.pop(params["requestId"], None)
            entry = self._by_id.get(params["requestId"])
            if entry is not None:
                _set_status(entry, response.get("status"))
            waiters = [
                w
                for w in self._waiters
                if w.request_id is None and w.matches(response.get("url", ""))
            ]
            if waiters:
                waiters[0].bind(session, params["requestId"], response, taken)
        if (recorder := self.har) is not None:
            recorder.on_response(session, params)

    def on_extra(self, kind: str, params: dict) -> None:
        if (recorder := self.har) is not None:
            recorder.on_extra(kind, params)

    def on_data(self, params: dict) -> None:
        if "data" not in params:  # only a streamed response's chunks carry their bytes
            return
        for waiter in self._waiters_of(params["requestId"]):
            waiter.add(base64.b64decode(params["data"]))

    def on_finished(self, params: dict, session: Session | None = None) -> None:
        if (recorder := self.har) is not None:
            recorder.on_finished(session, params)
        for waiter in self._waiters_of(params["requestId"]):
            waiter.finish(None)

    def on_failed(self, params: dict, session: Session | None = None) -> None:
        if (recorder := self.har) is not None:
            recorder.on_failed(session, params)
        with self._lock:
            self._taken.pop(params["requestId"], None)
            entry = self._by_id.get(params["requestId"])
            if entry is not None:
                entry["ok"] = False
                entry["failureText"] = params.get("errorText") or (
                    "canceled" if params.get("canceled") else "failed"
                )
        for waiter in self._waiters_of(params["requestId"]):
            waiter.finish(params.get("errorText") or "failed")

    def on_page(self, name: str, params: dict) -> None:
        if (recorder := self.har) is not None:
            recorder.on_page_event(name, params)

    def _waiters_of(self, request_id: str) -> list[ResponseWaiter]:
        with self._lock:
            return [w for w in self._waiters if w.request_id == request_id]

    # -- readers (request threads) --------------------------------------------------------------
    def requests(self, *, contains: str | None = None, clear: bool = False) -> list[dict]:
        with self._lock:
            items = self.entries.drain() if clear else self.entries.items()
            if clear:
                self._by_id.clear()
            rows = [{k: v for k, v in e.items() if k != "hop"} for e in items]
        if contains:
            rows = [r for r in rows if contains in (r["url"] or "")]
        return rows

    def expect_response(self, pattern: str) -> ResponseWaiter:
        waiter = ResponseWaiter(pattern)
        with self._lock:
            self._waiters.append(waiter)
        return waiter

    def took(self, request_id: str, body: bytes) -> None:
        """A body read at its response stage (interception.py), before its responseReceived."""
        with self._lock:
            if self._waiters:  # else nobody would pop it
                self._taken[request_id] = body

    def forget(self, waiter: ResponseWaiter) -> None:
        with self._lock:
            if waiter in self._waiters:
                self._waiters.remove(waiter)

    def waiting(self) -> int:
        with self._lock:
            return sum(1 for w in self._waiters if w.request_id is None)

    def close(self) -> None:
        with self._lock:
            waiters, self._waiters = self._waiters, []
            self._by_id.clear()
            self._taken.clear()
            recorder, self.har = self.har, None
        if recorder is not None:  # the tab closed while recording: nothing will write it
            recorder.abandon()
        self.entries.clear()
        for waiter in waiters:
            waiter.finish("the tab was closed")


NETWORK = StateKey("network.log", lambda tab: NetworkLog())


def requests(tab: Tab, *, contains: str | None = None, clear: bool = False) -> list[dict]:
    """The tab's recorded requests (those whose URL contains `contains`), oldest first."""
    log = tab.state.peek(NETWORK)
    return log.requests(contains=contains, clear=clear) if log is not None else []


def _set_status(entry: dict, status) -> None:
    if isinstance(status, int):
        entry["status"] = status
        entry["ok"] = 200 <= status < 400


def _wall_ms(params: dict) -> float | None:
    wall = params.get("wallTime")  # seconds since the epoch; a float even when whole (console._ms)
    return round(float(wall) * 1000, 3) if isinstance(wall, (int, float)) else None


# -- response bodies ----------------------------------------------------------------------------
class ResponseWaiter:
    """The next response whose URL matches; set on the dispatcher thread, read by one request.
    Once streamed (Network.streamResourceContent), it also holds the body's bytes as they come."""

    def __init__(self, pattern: str):
        self.pattern = pattern
        self._matches = url_matcher(pattern)
        self.request_id: str | None = None
        self.session: Session | None = None
        self.response: dict | None = None
        self.failure: str | None = None
        self.chunks: list[bytes] = []
        self.taken = False  # chunks is the whole body, read at its response stage
        self._matched = threading.Event()
        self._finished = threading.Event()
        self._news = threading.Condition()

    def matches(self, url: str) -> bool:
        return self._matches(url)

    def bind(
        self, session: Session, request_id: str, response: dict, taken: bytes | None = None
    ) -> None:
        self.session, self.request_id, self.response = session, request_id, response
        if taken is not None:
            self.chunks, self.taken = [taken], True
        self._matched.set()

    def add(self, chunk: bytes) -> None:
        with self._news:
            self.chunks.append(chunk)
            self._news.notify_all()

    def finish(self, failure: str | None) -> None:
        self.failure = failure
        self._matched.set()
        with self._news:
            self._finished.set()
            self._news.notify_all()

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    def wait_matched(self, timeout: float) -> bool:
        """True once the matched response's headers arrived (or the wait ended) in `timeout`."""
        return self._matched.wait(timeout)

    def wait_body(self, deadline: float, quiet: float) -> None:
        """Until the response finished loading, its streamed bytes reached Content-Length,
        `quiet` seconds passed without a byte once some came, or the deadline."""
        with self._news:
            while not self._finished.is_set() and not self.whole():
                left = deadline - time.monotonic()
                if left <= 0:
                    return
                some = any(self.chunks)
                if not self._news.wait(min(left, quiet) if some else left) and some:
                    return  # what the page can have without reading it has come

    def streamed(self, buffered: bytes) -> None:
        """What was buffered when streaming began: before every chunk added since."""
        with self._news:
            self.chunks.insert(0, buffered)

    def has_body(self) -> bool:
        """Finished loading, or bytes of it (all of an empty one) arrived."""
        return self.finished or self.taken or any(self.chunks) or self.whole()

    def whole(self) -> bool:
        headers = {k.lower(): v for k, v in (self.response or {}).get("headers", {}).items()}
        length = str(headers.get("content-length", ""))
        # the chunks are decoded bytes: only an unencoded body's length is Content-Length
        if not length.isdigit() or headers.get("content-encoding", "identity") != "identity":
            return False
        return sum(len(c) for c in self.chunks) >= int(length)


def response_body(
    tab: Tab, pattern: str, *, timeout: float, max_chars: int = DEFAULT_MAX_CHARS
) -> dict:
    """Wait for the next response matching `pattern` and return it with its body: the whole body
    once it finished loading, else (the page never reads it) the bytes that arrived."""
    log = tab.state.peek(NETWORK)
    if log is None:
        raise errors.TabNotFound(f"tab {tab.tab_id} is not watched (closed?)")
    deadline = time.monotonic() + timeout
    with interception.tapped(tab, BodyTap(log, pattern)):
        return _answer_when_matched(tab, log, pattern, deadline, timeout, max_chars)


def _answer_when_matched(
    tab: Tab, log: NetworkLog, pattern: str, deadline: float, timeout: float, max_chars: int
) -> dict:
    waiter = log.expect_response(pattern)
    try:
        if not waiter.wait_matched(timeout):
            raise errors.ResponseTimeout(
                f"no response matching {pattern!r} arrived within {timeout * 1000:g} ms; "
                f"see what the page requested with `clawd-browser requests`"
            )
        if waiter.response is None:
            raise errors.TabNotFound(f"tab {tab.tab_id}: {waiter.failure}")
        if not waiter.finished and not waiter.taken:
            # a fetch() of a response Chromium does not cache (Cache-Control: no-store, as APIs
            # answer) finishes only once the page reads the body: until then the bytes that
            # reached the page come from the inspector's buffer (measured on Chromium 156)
            _stream(waiter)
            waiter.wait_body(deadline, BODY_QUIET)
        if not waiter.has_body():
            raise errors.ResponseTimeout(
                f"the body of {waiter.response.get('url')} did not come within "
                f"{timeout * 1000:g} ms (a body the page never reads is read whole when it "
                f"declares its length, up to {BODY_CAP >> 20} MiB unencoded; else only what "
                f"reached the page, up to 2 MiB)"
            )
        return _body_answer(waiter, max_chars)
    finally:
        log.forget(waiter)


class BodyTap:
    """The responses a waiter may want (interception.py pauses them at their response stage):
    their bodies, read there whole, go to the tab's NetworkLog until their responseReceived."""

    cap = BODY_CAP

    def __init__(self, log: NetworkLog, pattern: str):
        self._log = log
        self.wants = url_matcher(pattern)
        self._pattern = pattern

    def fetch_pattern(self) -> dict:
        """A Fetch pattern pausing at least every URL the waiter's pattern matches."""
        escaped = self._pattern.replace("\\", "\\\\").replace("?", "\\?")
        glob = re.sub(r"\*+", "*", escaped) if "*" in escaped else f"*{escaped}*"
        return {"urlPattern": glob, "requestStage": "Response"}

    def took(self, network_id: str, body: bytes) -> None:
        self._log.took(network_id, body)


def _stream(waiter: ResponseWaiter) -> None:
    """Have Chromium send the matched response's bytes: those buffered now, the rest in
    dataReceived events. Where it cannot (a Chromium without the method), loadingFinished."""
    try:
        got = waiter.session.call("Network.streamResourceContent", {"requestId": waiter.request_id})
    except errors.CdpError as exc:
        logger.debug("response %s not streamed: %s", waiter.request_id, exc.message)
        return
    waiter.streamed(base64.b64decode(got.get("bufferedData", "")))


def _body_answer(waiter: ResponseWaiter, max_chars: int) -> dict:
    response = waiter.response
    answer = {
        "url": response.get("url"),
        "status": response.get("status"),
        "headers": response.get("headers", {}),
        "mimeType": response.get("mimeType"),
    }
    if waiter.failure is not None:
        raise errors.NavigationFailed(
            f"the response from {answer['url']} failed while loading: {waiter.failure}",
            url=answer["url"],
            status=answer["status"],
        )
    body, encoded = _body(waiter, answer)
    if encoded and _TEXT_TYPES.match(answer["mimeType"] or ""):
        body, encoded = _decode_text(body)
    if encoded:
        answer["encoding"] = "base64"
    answer["complete"] = waiter.finished or waiter.taken or waiter.whole()
    answer["truncated"] = bool(max_chars) and len(body) > max_chars
    answer["body"] = body[:max_chars] if answer["truncated"] else body
    return answer


def _body(waiter: ResponseWaiter, answer: dict) -> tuple[str, bool]:
    """(body, base64-encoded): Chromium's copy of a finished body, else the streamed bytes."""
    streamed = base64.b64encode(b"".join(waiter.chunks)).decode("ascii")
    if not waiter.finished or waiter.taken:
        return streamed, True
    try:
        got = waiter.session.call("Network.getResponseBody", {"requestId": waiter.request_id})
    except errors.CdpError as exc:
        if streamed:
            return streamed, True
        raise errors.ResponseBodyUnavailable(
            f"the body of {answer['url']} is not available ({exc.message}); redirects, 204s "
            f"and evicted bodies have none",
            url=answer["url"],
            status=answer["status"],
        ) from None
    return got.get("body", ""), bool(got.get("base64Encoded", False))


def _decode_text(body: str) -> tuple[str, bool]:
    raw = base64.b64decode(body)
    try:
        return raw.decode("utf-8"), False
    except UnicodeDecodeError:
        return body, True
