"""Reading a DevTools IO stream (a PDF, a trace) to a file chunk by chunk, so nothing large is
ever held whole in memory."""

from __future__ import annotations

import base64
from typing import BinaryIO

from clawd.cdp.session import Session

CHUNK = 1 << 20


def copy_stream(
    session: Session,
    handle: str,
    sink: BinaryIO,
    *,
    chunk_size: int = CHUNK,
    timeout: float | None = None,
) -> int:
    """Write the stream behind `handle` into `sink` and close the stream; returns the byte count."""
    size = 0
    try:
        while True:
            chunk = session.call("IO.read", {"handle": handle, "size": chunk_size}, timeout=timeout)
            data = chunk.get("data", "")
            piece = base64.b64decode(data) if chunk.get("base64Encoded") else data.encode("utf-8")
            sink.write(piece)
            size += len(piece)
            if chunk.get("eof"):
                return size
    finally:
        session.try_call("IO.close", {"handle": handle})
