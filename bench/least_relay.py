#!/usr/bin/env python3
"""The least a Python HTTP service can do to answer an evaluate, for bench/act_latency.py's
floor: keep-alive connections read by hand, the request's JSON parsed, one Runtime.evaluate
sent on a websocket-client connection to the tab, its reply parsed and written back as JSON. No
routing, auth, page state or errors: what is left is the price of the hops themselves (two
sockets each way, the process switches among client, relay and Chromium on this machine's cores).
A thread a connection, as the service has, each doing its own CDP call: the bench's clients take
turns. Not a service: it runs until its parent ends it.

With --stdlib the same relay stands on http.server (ThreadingHTTPServer and
BaseHTTPRequestHandler, whose parser reads the request): the least a service built as clawd is
(DESIGN.md §1) can do. With --fixed, http.server answers a fixed body and calls nothing: what the
stdlib server costs by itself (bench/instructions.py).

    python bench/least_relay.py [--stdlib] WS_URL | --fixed    (prints its port, then serves)
"""

from __future__ import annotations

import json
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import count

import websocket


def serve(ws_url: str) -> None:
    ws = connect(ws_url)
    server = socket.create_server(("127.0.0.1", 0))
    print(server.getsockname()[1], flush=True)
    ids = count(1)
    while True:
        conn, _ = server.accept()
        conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        threading.Thread(target=answer, args=(conn, ws, ids), daemon=True).start()


def answer(conn: socket.socket, ws, ids) -> None:
    """One keep-alive connection's requests, until the client closes it."""
    buffer = b""
    while True:
        while b"\r\n\r\n" not in buffer:
            chunk = conn.recv(65536)
            if not chunk:
                return
            buffer += chunk
        head, _, buffer = buffer.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        while len(buffer) < length:
            buffer += conn.recv(65536)
        body, buffer = buffer[:length], buffer[length:]
        conn.sendall(response(evaluated(ws, ids, body)))


def evaluated(ws, ids, body: bytes) -> bytes:
    """The request's function run by one Runtime.evaluate; the answer's JSON."""
    call = next(ids)
    params = {"expression": f"({json.loads(body)['fn']})()", "returnByValue": True}
    ws.send(json.dumps({"id": call, "method": "Runtime.evaluate", "params": params}))
    while (reply := json.loads(ws.recv())).get("id") != call:
        pass
    return json.dumps({"ok": True, "result": reply["result"]["result"].get("value")}).encode()


def response(out: bytes) -> bytes:
    head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
    return head % len(out) + out


def serve_stdlib(answer) -> None:
    """http.server answering each POST with answer(its body)."""

    class Relay(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self):
            self.wfile.write(response(answer(self.rfile.read(int(self.headers["Content-Length"])))))

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Relay)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def connect(ws_url: str):
    return websocket.create_connection(ws_url, suppress_origin=True, skip_utf8_validation=True)


if __name__ == "__main__":
    if sys.argv[1] == "--fixed":
        serve_stdlib(lambda body: b'{"ok": true, "result": 1}')
    elif sys.argv[1] == "--stdlib":
        ws, ids = connect(sys.argv[2]), count(1)
        serve_stdlib(lambda body: evaluated(ws, ids, body))
    else:
        serve(sys.argv[1])
