"""HAR recordings of a tab (POST /har/start, /har/stop): the Network events network.py
receives, while recording, become one exchange per request hop (redirects each their own entry,
failed requests with `_error`), bodies fetched as they finish when asked; at the end harfile.py
writes them as a HAR 1.2 file under $CLAWD_HOME/har."""

from __future__ import annotations

import base64
import pathlib
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait

from clawd import errors
from clawd.page.observe import harfile
from clawd.page.observe.network import NETWORK
from clawd.page.observe.routes import glob
from clawd.security.paths import confine

CONTENT_MODES = ("omit", "embed", "attach")
MAX_ENTRIES = 10_000
MAX_BODY_BYTES = 64 << 20  # bodies kept in memory until the HAR is written, all together
BODY_WAIT = 10.0  # at stop, how long bodies still being read may take


class Exchange:
    """One request hop and what came of it, as the Network events told."""

    def __init__(self, params: dict, page_id: str | None, hop: int = 0):
        request = params["request"]
        self.request_id = params["requestId"]
        self.hop = hop  # its place among the hops of its request id: its ExtraInfo events'
        self.page_id = page_id
        self.wall = params.get("wallTime") or time.time()
        self.started = params.get("timestamp", 0.0)
        self.method = request.get("method", "GET")
        self.url = request.get("url", "")
        self.headers = request.get("headers") or {}
        self.post_data = request.get("postData")
        self.resource_type = params.get("type", "Other")
        self.response: dict | None = None
        self.ended: float | None = None
        self.transfer = 0
        self.error: str | None = None
        self.redirect_url = ""
        self.body: tuple[bytes, bool] | None = None  # (bytes, was binary)
        self.note: str | None = None
        self.sent: dict | None = None  # requestWillBeSentExtraInfo: the headers on the wire
        self.received: dict | None = None  # responseReceivedExtraInfo: the same, answered

    def close(self, response: dict, ended: float, redirect_url: str = "") -> None:
        self.response, self.ended, self.redirect_url = response, ended, redirect_url


class HarRecorder:
    """What one tab's recording holds. Events come on the event thread, bodies on readers,
    stop() on a request thread: one lock."""

    def __init__(self, tab, content: str, url_filter: str | None):
        self.tab = tab
        self.content = content
        self.url_filter = url_filter
        self._keep = glob(url_filter, "urlFilter") if url_filter else (lambda url: True)
        self.pages: list[dict] = []
        self.exchanges: list[Exchange] = []
        self.dropped = 0
        self._open: dict[str, Exchange] = {}
        self._hops: dict[str, int] = {}  # request id -> hops seen (recorded or not)
        self._skipped: set[str] = set()  # request ids whose latest hop is not recorded
        self._kept: set[str] = set()  # request ids with a hop recorded
        # the *ExtraInfo events of a request id, one per hop in order, before or after its
        # requestWillBeSent; None for a hop not recorded (the order is all that ties them)
        self._extras: dict[tuple[str, str], list[dict | None]] = {}
        self._body_bytes = 0
        self._readers = ThreadPoolExecutor(max_workers=2, thread_name_prefix="har-body")
        self._pending: list = []
        self._closed = False  # no more body reads: stopped, or the tab closed
        self._lock = threading.Lock()
        self._add_page(tab.url or "about:blank", time.time(), None)

    # -- events (event thread) ------------------------------------------------------------------
    def on_request(self, session, params: dict) -> None:
        with self._lock:
            hop = self._hops.get(params["requestId"], 0)
            self._hops[params["requestId"]] = hop + 1
            previous = self._open.pop(params["requestId"], None)
            if previous is not None and params.get("redirectResponse"):
                url = params["request"].get("url", "")
                previous.close(params["redirectResponse"], params.get("timestamp", 0.0), url)
            if self._new_page(params):
                self._add_page(params["request"].get("url", ""), params.get("wallTime"), params)
            if not self._keep(params["request"].get("url", "")):
                self._skip(params["requestId"], hop)
                return
            if len(self.exchanges) >= MAX_ENTRIES:
                self.dropped += 1
                self._skip(params["requestId"], hop)
                return
            self._skipped.discard(params["requestId"])
            self._kept.add(params["requestId"])
            exchange = Exchange(params, self.pages[-1]["id"], hop)
            self.exchanges.append(exchange)
            self._open[exchange.request_id] = exchange

    def on_extra(self, kind: str, params: dict) -> None:
        """The headers (and cookies) a hop really sent or received, kept for its exchange."""
        request_id = params.get("requestId")
        with self._lock:
            held = self._extras.setdefault((kind, request_id), [])
            held.append(None if request_id in self._skipped else _extra(params))

    def _skip(self, request_id: str, hop: int) -> None:
        """A hop not recorded: its ExtraInfo, come or to come, is not kept."""
        self._skipped.add(request_id)
        for kind in ("request", "response"):
            held = self._extras.get((kind, request_id))
            if held is not None and len(held) > hop:
                held[hop] = None

    def _done(self, request_id: str) -> None:
        """The request ended: what was held to pair its hops goes, all of it if none was kept."""
        self._hops.pop(request_id, None)
        self._skipped.discard(request_id)
        if request_id not in self._kept:
            self._extras.pop(("request", request_id), None)
            self._extras.pop(("response", request_id), None)

    def on_response(self, session, params: dict) -> None:
        with self._lock:
            exchange = self._open.get(params["requestId"])
            if exchange is not None:
                exchange.response = params.get("response") or {}

    def on_finished(self, session, params: dict) -> None:
        with self._lock:
            self._done(params["requestId"])
            exchange = self._open.pop(params["requestId"], None)
            if exchange is None:
                return
            exchange.ended = params.get("timestamp")
            exchange.transfer = int(params.get("encodedDataLength") or 0)
            if self.content != "omit" and exchange.response is not None and not self._closed:
                self._pending.append(self._readers.submit(self._read_body, session, exchange))

    def on_failed(self, session, params: dict) -> None:
        with self._lock:
            self._done(params["requestId"])
            exchange = self._open.pop(params["requestId"], None)
            if exchange is not None:
                exchange.ended = params.get("timestamp")
                exchange.error = params.get("errorText") or (
                    "net::ERR_ABORTED" if params.get("canceled") else "failed"
                )

    def on_page_event(self, name: str, params: dict) -> None:
        """onContentLoad or onLoad of the current page (not of one begun before recording)."""
        with self._lock:
            page = self.pages[-1]
            if page.get("_started") is not None and "timestamp" in params:
                page["pageTimings"][name] = round(
                    (params["timestamp"] - page["_started"]) * 1000, 3
                )

    def _new_page(self, params: dict) -> bool:
        """A main-frame navigation: its request id is its loader's, and not a redirect hop."""
        return (
            params.get("type") == "Document"
            and params.get("frameId") == self.tab.target_id
            and params.get("requestId") == params.get("loaderId")
            and not params.get("redirectResponse")
        )

    def _add_page(self, url: str, wall, params: dict | None) -> None:
        page = {
            "startedDateTime": harfile.iso(wall or time.time()),
            "id": f"page_{len(self.pages) + 1}",
            "title": url,
            "pageTimings": {"onContentLoad": -1, "onLoad": -1},
        }
        if params is not None:
            page["_started"] = params.get("timestamp")
        self.pages.append(page)

    def _extra_of(self, kind: str, exchange: Exchange) -> dict | None:
        held = self._extras.get((kind, exchange.request_id)) or ()
        return held[exchange.hop] if exchange.hop < len(held) else None

    # -- bodies (reader threads) ----------------------------------------------------------------
    def _read_body(self, session, exchange: Exchange) -> None:
        try:
            got = session.call("Network.getResponseBody", {"requestId": exchange.request_id})
        except errors.ClawdError as exc:
            exchange.note = f"body not available: {exc.message}"
            return
        raw = got.get("body", "")
        binary = bool(got.get("base64Encoded"))
        data = base64.b64decode(raw) if binary else raw.encode("utf-8")
        with self._lock:
            if self._body_bytes + len(data) > MAX_BODY_BYTES:
                exchange.note = f"body not kept: the recording's bodies passed {MAX_BODY_BYTES} B"
                return
            self._body_bytes += len(data)
        exchange.body = (data, binary)

    # -- the end (a request thread) -------------------------------------------------------------
    def abandon(self) -> None:
        """The tab closed: stop reading bodies; the recording is dropped."""
        with self._lock:
            self._closed = True
        self._readers.shutdown(wait=False, cancel_futures=True)

    def finish(self) -> dict:
        """Wait (boundedly) for bodies still being read; the pages and exchanges recorded (bodies
        still bytes) and the log's comment, for harfile.save()."""
        with self._lock:
            self._closed = True  # a late event reads no more bodies (the pool is shut next)
            pending = list(self._pending)
        wait(pending, timeout=BODY_WAIT)
        self._readers.shutdown(wait=False, cancel_futures=True)
        with self._lock:
            if self.pages and self.tab.title and self.pages[-1]["title"] == self.tab.url:
                self.pages[-1]["title"] = self.tab.title
            pages = [{k: v for k, v in p.items() if k != "_started"} for p in self.pages]
            for exchange in self.exchanges:
                exchange.sent = self._extra_of("request", exchange)
                exchange.received = self._extra_of("response", exchange)
            held = {"pages": pages, "exchanges": list(self.exchanges), "comment": None}
            if self.dropped:
                held["comment"] = (
                    f"{self.dropped} requests past the first {MAX_ENTRIES} were not recorded"
                )
            return held


def _extra(params: dict) -> dict:
    """What a HAR takes from an ExtraInfo event: headers, and why cookies went unsent or
    unstored."""
    kept = {"headers": params.get("headers") or {}}
    sent = [
        c["cookie"] for c in params.get("associatedCookies") or () if not c.get("blockedReasons")
    ]
    if sent:
        kept["cookies"] = sent
    blocked = {
        c["cookieLine"]: c["blockedReasons"]
        for c in params.get("blockedCookies") or ()
        if c.get("cookieLine") and c.get("blockedReasons")
    }
    if blocked:
        kept["blocked"] = blocked
    return kept


def start(tab, *, content: str = "omit", url_filter: str | None = None) -> dict:
    """Start recording the tab's requests into a HAR."""
    log = tab.state.peek(NETWORK)
    if log is None:
        raise errors.TabNotFound(f"tab {tab.tab_id} is not watched (closed?)")
    if not log.begin_har(HarRecorder(tab, content, url_filter)):
        raise errors.HarRunning(
            f"a HAR of tab {tab.tab_id} is already recording; stop it with POST /har/stop"
        )
    started = {"recording": True, "content": content}
    return {**started, "urlFilter": url_filter} if url_filter else started


def stop(tab, root: pathlib.Path, path: str | None = None) -> dict:
    """End the tab's recording and write the HAR (and, with content attach, its bodies)."""
    log = tab.state.peek(NETWORK)
    recorder = log.har if log is not None else None
    if recorder is None:
        raise errors.HarNotRunning(
            f"no HAR of tab {tab.tab_id} is recording; start one with POST /har/start"
        )
    target = har_path(root, path)  # a bad path leaves the recording on, to try again
    if log.end_har() is not recorder:
        raise errors.HarNotRunning(f"the HAR of tab {tab.tab_id} was stopped meanwhile")
    written = harfile.save(target, recorder.finish(), recorder.content, root)
    return {"path": str(target), **written}


def har_path(root: pathlib.Path, path: str | None) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path:
        path = f"har-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.har"
    target = confine(root, path, must_exist=False, kind="file")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return confine(root, target, must_exist=False, kind="file")  # no symlink made meanwhile
