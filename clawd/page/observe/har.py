"""HAR 1.2 recordings of a tab (POST /har/start, /har/stop): the Network events network.py
receives, while recording, become one exchange per request hop (redirects each their own entry,
failed requests with `_error`), bodies fetched as they finish when asked (embedded, or attached as
files beside the HAR), written to a file under $CLAWD_HOME/har at the end."""

from __future__ import annotations

import base64
import datetime
import email.utils
import hashlib
import json
import mimetypes
import os
import pathlib
import secrets
import threading
import time
from concurrent.futures import ThreadPoolExecutor, wait
from urllib.parse import parse_qsl, urlsplit

from clawd import __version__, errors
from clawd.page.observe.network import NETWORK
from clawd.page.observe.routes import glob
from clawd.security.paths import confine

CONTENT_MODES = ("omit", "embed", "attach")
MAX_ENTRIES = 10_000
MAX_BODY_BYTES = 64 << 20  # bodies kept in memory until the HAR is written, all together
BODY_WAIT = 10.0  # at stop, how long bodies still being read may take
MAX_COOKIE_AGE = 400 * 86400


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
            "startedDateTime": _iso(wall or time.time()),
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
        """Wait (boundedly) for bodies still being read; the HAR as a dict, bodies still bytes."""
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
            return {"pages": pages, "exchanges": list(self.exchanges), "dropped": self.dropped}


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
    held = recorder.finish()
    bodies = target.parent / f"{target.stem}-bodies" if recorder.content == "attach" else None
    entries = [_entry(ex, recorder.content, bodies, root) for ex in held["exchanges"]]
    # a page nothing was recorded on (the one open when recording began, often) is left out:
    # readers such as haralyzer take a page's URL from its first entry
    pages = [p for p in held["pages"] if any(e["pageref"] == p["id"] for e in entries)]
    document = _log(pages, entries, held["dropped"])
    _write(target, json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8"))
    return {"path": str(target), "entries": len(entries), "pages": len(pages)}


def har_path(root: pathlib.Path, path: str | None) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if not path:
        path = f"har-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}.har"
    target = confine(root, path, must_exist=False, kind="file")
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return confine(root, target, must_exist=False, kind="file")  # no symlink made meanwhile


def _write(target: pathlib.Path, data: bytes) -> None:
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        out.write(data)


# -- HAR 1.2 (http://www.softwareishard.com/blog/har-12-spec/) -------------------------------------
def _log(pages: list[dict], entries: list[dict], dropped: int) -> dict:
    log = {
        "version": "1.2",
        "creator": {"name": "clawd", "version": __version__},
        "pages": pages,
        "entries": sorted(entries, key=lambda e: e["startedDateTime"]),
    }
    if dropped:
        log["comment"] = f"{dropped} requests past the first {MAX_ENTRIES} were not recorded"
    return {"log": log}


def _entry(ex: Exchange, content: str, bodies: pathlib.Path | None, root: pathlib.Path) -> dict:
    response = ex.response or {}
    timings = _timings(ex, response.get("timing"))
    entry = {
        "pageref": ex.page_id,
        "startedDateTime": _iso(ex.wall),
        "time": round(sum(v for k, v in timings.items() if k != "ssl" and v > 0), 3),
        "request": _request(ex, response),
        "response": _response(ex, response, content, bodies, root),
        "cache": {},
        "timings": timings,
        "_resourceType": ex.resource_type.lower(),
    }
    if response.get("remoteIPAddress"):
        entry["serverIPAddress"] = response["remoteIPAddress"].strip("[]")
    return entry


def _request(ex: Exchange, response: dict) -> dict:
    # the headers on the wire (with the Cookie the network stack added) when Chromium told them
    headers = (ex.sent or {}).get("headers") or response.get("requestHeaders") or ex.headers
    request = {
        "method": ex.method,
        "url": ex.url,
        "httpVersion": _http_version(response.get("protocol")),
        "cookies": _sent_cookies((_header(headers, "cookie") or "").replace("\n", ";"), ex.sent),
        "headers": _headers(headers),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(ex.url).query)],
        "headersSize": -1,
        "bodySize": len(ex.post_data.encode("utf-8")) if ex.post_data else 0,
    }
    if ex.post_data is not None:
        mime = _header(headers, "content-type") or "application/octet-stream"
        request["postData"] = {"mimeType": mime, "text": ex.post_data}
    return request


def _response(ex, response: dict, content: str, bodies, root) -> dict:
    # the raw headers hold Set-Cookie, which the page's view of them may lack
    headers = (ex.received or {}).get("headers") or response.get("headers") or {}
    out = {
        "status": int(response.get("status") or 0),
        "statusText": response.get("statusText") or "",
        "httpVersion": _http_version(response.get("protocol")),
        "cookies": _set_cookies(headers, ex),
        "headers": _headers(headers),
        "content": _content(ex, response, content, bodies, root),
        "redirectURL": ex.redirect_url or _header(headers, "location") or "",
        "headersSize": -1,
        "bodySize": -1,
        "_transferSize": ex.transfer,
    }
    if ex.error is not None:
        out["_error"] = ex.error
    return out


def _content(ex: Exchange, response: dict, mode: str, bodies, root) -> dict:
    mime = response.get("mimeType") or "x-unknown"
    out = {"size": 0, "mimeType": mime}
    if ex.body is None:
        length = _header(response.get("headers") or {}, "content-length")
        out["size"] = int(length) if length and length.isdigit() else 0
        if ex.note and mode != "omit":
            out["comment"] = ex.note
        return out
    data, binary = ex.body
    out["size"] = len(data)
    if mode == "embed" and binary:
        out.update(text=base64.b64encode(data).decode("ascii"), encoding="base64")
    elif mode == "embed":
        out["text"] = data.decode("utf-8", errors="replace")
    else:
        out["_file"] = _attach(data, mime, bodies, root)
    return out


def _attach(data: bytes, mime: str, bodies: pathlib.Path, root: pathlib.Path) -> str:
    """The body as a file named by its SHA-1 beside the HAR; the name relative to the HAR."""
    bodies.mkdir(parents=True, exist_ok=True, mode=0o700)
    confine(root, bodies, must_exist=True, kind="dir")
    name = hashlib.sha1(data).hexdigest() + (mimetypes.guess_extension(mime.split(";")[0]) or "")
    target = bodies / name
    if not target.exists():
        _write(target, data)
    return f"{bodies.name}/{name}"


def _timings(ex: Exchange, timing: dict | None) -> dict:
    """HAR's phases from Chromium's ResourceTiming (ms after requestTime); without one (a
    route's answer, a cache hit, a failure) the whole time counts as waiting."""
    total = max(0.0, ((ex.ended or ex.started) - ex.started) * 1000)
    if not timing:
        unknown = dict.fromkeys(("blocked", "dns", "connect", "ssl"), -1)
        return {**unknown, "send": 0, "wait": round(total, 3), "receive": 0}
    base = (timing["requestTime"] - ex.started) * 1000

    def span(start: str, end: str) -> float:
        a, b = timing.get(start, -1), timing.get(end, -1)
        return round(b - a, 3) if a >= 0 and b >= 0 else -1

    starts = (timing.get(k, -1) for k in ("dnsStart", "connectStart", "sendStart"))
    first = next((t for t in starts if t >= 0), 0)
    headers_end = timing.get("receiveHeadersEnd", 0)
    return {
        "blocked": round(max(0.0, base + first), 3),
        "dns": span("dnsStart", "dnsEnd"),
        "connect": span("connectStart", "connectEnd"),
        "send": max(0, span("sendStart", "sendEnd")),
        "wait": round(max(0.0, headers_end - max(timing.get("sendEnd", 0), 0)), 3),
        "receive": round(max(0.0, total - base - headers_end), 3),
        "ssl": span("sslStart", "sslEnd"),
    }


def _headers(headers: dict) -> list[dict]:
    # Chromium joins repeated headers (Set-Cookie) with newlines: HAR lists each
    return [
        {"name": name, "value": value}
        for name, joined in headers.items()
        for value in str(joined).split("\n")
    ]


def _header(headers: dict, name: str) -> str | None:
    return next((str(v) for k, v in headers.items() if k.lower() == name), None)


def _sent_cookies(header: str, sent: dict | None) -> list[dict]:
    """The Cookie header's pairs, with the attributes of the stored cookie each one was."""
    stored = {(c.get("name"), c.get("value")): c for c in (sent or {}).get("cookies", ())}
    cookies = []
    for part in header.split(";"):
        name, equals, value = part.strip().partition("=")
        if not equals:
            continue
        cookie = {"name": name, "value": value}
        found = stored.get((name, value))
        if found is not None:
            cookie.update(path=found.get("path", "/"), domain=found.get("domain", ""))
            if (found.get("expires") or -1) > 0:
                cookie["expires"] = _iso(found["expires"])
            cookie.update(httpOnly=bool(found.get("httpOnly")), secure=bool(found.get("secure")))
        cookies.append(cookie)
    return cookies


def _set_cookies(headers: dict, ex: Exchange) -> list[dict]:
    """Each Set-Cookie line as a HAR cookie; one Chromium did not store says why."""
    blocked = (ex.received or {}).get("blocked", {})
    lines = (
        line
        for name, v in headers.items()
        if name.lower() == "set-cookie"
        for line in str(v).split("\n")
    )
    cookies = []
    for line in lines:
        cookie = _set_cookie(line, ex.wall)
        if cookie is None:
            continue
        if line in blocked:
            cookie["comment"] = "not stored: " + ", ".join(blocked[line])
        cookies.append(cookie)
    return cookies


def _set_cookie(line: str, wall: float) -> dict | None:
    """name=value; Attr=..., as HAR 1.2 writes a cookie (RFC 6265's attributes)."""
    pair, *attributes = line.split(";")
    name, equals, value = pair.strip().partition("=")
    if not equals or not name:
        return None
    cookie = {"name": name, "value": value.strip()}
    for attribute in attributes:
        key, _, given = attribute.strip().partition("=")
        key = key.lower()
        if key in ("path", "domain"):
            cookie[key] = given
        elif key in ("httponly", "secure"):
            cookie["httpOnly" if key == "httponly" else "secure"] = True
        elif key == "max-age" and given.lstrip("-").isdigit():
            # Max-Age wins over Expires; 0 or less is "now"; browsers cap it at 400 days
            # (RFC 6265bis)
            cookie["expires"] = _iso(wall + min(max(int(given), 0), MAX_COOKIE_AGE))
        elif key == "expires" and "expires" not in cookie:
            cookie.update(_http_date(given))
    return cookie


def _http_date(text: str) -> dict:
    try:
        return {"expires": _iso(email.utils.parsedate_to_datetime(text).timestamp())}
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return {}


def _http_version(protocol: str | None) -> str:
    known = {"http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", "h2": "HTTP/2", "h3": "HTTP/3"}
    return known.get((protocol or "").lower(), protocol or "HTTP/1.1")


def _iso(wall: float) -> str:
    moment = datetime.datetime.fromtimestamp(wall, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
