"""Websocket frames as the browser's end of a socket pair writes and reads them (RFC 6455 §5)."""

from __future__ import annotations

WAIT = 5.0


def server_frame(payload: bytes, opcode: int = 0x1, fin: bool = True) -> bytes:
    """One unmasked frame as a server writes it (RFC 6455 §5.2)."""
    first = (0x80 if fin else 0) | opcode
    n = len(payload)
    if n < 126:
        return bytes([first, n]) + payload
    if n < 1 << 16:
        return bytes([first, 126]) + n.to_bytes(2, "big") + payload
    return bytes([first, 127]) + n.to_bytes(8, "big") + payload


def read_client_frame(sock, timeout: float = WAIT) -> tuple[int, bytes]:
    """(opcode, unmasked payload) of the next frame a client wrote; AssertionError if unmasked."""
    sock.settimeout(timeout)

    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            assert chunk, "the client closed the socket mid-frame"
            data += chunk
        return data

    first, second = exactly(2)
    assert first & 0x80, "every frame clawd sends is final"
    assert second & 0x80, "a client frame must be masked"
    n = second & 0x7F
    if n == 126:
        n = int.from_bytes(exactly(2), "big")
    elif n == 127:
        n = int.from_bytes(exactly(8), "big")
    key = exactly(4)
    masked = exactly(n)
    return first & 0x0F, bytes(b ^ key[i % 4] for i, b in enumerate(masked))
