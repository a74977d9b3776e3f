"""The relay before a connection proves the token: a small message limit (a frame announcing
more is refused from its header, unread), the full limit after the hello or on the DevTools
secret path, and a cap on connections not proven yet that leaves a proven extension working.
A real relay on port 0 and raw websocket clients; no browser."""

from __future__ import annotations

import json
import os
import time

import pytest
import websocket

from clawd.relay import package
from clawd.relay.server import RelayServer

TOKEN = "L" * 40
ORIGIN = package.origin()
CAP = 3


class Clients:
    """Raw websocket clients of one relay, shut when the test ends."""

    def __init__(self, relay: RelayServer):
        self.relay = relay
        self.opened: list[websocket.WebSocket] = []

    def connect(self, path: str = "/extension") -> websocket.WebSocket:
        # the extension's Origin on its path; none on the DevTools one, as clawd's own client
        origin = {"origin": ORIGIN} if path == "/extension" else {"suppress_origin": True}
        url = f"ws://127.0.0.1:{self.relay.port}{path}"
        ws = websocket.create_connection(url, timeout=5, **origin)
        self.opened.append(ws)
        return ws

    def hello(self) -> websocket.WebSocket:
        ws = self.connect()
        ws.send(json.dumps({"type": "hello", "token": TOKEN, "version": "t", "tabs": []}))
        assert json.loads(ws.recv()) == {"type": "welcome"}
        return ws

    def admitted(self) -> bool:
        try:
            self.connect()
        except (websocket.WebSocketException, OSError):
            return False
        return True

    def close(self) -> None:
        for ws in self.opened:
            ws.shutdown()  # the socket closed outright: the relay's threads see the end at once


def running(**kw):
    # a hello deadline far off: what closes a connection here is the size limit or the cap
    relay = RelayServer(TOKEN, port=0, hello_timeout=30, **kw).start()
    clients = Clients(relay)
    yield clients
    clients.close()
    relay.stop()


@pytest.fixture
def clients():
    yield from running()


@pytest.fixture
def capped():
    yield from running(max_unproven=CAP)


def close_code(ws: websocket.WebSocket) -> int:
    opcode, data = ws.recv_data(control_frame=True)
    assert opcode == websocket.ABNF.OPCODE_CLOSE, (opcode, data[:80])
    return int.from_bytes(data[:2], "big")


def server_hung_up(ws: websocket.WebSocket) -> bool:
    """After its close frame the relay ended its side of the TCP connection (what it still reads
    it discards, websockets' way)."""
    try:
        return ws.sock.recv(1) == b""
    except ConnectionResetError:
        return True


# -- the size limit before the hello ---------------------------------------------------------------
def test_a_frame_announcing_256_mib_before_the_hello_is_closed_with_1009_from_its_header(clients):
    """Only the header is sent: the relay answers 1009 and ends the connection without waiting
    for (and buffering) the 256 MiB the header announces."""
    ws = clients.connect()
    header = bytes([0x81, 0x80 | 127]) + (256 * 2**20).to_bytes(8, "big") + os.urandom(4)
    ws.sock.sendall(header)
    assert close_code(ws) == 1009
    assert server_hung_up(ws)
    assert not clients.relay.connected
    clients.hello()  # the relay itself carries on
    assert clients.relay.connected


def test_fragments_adding_up_past_the_limit_before_the_hello_are_closed_with_1009(clients):
    ws = clients.connect()
    piece = "x" * (40 * 1024)  # each fragment is small; together they are over 64 KiB
    ws.send_frame(websocket.ABNF.create_frame(piece, websocket.ABNF.OPCODE_TEXT, fin=0))
    ws.send_frame(websocket.ABNF.create_frame(piece, websocket.ABNF.OPCODE_CONT, fin=0))
    assert close_code(ws) == 1009
    assert server_hung_up(ws)


def test_a_hello_with_twenty_long_shared_tabs_is_within_the_limit(clients):
    ws = clients.connect()
    url = "https://a.example/" + "p" * 1500
    tabs = [{"tabId": i, "targetId": f"T{i}", "url": url, "title": "t" * 200} for i in range(20)]
    ws.send(json.dumps({"type": "hello", "token": TOKEN, "version": "t", "tabs": tabs}))
    assert json.loads(ws.recv()) == {"type": "welcome"}
    assert len(clients.relay.shared_tabs()) == 20


# -- the full limit once proven --------------------------------------------------------------------
def test_after_the_hello_the_extension_may_send_messages_of_the_full_size(clients):
    ws = clients.hello()
    title = "t" * (512 * 1024)  # 8 times the limit before the hello
    ws.send(json.dumps({"type": "attached", "tab": {"tabId": 4, "targetId": "T4", "title": title}}))
    wait_for(clients.relay.shared_tabs, "the big attached message read")
    assert clients.relay.shared_tabs()[0].title == title


def test_the_devtools_secret_path_may_send_messages_of_the_full_size(clients):
    clients.hello()
    cdp = clients.connect(f"/devtools/browser/{clients.relay.secret}")
    cdp.send(json.dumps({"id": 1, "method": "Browser.getVersion", "params": {"pad": "p" * 300000}}))
    assert json.loads(cdp.recv())["id"] == 1


# -- the cap on connections not proven -------------------------------------------------------------
def test_connections_past_the_cap_are_refused_while_a_proven_extension_works(capped):
    extension = capped.hello()
    idle = [capped.connect() for _ in range(CAP)]  # handshaken, silent: no hello
    assert not capped.admitted()
    with pytest.raises((websocket.WebSocketException, OSError)):
        capped.connect(f"/devtools/browser/{capped.relay.secret}")  # the path is not a way round
    extension.send(json.dumps({"type": "ping"}))
    assert json.loads(extension.recv()) == {"type": "pong"}
    assert capped.relay.connected
    idle[0].shutdown()  # one leaves: its place is free again
    wait_for(capped.admitted, "a connection admitted after one left")


def wait_for(check, what: str, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError(f"{what}: not within {timeout:g} s")
