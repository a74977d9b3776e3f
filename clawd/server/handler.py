"""The one request handler: parse, guard (Host, CSRF, auth), route, JSON in and out, and the
only place exceptions become HTTP statuses. No traceback ever reaches a client."""

from __future__ import annotations

import json
import logging
import re
import shutil
import socket
import threading
import time
import urllib.parse
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler

from clawd import __version__, errors
from clawd.security import tools
from clawd.server.routing import Request
from clawd.untrusted_fields import sanitized

log = logging.getLogger("clawd.server")
access_log = logging.getLogger("clawd.access")

MAX_BODY = 1 << 20
LINGER_BYTES = 8 << 20  # what we read and drop after refusing a body, at most
LINGER_SECONDS = 2.0
MAX_HEADER_LINE = 65536
MAX_HEADERS = 100
_VERSION = re.compile(r"HTTP/(\d{1,10})\.(\d{1,10})")


class FileResponse:
    """An endpoint returns this to stream a file instead of JSON."""

    def __init__(self, path, content_type: str):
        self.path = path
        self.content_type = content_type


class Handler(BaseHTTPRequestHandler):
    """One connection's requests, each answered exactly once: by its endpoint, or by the server
    giving up on it (`answer_instead`, at shutdown). Its server carries the service, the router,
    the requests in flight and whether it is draining (server/app.py)."""

    protocol_version = "HTTP/1.1"  # keep-alive: a client reuses its connection
    server_version = f"clawd/{__version__}"

    # The request line and headers are read here, not by http.server: its parser goes through
    # the email package, the largest part of a request's CPU in a profile of GET /tabs (30 us
    # to parse and read a request's headers there, 7 us here).
    def parse_request(self) -> bool:
        self._answered = False
        self.command = None
        self.request_version = self.default_request_version
        self.close_connection = True
        self.requestline = str(self.raw_requestline, "iso-8859-1").rstrip("\r\n")
        words = self.requestline.split()
        if not words:
            return False
        try:
            version = _VERSION.fullmatch(words[-1]) if len(words) == 3 else None
            if version is None:
                raise errors.InvalidRequest("malformed request line; send METHOD /path HTTP/1.1")
            major, minor = int(version.group(1)), int(version.group(2))
            if major >= 2:
                raise errors.InvalidRequest(f"HTTP/{major}.{minor} is not supported; send HTTP/1.1")
            self.command, self.path, self.request_version = words
            self.close_connection = (major, minor) < (1, 1)
            if self.path.startswith("//"):  # //host/x reads as a URL without scheme to clients
                self.path = "/" + self.path.lstrip("/")
            self.headers = read_headers(self.rfile)
        except errors.ClawdError as exc:
            self.close_connection = True
            self._answer(exc.http_status, exc.to_dict())
            return False
        connection = (self.headers.get("Connection") or "").lower()
        if connection == "close":
            self.close_connection = True
        elif connection == "keep-alive":
            self.close_connection = False
        if (
            self.headers.get("Expect") or ""
        ).lower() == "100-continue" and self.request_version != "HTTP/1.0":
            return self.handle_expect_100()
        return True

    def setup(self):
        super().setup()
        self._answer_lock = threading.Lock()  # the endpoint's answer against shutdown's
        self._answered = False
        # headers and body leave in one write below; without NODELAY a keep-alive client still
        # waits out the delayed ACK (about 40 ms a request here)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.local_address = self.connection.getsockname()  # where the client reached us

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def do_DELETE(self):
        self._handle("DELETE")

    def do_PUT(self):
        self._handle("PUT")

    def do_PATCH(self):
        self._handle("PATCH")

    def _handle(self, method: str) -> None:
        server = self.server
        if server.draining.is_set():
            self.close_connection = True  # answer this one, then let the client go
        key = server.in_flight.add(self)
        try:
            self._serve(method)
        finally:
            server.in_flight.remove(key)

    def _serve(self, method: str) -> None:
        started = time.perf_counter()
        service = self.server.service
        url = urllib.parse.urlsplit(self.path)
        route, params, unmatched = self._route(method, url.path)  # its body limit, before reading
        if route is not None and route.handover:  # a viewer's one-time page: its token is the key
            self._hand_over(route, method, url.path, started)
            return
        request = None
        try:
            raw = self._read_body(route.raw_limit if route and route.raw_limit else MAX_BODY)
            service.request_guard.check(method, self.headers)
            service.auth.check(self.headers)
            if unmatched is not None:  # after auth: no route names leak to a stranger
                raise unmatched
            if route.tool is not None:  # its agent tool (a browser action) may be denied
                service.tool_policy().check(route.tool)
            # a repeated parameter reads as its last value
            query = dict(urllib.parse.parse_qsl(url.query, keep_blank_values=True))
            body, raw = ({}, raw) if route.raw_limit else (_parse_json(raw), b"")
            request = Request(service, method, url.path, query, self.headers, body, params, raw)
            request.local_address = self.local_address
            request.read(route.body, body, "body")
            request.read(route.query, query, "query")
            self._check_body_tool(route, request.args)
            result = route.endpoint(request)
            status = 200
        except errors.ClawdError as exc:
            status, result = exc.http_status, sanitized(exc.to_dict())  # may quote a page
            if status >= 500:
                log.warning("%s %s: %s (%s)", method, url.path, exc.message, exc.code)
        except Exception:
            log.exception("unexpected error in %s %s", method, url.path)
            status, result = (
                500,
                {"error": "internal error; see the service log", "code": "INTERNAL"},
            )
        try:
            if self._answer(status, result) and status == errors.BodyTooLarge.http_status:
                self._linger()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        access_log.info(
            "%s %s %d %.1fms profile=%s tab=%s",
            method,
            url.path,
            status,
            (time.perf_counter() - started) * 1000,
            request.profile_used if request else "-",
            request.tab_used if request else "-",
        )

    def _check_body_tool(self, route, args: dict) -> None:
        """A route whose action is in its body (POST /tabs/action) is checked as that action."""
        name = tools.body_tool(route.method, route.pattern, args) if route.tool else None
        if name is not None:
            self.server.service.tool_policy().check(name)

    def _hand_over(self, route, method: str, path: str, started: float) -> None:
        """A handover route (routing.py): its endpoint owns the connection and writes its own
        answer, checks and all (observe_http.py: the Host guard, then the link's token)."""
        with self._answer_lock:
            self._answered = True  # a stream: shutdown must not write an answer into it
        # the path's parameters stay out of the log: an observe token is a credential until used
        shown = route.pattern.split("{", 1)[0] + "..."
        try:
            status = route.endpoint(self, method, path)
        except (BrokenPipeError, ConnectionResetError):
            status = 499
        except Exception:
            log.exception("unexpected error in %s %s", method, shown)
            status = 500
        self.close_connection = True
        access_log.info("%s %s %d %.1fms", method, shown, status, _ms(started))

    def _route(self, method: str, path: str):
        try:
            return (*self.server.router.match(method, path), None)
        except errors.ClawdError as exc:
            return None, {}, exc

    def _read_body(self, limit: int) -> bytes:
        length_header = self.headers.get("Content-Length")
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            self.close_connection = True
            raise errors.InvalidRequest(
                "chunked request bodies are not supported; send Content-Length"
            )
        if not length_header:
            return b""
        try:
            length = int(length_header)
        except ValueError:
            self.close_connection = True
            raise errors.InvalidRequest("Content-Length is not a number") from None
        if length < 0:
            self.close_connection = True
            raise errors.InvalidRequest("Content-Length is negative")
        if length > limit:
            self.close_connection = True  # do not read a body we refuse; the socket is dropped
            raise errors.BodyTooLarge(
                f"request body of {length} bytes is over the {_size(limit)} limit"
            )
        return self.rfile.read(length)

    def answer_instead(self, exc: errors.ClawdError, timeout: float = 0.5) -> bool:
        """Answer the request still running with `exc` and close the connection, unless it has
        its answer already: for a server that gives up on it (shutdown), so the client gets a
        code rather than a dropped connection. The endpoint's answer, if it comes, is dropped."""
        if not self._answer_lock.acquire(timeout=timeout):
            return False  # the endpoint is writing its answer right now
        try:
            if self._answered:
                return False
            self._answered = True
            self.close_connection = True
            self._write(exc.http_status, sanitized(exc.to_dict()))
            return True
        except OSError:
            return False
        finally:
            self._answer_lock.release()

    def _answer(self, status: int, result) -> bool:
        """Write the answer unless the request has one already; False when it had."""
        with self._answer_lock:
            if self._answered:
                return False
            self._answered = True
            self._write(status, result)
            return True

    def _write(self, status: int, result) -> None:
        if isinstance(result, FileResponse):
            self._send_file(result)
            return
        payload = json.dumps(result if result is not None else {"ok": True}).encode("utf-8")
        head = (
            f"HTTP/1.1 {status} {_reason(status)}\r\nServer: {self.server_version}\r\n"
            f"Date: {_http_date()}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
            "Cache-Control: no-store\r\n"
        )
        if self.close_connection:
            head += "Connection: close\r\n"
        retry = result.get("retryAfter") if isinstance(result, dict) else None
        if status == 503 and isinstance(retry, int):  # POOL_BUSY: the pool's wait, for any client
            head += f"Retry-After: {retry}\r\n"
        self.wfile.write((head + "\r\n").encode("latin-1") + payload)

    def _linger(self) -> None:
        """After refusing a body we did not read: closing with unread data makes the kernel
        reset the connection, and the client can lose our answer. Stop writing, read and drop
        what the client still sends (bounded), then let the connection close."""
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_WR)
            self.connection.settimeout(LINGER_SECONDS)
            drained = 0
            while drained < LINGER_BYTES:
                chunk = self.connection.recv(65536)
                if not chunk:
                    break
                drained += len(chunk)
        except OSError:
            pass

    def _send_file(self, response: FileResponse) -> None:
        with open(response.path, "rb") as source:
            size = shutil.os.fstat(source.fileno()).st_size
            self.send_response(200)
            self.send_header("Content-Type", response.content_type)
            self.send_header("Content-Length", str(size))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            shutil.copyfileobj(source, self.wfile)

    def log_message(self, format, *args):  # the access line above replaces http.server's
        pass

    def __str__(self) -> str:
        return f"{self.command} {self.path}"


class Headers:
    """Request headers by case-insensitive name; a repeated header reads as its first value
    (as http.server's did)."""

    __slots__ = ("_values",)

    def __init__(self, pairs: list[tuple[str, str]]):
        self._values: dict[str, str] = {}
        for name, value in pairs:
            self._values.setdefault(name.lower(), value)

    def get(self, name: str, default=None):
        return self._values.get(name.lower(), default)


def read_headers(rfile) -> Headers:
    """The header lines up to the blank line; at most 100, each at most 64 KiB; a folded
    (indented) line continues the previous value."""
    pairs: list[tuple[str, str]] = []
    while True:
        raw = rfile.readline(MAX_HEADER_LINE + 1)
        if len(raw) > MAX_HEADER_LINE:
            raise errors.HeadersTooLarge("a request header line is over 64 KiB")
        if raw in (b"\r\n", b"\n", b""):
            return Headers(pairs)
        line = raw.decode("iso-8859-1").rstrip("\r\n")
        if line[:1] in (" ", "\t") and pairs:
            name, value = pairs[-1]
            pairs[-1] = (name, f"{value} {line.strip()}")
            continue
        if len(pairs) >= MAX_HEADERS:
            raise errors.HeadersTooLarge(f"over {MAX_HEADERS} request headers")
        name, colon, value = line.partition(":")
        if not colon or not name or name != name.strip():
            raise errors.InvalidRequest(f"malformed request header line {line[:80]!r}")
        pairs.append((name, value.strip()))


_date = [0, ""]


def _http_date() -> str:
    """The Date header, formatted once a second."""
    now = int(time.time())
    if _date[0] != now:
        _date[:] = [now, formatdate(now, usegmt=True)]
    return _date[1]


def _ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def _size(limit: int) -> str:
    return f"{limit >> 20} MiB" if limit >= 1 << 20 else f"{limit} bytes"


def _reason(status: int) -> str:
    return BaseHTTPRequestHandler.responses.get(status, ("",))[0]


def _parse_json(raw: bytes) -> dict:
    if not raw.strip():
        return {}
    try:
        body = json.loads(raw)
    except (ValueError, UnicodeDecodeError) as exc:
        raise errors.InvalidRequest(f"request body is not valid JSON: {exc}") from None
    if not isinstance(body, dict):
        raise errors.InvalidRequest("request body must be a JSON object")
    return body
