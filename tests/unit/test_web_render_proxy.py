"""What a render's pinning proxy adds to strict mode's: it tells its render what it refused (so a
page the proxy answered itself is reported as refused, not read as the site's), its connections
run on threads of their own name, and it winds down whether or not it ever served."""

from __future__ import annotations

import socket
import threading

from clawd import errors
from clawd.security.proxy import CONNECTION_THREAD, PinningProxy
from tests.support.page_eval import wait_until


class Policy:
    """blocked.test is refused, nowhere.test does not resolve, the rest resolves to a port
    nobody listens on; records the thread each lookup ran on."""

    def __init__(self, closed_port: int):
        self.closed_port = closed_port
        self.threads: list[str] = []

    def check(self, url: str) -> str:
        self.resolve_checked(url.split("/")[2].split(":")[0])
        return url

    def resolve_checked(self, host: str) -> list[str]:
        self.threads.append(threading.current_thread().name)
        if host == "blocked.test":
            raise errors.NavigationBlocked("navigation to blocked.test blocked")
        if host == "nowhere.test":
            raise errors.HostUnresolved("nowhere.test does not resolve")
        return ["127.0.0.1"]


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ask(proxy: PinningProxy, raw: bytes) -> bytes:
    with socket.create_connection(proxy.server_address, timeout=5) as sock:
        sock.sendall(raw)
        out = b""
        while chunk := sock.recv(4096):
            out += chunk
        return out


def test_every_refusal_is_told_with_its_method_target_and_error():
    port = _closed_port()
    told: list[tuple[str, str, type]] = []
    proxy = PinningProxy(Policy(port), on_refused=lambda m, t, e: told.append((m, t, type(e))))
    proxy.start()
    try:
        _ask(proxy, b"GET http://blocked.test/a HTTP/1.1\r\nHost: blocked.test\r\n\r\n")
        _ask(proxy, b"CONNECT nowhere.test:443 HTTP/1.1\r\n\r\n")
        _ask(proxy, f"CONNECT open.test:{port} HTTP/1.1\r\n\r\n".encode())
    finally:
        proxy.stop()
    assert told[0] == ("GET", "http://blocked.test/a", errors.NavigationBlocked)
    assert told[1] == ("CONNECT", "nowhere.test:443", errors.HostUnresolved)
    assert told[2][:2] == ("CONNECT", f"open.test:{port}") and issubclass(told[2][2], OSError)


def test_lookups_run_on_the_proxys_connection_threads():
    policy = Policy(_closed_port())
    proxy = PinningProxy(policy).start()
    try:
        _ask(proxy, b"GET http://blocked.test/ HTTP/1.1\r\nHost: blocked.test\r\n\r\n")
    finally:
        proxy.stop()
    assert policy.threads == [CONNECTION_THREAD]


def test_a_proxy_that_never_started_stops_at_once():
    proxy = PinningProxy(Policy(_closed_port()))
    stopping = threading.Thread(target=proxy.stop, daemon=True)
    stopping.start()
    stopping.join(5)
    assert not stopping.is_alive()
    assert proxy.socket.fileno() == -1


def test_stop_soon_returns_and_the_proxy_closes_after():
    proxy = PinningProxy(Policy(_closed_port())).start()
    proxy.stop_soon()
    wait_until(lambda: proxy.socket.fileno() == -1, message="the proxy's socket closed")
