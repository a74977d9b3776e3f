"""systemd's notify protocol (Type=notify): one datagram to $NOTIFY_SOCKET, no dependency."""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Mapping

log = logging.getLogger("clawd.daemon")


def sd_notify(state: str, env: Mapping[str, str] | None = None) -> bool:
    """Send `state` (e.g. "READY=1") to systemd's notify socket; False when there is none."""
    env = os.environ if env is None else env
    address = env.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]  # an abstract socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
        return True
    except OSError as exc:
        log.warning("sd_notify to %s failed: %s", env.get("NOTIFY_SOCKET"), exc)
        return False


def monotonic_usec() -> int:
    """CLOCK_MONOTONIC in microseconds, which RELOADING=1 must carry (systemd 253+)."""
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
