"""DNS pinning for the browser: a forward proxy on loopback that a managed Chromium must use (strict
mode's, for the whole browser; web_fetch's render, one for each render's browser context). Each
request's host is resolved once, every address judged by the navigation policy, and the
connection made to an address that was judged, so a name that answers differently the second
time (DNS rebinding) never reaches a private address. Chromium itself resolves nothing."""

from __future__ import annotations

import logging
import select
import socket
import socketserver
import threading
import urllib.parse
from collections.abc import Callable

from clawd import errors
from clawd import log as clawd_log

log = logging.getLogger("clawd.security")

HEAD_LIMIT = 64 * 1024
BODY_CHUNK = 64 * 1024
CONNECT_TIMEOUT = 10.0
IDLE_TIMEOUT = 120.0
HOP_HEADERS = {"proxy-connection", "proxy-authorization", "connection", "keep-alive"}
CONNECTION_THREAD = "pinning-proxy-connection"  # the name of each connection's thread
# Chromium sends localhost, loopback and link-local addresses around any proxy unless told
# otherwise: <-loopback> takes those implicit rules away, so they are judged like any other
NO_BYPASS = "<-loopback>"

# what a refusal was: (the request's method, its target as the browser wrote it, the error)
Refused = Callable[[str, str, Exception], None]


class PinningProxy(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(
        self,
        policy,
        host: str = "127.0.0.1",
        port: int = 0,
        *,
        on_refused: Refused | None = None,
    ):
        self.policy = policy
        self.blocked = 0
        self.on_refused = on_refused  # told of every request the proxy did not carry, and why
        super().__init__((host, port), _ProxyHandler)
        self._thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="pinning-proxy",
            daemon=True,
        )

    def handle_error(self, request, client_address) -> None:
        clawd_log.connection_error(log, client_address)

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def start(self) -> PinningProxy:
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._thread.is_alive():  # shutdown() of a loop that never ran would wait forever
            self.shutdown()
        self.server_close()

    def stop_soon(self) -> None:
        """stop() off the caller's path: shutting down waits for the accept loop's next poll (up
        to 0.2 s), which nobody needs to wait for once no browser uses the proxy any more."""
        threading.Thread(target=self.stop, name="pinning-proxy-stop", daemon=True).start()

    def chromium_args(self) -> list[str]:
        """A browser all of whose traffic comes here (WebRTC's UDP, which passes any HTTP proxy
        by, is kept to the proxy by a profile preference: browser/decorate.py)."""
        return [f"--proxy-server={self.url}", f"--proxy-bypass-list={NO_BYPASS}"]

    def context_params(self) -> dict:
        """Target.createBrowserContext's proxy settings: that context's requests all come here."""
        return {"proxyServer": self.url, "proxyBypassList": NO_BYPASS}

    def refused(self, method: str, target: str, exc: Exception) -> None:
        if self.on_refused is not None:
            self.on_refused(method, target, exc)

    def connect(self, host: str, port: int) -> socket.socket:
        """Resolve once, judge every address, connect to a judged one. Raises the policy's error."""
        addresses = self.policy.resolve_checked(host)
        last: OSError | None = None
        for address in addresses:
            try:
                return socket.create_connection((address, port), timeout=CONNECT_TIMEOUT)
            except OSError as exc:
                last = exc
        raise ConnectionError(f"cannot connect to {host}:{port}: {last}")


class _ProxyHandler(socketserver.BaseRequestHandler):
    def setup(self) -> None:
        threading.current_thread().name = CONNECTION_THREAD  # says whose thread in a dump

    def handle(self) -> None:
        client = self.request
        client.settimeout(IDLE_TIMEOUT)
        head, rest = _read_head(client)
        if head is None:
            return
        request_line, _, header_block = head.partition("\r\n")
        parts = request_line.split(" ")
        if len(parts) != 3:
            return _answer(client, 400, "bad request line")
        method, target, version = parts
        try:
            if method.upper() == "CONNECT":
                self._tunnel(client, target, rest)
            else:
                self._forward(client, method, target, version, header_block, rest)
        except (errors.NavigationBlocked, errors.InvalidRequest) as exc:
            self.server.blocked += 1
            log.warning("pinning proxy blocked %s %s: %s", method, _shown(target), exc.message)
            self.server.refused(method, target, exc)
            _answer(client, 403, "blocked by clawd's navigation policy")
        except errors.HostUnresolved as exc:
            self.server.refused(method, target, exc)
            _answer(client, 502, "host does not resolve")
        except (ConnectionError, OSError) as exc:
            log.info("proxy: %s %s failed: %s", method, _shown(target), exc)
            self.server.refused(method, target, exc)
            _answer(client, 502, "upstream unreachable")

    def _tunnel(self, client: socket.socket, target: str, rest: bytes) -> None:
        host, port = _split_host_port(target, 443)
        upstream = self.server.connect(host, port)
        with upstream:
            client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            if rest:
                upstream.sendall(rest)
            _pipe(client, upstream)

    def _forward(self, client, method, target, version, header_block, rest) -> None:
        url = urllib.parse.urlsplit(target)
        if url.scheme not in ("http", "ws") or not url.hostname:
            raise errors.InvalidRequest("the proxy takes absolute http URLs only")
        self.server.policy.check(target if url.scheme == "http" else "http" + target[2:])
        headers = [
            h
            for h in header_block.split("\r\n")
            if h and h.split(":", 1)[0].strip().lower() not in HOP_HEADERS
        ]
        length = _body_length(headers)
        upstream = self.server.connect(url.hostname, url.port or 80)
        path = urllib.parse.urlunsplit(("", "", url.path or "/", url.query, ""))
        # one request per connection, said on both sides: the next request is judged afresh, and
        # the browser never sends it into a connection we are about to drop
        head = (
            f"{method} {path} {version}\r\n"
            + "\r\n".join(headers + ["Connection: close"])
            + "\r\n\r\n"
        )
        with upstream:
            upstream.sendall(head.encode("latin-1") + rest)
            if length is None:  # a streamed (chunked) body: relay both ways as they come
                _pipe(client, upstream)
                return
            _copy_body(client, upstream, length - len(rest))
            answer_head, answer_rest = _read_head(upstream)
            if answer_head is None:
                return _answer(client, 502, "upstream closed without an answer")
            client.sendall(_closing(answer_head) + answer_rest)
            _pipe(client, upstream)


def _body_length(headers: list[str]) -> int | None:
    """The request body's declared length (None when it is chunked)."""
    fields = {
        h.split(":", 1)[0].strip().lower(): h.split(":", 1)[1].strip() for h in headers if ":" in h
    }
    if "chunked" in fields.get("transfer-encoding", "").lower():
        return None
    try:
        return int(fields.get("content-length", "0"))
    except ValueError:
        raise errors.InvalidRequest("bad Content-Length") from None


def _copy_body(client: socket.socket, upstream: socket.socket, remaining: int) -> None:
    """The rest of a declared body, passed on as it comes: never held whole (a page's 48 MB
    POST was read into one growing bytes object, quadratic, before the upstream was dialled)."""
    while remaining > 0:
        chunk = client.recv(min(BODY_CHUNK, remaining))
        if not chunk:
            return
        upstream.sendall(chunk)
        remaining -= len(chunk)


def _closing(head: str) -> bytes:
    """The upstream's answer head with its connection headers replaced by `close`."""
    lines = [
        line
        for line in head.split("\r\n")
        if line.split(":", 1)[0].strip().lower() not in HOP_HEADERS
    ]
    return (
        "\r\n".join(lines + ["Connection: close", "Proxy-Connection: close"]) + "\r\n\r\n"
    ).encode("latin-1")


def _read_head(sock: socket.socket) -> tuple[str | None, bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        try:
            chunk = sock.recv(8192)
        except OSError:
            return None, b""
        if not chunk or len(data) > HEAD_LIMIT:
            return None, b""
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head.decode("latin-1"), rest


def _pipe(a: socket.socket, b: socket.socket) -> None:
    """Copy both ways until either side closes or both go quiet for IDLE_TIMEOUT."""
    sockets = [a, b]
    while True:
        readable, _, broken = select.select(sockets, [], sockets, IDLE_TIMEOUT)
        if broken or not readable:
            return
        for source in readable:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                return
            try:
                (b if source is a else a).sendall(data)
            except OSError:
                return


def _split_host_port(target: str, default: int) -> tuple[str, int]:
    if target.startswith("["):
        host, _, port = target[1:].partition("]")
        port = port.lstrip(":")
    else:
        host, _, port = target.rpartition(":") if ":" in target else (target, "", "")
    if not port:
        return host, default
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise errors.InvalidRequest("bad CONNECT target")
    return host, int(port)


def _answer(sock: socket.socket, status: int, text: str) -> None:
    reason = {400: "Bad Request", 403: "Forbidden", 502: "Bad Gateway"}.get(status, "Error")
    body = text.encode()
    try:
        sock.sendall(
            f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\n"
            f"Content-Length: {len(body)}\r\n"
            f"X-Clawd-Policy: {'blocked' if status == 403 else 'error'}\r\n"
            "Connection: close\r\n\r\n".encode()
            + body
        )
    except OSError:
        pass


def _shown(target: str) -> str:
    return target if len(target) <= 120 else target[:117] + "..."
