"""The DevTools socket under a Connection. websocket-client makes the handshake (TLS, proxies,
the Origin header left out); the frames both ways are ours. The Connection needs what
websocket-client's recv() cannot give: a read bounded by a deadline, and a wait for data that
reads nothing, so whichever thread needs a reply can read it itself (connection.py). Its send
cost 15 us of CPU a message here, this one 8.

Reading is done by one thread at a time (the Connection's read role); `wait` by one thread only
(the Connection's watcher); `send`, `interrupt` and `close` by any thread."""

from __future__ import annotations

import os
import select
import socket
import threading
import time

from clawd.deadline import remaining

CHUNK = 256 * 1024  # one recv; big replies (screenshots) arrive in a few of these
OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


class TransportClosed(ConnectionError):
    """The peer closed the socket without a close frame."""


class WebSocketTransport:
    """websocket-client's WebSocket after its handshake; its socket is read and written here.

    websocket-client reads the handshake's answer a byte at a time, so nothing of the first
    frames is left in its buffers when this takes over the socket."""

    def __init__(self, ws):
        self._ws = ws  # websocket-client's object keeps owning the socket
        self._sock = ws.sock
        self._buffer = bytearray()
        self._chunk = bytearray(CHUNK)
        self._parts: list[bytes] = []  # a fragmented message so far
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._watch = select.poll()  # the watcher's: the socket and the wake-up pipe
        self._watch.register(self._sock.fileno(), select.POLLIN)
        self._watch.register(self._wake_r, select.POLLIN)
        self._incoming = select.poll()  # the read role's: the socket alone
        self._incoming.register(self._sock.fileno(), select.POLLIN)
        self._tls_pending = getattr(self._sock, "pending", None)  # wss://: decrypted, not yet read
        self._send_lock = threading.Lock()
        self._closed = False
        self._released = False

    # -- any thread -----------------------------------------------------------------------------
    def send(self, text: str) -> None:
        self._send_frame(OP_TEXT, text.encode("utf-8"))

    def send_many(self, texts: list[str]) -> None:
        """Several messages in one write: one system call, and one wake-up of the browser's
        side, for a pipelined chain."""
        frames = b"".join(client_frame(OP_TEXT, text.encode("utf-8")) for text in texts)
        with self._send_lock:
            self._sock.sendall(frames)

    def _send_frame(self, opcode: int, payload: bytes) -> None:
        frame = client_frame(opcode, payload)
        with self._send_lock:
            self._sock.sendall(frame)

    def interrupt(self) -> None:
        """Make a `wait` in progress (or the next one) return."""
        if self._released:
            return  # the pipe's numbers may belong to another file by now
        try:
            os.write(self._wake_w, b"\0")
        except OSError:
            pass  # a wake-up is already pending

    def close(self) -> None:
        """Say goodbye and shut the socket: a read in progress ends at once. The descriptors are
        released by `release` once nobody reads."""
        if self._closed:
            return
        self._closed = True
        self._say_goodbye()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # also ends a send stuck on a full buffer
        except OSError:
            pass
        self.interrupt()

    def _say_goodbye(self) -> None:
        """A close frame (normal closure), when it can leave at once: a peer that stopped reading
        must not hold up closing (a send stuck on its full buffer holds the lock)."""
        if not self._send_lock.acquire(timeout=0.1):
            return
        try:
            self._sock.send(client_frame(OP_CLOSE, (1000).to_bytes(2, "big")), socket.MSG_DONTWAIT)
        except (OSError, ValueError):
            pass  # full, gone, or TLS (which takes no flags): no goodbye
        finally:
            self._send_lock.release()

    def release(self) -> None:
        self.close()
        self._released = True
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
        try:
            self._sock.close()
        except OSError:
            pass

    # -- the watcher ------------------------------------------------------------------------------
    def wait(self) -> None:
        """Block until data may be there to read, or `interrupt`; read nothing."""
        if self._buffer or self._ssl_pending():
            return
        events = self._watch.poll()
        if any(fd == self._wake_r for fd, _ in events):
            try:
                while os.read(self._wake_r, 64):
                    pass
            except (BlockingIOError, OSError):
                pass

    def ready(self) -> bool:
        """Is there something to read right now (the read role's holder asks)?"""
        return bool(self._buffer) or self._ssl_pending() or self._readable(0)

    # -- the read role -----------------------------------------------------------------------------
    def recv(self, timeout: float | None) -> bytes:
        """The next message's payload; b"" for a close frame. TimeoutError when no whole message
        came within `timeout` (what did come stays buffered for the next read)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            message = self._next_message()
            if message is not None:
                return message
            if not (self._ssl_pending() or self._readable(remaining(deadline))):
                raise TimeoutError("no message within the deadline")
            got = self._sock.recv_into(self._chunk)
            if not got:
                raise TransportClosed("the browser closed the socket")
            self._buffer += memoryview(self._chunk)[:got]

    def _next_message(self) -> bytes | None:
        """Take whole frames off the buffer until a message is complete (control frames are
        answered on the way); None when more bytes are needed."""
        buffer = self._buffer
        while len(buffer) >= 2:
            length, start = buffer[1] & 0x7F, 2
            if length == 126:
                if len(buffer) < 4:
                    return None
                length, start = int.from_bytes(buffer[2:4], "big"), 4
            elif length == 127:
                if len(buffer) < 10:
                    return None
                length, start = int.from_bytes(buffer[2:10], "big"), 10
            if buffer[1] & 0x80:
                raise TransportClosed("the browser sent a masked frame (RFC 6455 forbids it)")
            end = start + length
            if len(buffer) < end:
                return None
            fin, opcode = buffer[0] & 0x80, buffer[0] & 0x0F
            with memoryview(buffer) as view:
                payload = bytes(view[start:end])
            del buffer[:end]
            if opcode == OP_CLOSE:
                return b""
            if opcode == OP_PING:
                self._send_frame(OP_PONG, payload)
                continue
            if opcode == OP_PONG:
                continue
            if not fin:
                self._parts.append(payload)
                continue
            if self._parts:
                payload, self._parts = b"".join(self._parts) + payload, []
            return payload
        return None

    def _ssl_pending(self) -> bool:
        return bool(self._tls_pending and self._tls_pending())

    def _readable(self, timeout: float | None) -> bool:
        """(The read role held: one thread at a time polls this.)"""
        return bool(self._incoming.poll(None if timeout is None else timeout * 1000))


def client_frame(opcode: int, payload: bytes) -> bytes:
    """One final frame as a client must send it: masked with a random key (RFC 6455 §5.3)."""
    n = len(payload)
    if n < 126:
        header = bytes((0x80 | opcode, 0x80 | n))
    elif n < 1 << 16:
        header = bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
    else:
        header = bytes((0x80 | opcode, 0x80 | 127)) + n.to_bytes(8, "big")
    key = os.urandom(4)
    if not n:
        return header + key
    keystream = (key * (n // 4 + 1))[:n]
    masked = (int.from_bytes(payload, "little") ^ int.from_bytes(keystream, "little")).to_bytes(
        n, "little"
    )
    return header + key + masked
