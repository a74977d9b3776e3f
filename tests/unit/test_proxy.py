"""The pinning proxy of strict mode, with a fake policy and local upstream servers."""

from __future__ import annotations

import socket
import threading
import time

import pytest

from clawd import errors
from clawd.security.proxy import PinningProxy


class FakePolicy:
    """rebind.test answers 127.0.0.1 once and a blocked verdict after: a rebinding name."""

    def __init__(self):
        self.resolutions = []
        self.checked = []

    def resolve_checked(self, host):
        self.resolutions.append(host)
        if host == "blocked.test":
            raise errors.NavigationBlocked("navigation to blocked.test blocked")
        if host == "rebind.test" and self.resolutions.count("rebind.test") > 1:
            raise errors.NavigationBlocked("rebound")
        return ["127.0.0.1"]

    def check(self, url):
        self.checked.append(url)
        if "blocked.test" in url:
            raise errors.NavigationBlocked("blocked")
        return url


@pytest.fixture
def upstream():
    """A tiny HTTP server on 127.0.0.1 that echoes the request line it got."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    seen = []

    def serve():
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(4096)
                    if not chunk:
                        break
                    data += chunk
                line = data.split(b"\r\n", 1)[0]
                seen.append(data.decode("latin-1"))
                conn.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s"
                    % (len(line), line)
                )

    threading.Thread(target=serve, daemon=True).start()
    yield server.getsockname()[1], seen
    server.close()


@pytest.fixture
def proxy():
    p = PinningProxy(FakePolicy()).start()
    yield p
    p.stop()


def _ask(proxy, raw: bytes) -> bytes:
    with socket.create_connection(proxy.server_address, timeout=5) as sock:
        sock.sendall(raw)
        out = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                return out
            out += chunk


def test_forwards_absolute_urls_to_the_pinned_address(proxy, upstream):
    port, seen = upstream
    answer = _ask(
        proxy,
        f"GET http://rebind.test:{port}/a?b=1 HTTP/1.1\r\nHost: rebind.test:{port}\r\n"
        f"Proxy-Connection: keep-alive\r\n\r\n".encode(),
    )
    assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b"GET /a?b=1 HTTP/1.1")
    assert proxy.policy.resolutions == ["rebind.test"]  # resolved once, by us
    assert "Proxy-Connection" not in seen[0] and "Connection: close" in seen[0]


def test_a_rebinding_name_is_judged_afresh_on_each_request(proxy, upstream):
    port, _ = upstream
    first = _ask(proxy, f"GET http://rebind.test:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    second = _ask(proxy, f"GET http://rebind.test:{port}/ HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    assert first.startswith(b"HTTP/1.1 200") and second.startswith(b"HTTP/1.1 403")
    assert proxy.blocked == 1


def test_connect_tunnels_to_the_pinned_address(proxy, upstream):
    port, _ = upstream
    with socket.create_connection(proxy.server_address, timeout=5) as sock:
        sock.sendall(
            f"CONNECT rebind.test:{port} HTTP/1.1\r\nHost: rebind.test:{port}\r\n\r\n".encode()
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 200 Connection Established")
        sock.sendall(b"GET /tunnelled HTTP/1.1\r\nHost: x\r\n\r\n")
        assert b"GET /tunnelled" in sock.recv(4096)


@pytest.mark.parametrize(
    "raw",
    [
        b"CONNECT blocked.test:443 HTTP/1.1\r\n\r\n",
        b"GET http://blocked.test/ HTTP/1.1\r\nHost: blocked.test\r\n\r\n",
    ],
)
def test_blocked_hosts_get_403_and_no_connection(proxy, raw):
    assert _ask(proxy, raw).startswith(b"HTTP/1.1 403")


@pytest.mark.parametrize(
    "raw",
    [
        b"GARBAGE\r\n\r\n",
        b"GET /relative HTTP/1.1\r\n\r\n",
        b"CONNECT nohost:99999 HTTP/1.1\r\n\r\n",
        b"GET ftp://x/ HTTP/1.1\r\n\r\n",
    ],
)
def test_malformed_requests_are_refused(proxy, raw):
    assert _ask(proxy, raw).startswith((b"HTTP/1.1 400", b"HTTP/1.1 403"))


def test_chromium_is_told_to_send_loopback_through_it_too(proxy):
    assert proxy.chromium_args() == [
        f"--proxy-server={proxy.url}",
        "--proxy-bypass-list=<-loopback>",
    ]


def test_a_request_body_is_passed_on_as_it_comes_never_held_whole(proxy, upstream):
    """A page's POST announcing 64 MB: the upstream is dialled and gets the head at once; the
    proxy used to read the whole body into memory first (quadratically) and only then connect."""
    port, seen = upstream
    head = b"POST http://site.test:%d/upload HTTP/1.1\r\nHost: site.test\r\nContent-Length: %d\r\n"
    with socket.create_connection(proxy.server_address, timeout=5) as sock:
        sock.sendall(head % (port, 64 * 1024 * 1024) + b"\r\n" + b"x" * 1024)
        deadline = time.monotonic() + 5
        while not seen:
            assert time.monotonic() < deadline, "the upstream never saw the request"
            time.sleep(0.01)
    assert seen[0].startswith("POST /upload HTTP/1.1")
