"""A remote profile whose cdpUrl carries HTTP Basic userinfo (`http://user:pass@host:port`), as a
DevTools endpoint behind an authenticating proxy wants it: the credentials go on the discovery
request and on the websocket upgrade, and never into a status or an error."""

from __future__ import annotations

import base64
import select
import socket
import threading
import urllib.parse

import pytest

from clawd import errors
from tests.support.browser import BareChromium, require_chromium

USER, PASSWORD = "agent", "p@ss:word"


class BasicAuthProxy:
    """Plain TCP in front of a Chromium: the first request of each connection must carry
    `Authorization: Basic` for USER:PASSWORD (else 401 and close); it is recorded, then bytes flow
    both ways. One request a connection is all discovery and the websocket upgrade make."""

    def __init__(self, target_port: int):
        self.expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target_port = target_port
        self.seen: list[tuple[str, bool]] = []  # (request line, authorized)
        threading.Thread(target=self._accept, name="auth-proxy", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = client.recv(65536)
            if not chunk:
                client.close()
                return
            head += chunk
        lines = head.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
        authorization = next(
            (
                line.split(":", 1)[1].strip()
                for line in lines[1:]
                if line.lower().startswith("authorization:")
            ),
            None,
        )
        authorized = authorization == self.expected
        self.seen.append((lines[0], authorized))
        if not authorized:
            client.sendall(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic\r\nContent-Length: 0\r\n"
                b"Connection: close\r\n\r\n"
            )
            client.close()
            return
        upstream = socket.create_connection(("127.0.0.1", self.target_port))
        upstream.sendall(head)
        _pump(client, upstream)

    def upgrades(self) -> list[tuple[str, bool]]:
        return [seen for seen in self.seen if "/devtools/" in seen[0]]

    def close(self) -> None:
        self.listener.close()


def _pump(a: socket.socket, b: socket.socket) -> None:
    try:
        while True:
            for sock in select.select([a, b], [], [])[0]:
                data = sock.recv(65536)
                if not data:
                    return
                (b if sock is a else a).sendall(data)
    except OSError:
        pass
    finally:
        a.close()
        b.close()


@pytest.fixture(scope="module")
def proxy(tmp_path_factory):
    require_chromium()
    chromium = BareChromium(tmp_path_factory.mktemp("auth-chromium"))
    running = BasicAuthProxy(chromium.port)
    running.chromium = chromium
    yield running
    running.close()
    chromium.close()


def _userinfo() -> str:
    return f"{urllib.parse.quote(USER, safe='')}:{urllib.parse.quote(PASSWORD, safe='')}@"


def _shapes(proxy) -> dict:
    path = urllib.parse.urlsplit(proxy.chromium.ws_url).path
    return {
        "http": f"http://{_userinfo()}127.0.0.1:{proxy.port}",
        "devtools": f"ws://{_userinfo()}127.0.0.1:{proxy.port}{path}",
    }


@pytest.mark.parametrize("shape", ["http", "devtools"])
def test_basic_userinfo_is_sent_on_the_websocket_upgrade(client, site, proxy, shape):
    name = f"basic-{shape}"
    client.create_profile(name, cdp_url=_shapes(proxy)[shape])
    before = len(proxy.upgrades())
    try:
        opened = client.open(site.url("/index.html"), profile=name)
        assert opened["title"] == "clawd test site"
        upgrades = proxy.upgrades()[before:]
        assert upgrades and all(authorized for _, authorized in upgrades), upgrades
        status = client.status(profile=name)
        assert PASSWORD not in str(status) and urllib.parse.quote(PASSWORD, safe="") not in str(
            status
        )
    finally:
        client.delete_profile(name)


def test_wrong_userinfo_is_refused_and_not_echoed(client, proxy):
    url = _shapes(proxy)["devtools"].replace(urllib.parse.quote(PASSWORD, safe=""), "wrong-secret")
    client.create_profile("basic-wrong", cdp_url=url)
    try:
        with pytest.raises(errors.ClawdError) as caught:
            client.start(profile="basic-wrong")
        assert caught.value.http_status >= 400 and "wrong-secret" not in caught.value.message
    finally:
        client.delete_profile("basic-wrong")
