"""The DevTools connection over wss://, as hosted browser pools serve it: a TLS proxy in front of
a Chromium started by the test, and clawd's Connection through it. Calls, events while nobody
calls, a reply of many TLS records, calls from several threads while the socket is read, and a
certificate that is not trusted."""

from __future__ import annotations

import pathlib
import select
import socket
import ssl
import threading

import pytest

from clawd import errors
from clawd.cdp.connection import Connection
from tests.support.browser import BareChromium, require_chromium

TLS = pathlib.Path(__file__).resolve().parent.parent / "support" / "tls"
WAIT = 10.0


class TlsProxy:
    """TLS on 127.0.0.1 (tests/support/tls), plain bytes to a local port. One thread pumps both
    ways of a connection, so the proxy never uses its TLS socket from two threads at once."""

    def __init__(self, target_port: int):
        self.context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.context.load_cert_chain(TLS / "cert.pem", TLS / "key.pem")
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.target_port = target_port
        threading.Thread(target=self._accept, name="tls-proxy", daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                raw, _ = self.listener.accept()
            except OSError:
                return
            try:
                client = self.context.wrap_socket(raw, server_side=True)
            except (OSError, ssl.SSLError):
                raw.close()  # a client that refused our certificate
                continue
            upstream = socket.create_connection(("127.0.0.1", self.target_port))
            threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()

    def close(self) -> None:
        self.listener.close()


def _pump(client: ssl.SSLSocket, upstream: socket.socket) -> None:
    try:
        while True:
            readable = (
                [client] if client.pending() else select.select([client, upstream], [], [])[0]
            )
            for sock in readable:
                data = sock.recv(65536)
                if not data:
                    return
                (upstream if sock is client else client).sendall(data)
    except (OSError, ssl.SSLError):
        pass
    finally:
        for sock in (client, upstream):
            sock.close()


@pytest.fixture(scope="module")
def wss_url(tmp_path_factory):
    require_chromium()
    chromium = BareChromium(tmp_path_factory.mktemp("tls-chromium"))
    proxy = TlsProxy(chromium.port)
    path = chromium.ws_url.split(f":{chromium.port}", 1)[1]
    yield f"wss://127.0.0.1:{proxy.port}{path}"
    proxy.close()
    chromium.close()


@pytest.fixture
def trusted(monkeypatch):
    monkeypatch.setenv("WEBSOCKET_CLIENT_CA_BUNDLE", str(TLS / "cert.pem"))


def test_calls_events_and_a_reply_of_many_tls_records_over_wss(wss_url, trusted):
    conn = Connection(wss_url, name="wss")
    try:
        assert "Chrome" in conn.call("Browser.getVersion")["product"]
        created = threading.Event()
        conn.events.subscribe("Target.targetCreated", lambda params: created.set())
        conn.call("Target.setDiscoverTargets", {"discover": True})
        target = conn.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        assert created.wait(WAIT)
        session = conn.call("Target.attachToTarget", {"targetId": target, "flatten": True})[
            "sessionId"
        ]
        value = conn.call(
            "Runtime.evaluate",
            {"expression": "'x'.repeat(3e6) + 'end'", "returnByValue": True},
            session_id=session,
        )["result"]["value"]
        assert len(value) == 3_000_003 and value.endswith("end")  # about 180 TLS records
        conn.call("Target.closeTarget", {"targetId": target})
    finally:
        conn.close()
    assert conn.closed


def test_calls_from_several_threads_while_events_flow_over_wss(wss_url, trusted):
    conn = Connection(wss_url, name="wss-threads")
    results: dict[int, list] = {}
    failures: list[BaseException] = []

    def caller(n: int) -> None:
        try:
            results[n] = [conn.call("Browser.getVersion")["protocolVersion"] for _ in range(60)]
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            failures.append(exc)

    def churn() -> None:  # target events keep arriving while the callers call
        try:
            for _ in range(10):
                target = conn.call("Target.createTarget", {"url": "about:blank"})["targetId"]
                conn.call("Target.closeTarget", {"targetId": target})
        except BaseException as exc:  # noqa: BLE001
            failures.append(exc)

    try:
        conn.call("Target.setDiscoverTargets", {"discover": True})
        threads = [threading.Thread(target=caller, args=(n,)) for n in range(4)] + [
            threading.Thread(target=churn)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        assert not failures, failures
        assert sorted(results) == [0, 1, 2, 3]
        assert all(len(set(values)) == 1 and len(values) == 60 for values in results.values())
        assert not conn.closed
    finally:
        conn.close()


def test_an_untrusted_certificate_is_refused(wss_url, monkeypatch):
    monkeypatch.delenv("WEBSOCKET_CLIENT_CA_BUNDLE", raising=False)
    with pytest.raises(errors.CdpUnreachable, match="certificate verify failed"):
        Connection(wss_url, name="wss-untrusted", handshake_timeout=WAIT)
