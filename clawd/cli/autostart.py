"""Autostart: whether a command may start a local service, and starting one detached when a
loopback control URL does not answer. Used by cli/main.py and the long-lived `mcp` command."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Callable

from clawd import errors
from clawd.cli.commands import Invocation
from clawd.client import Client, ServiceUnreachable, is_loopback_url

AUTOSTART_WAIT_S = 20.0
_POLL_S = 0.2


def wanted(inv: Invocation) -> bool:
    """--autostart / --no-autostart when given, else the configuration's cli.autostart."""
    if inv.args.autostart is not None:
        return inv.args.autostart
    return inv.config.cli.autostart


def ensure_for(inv: Invocation) -> bool:
    """ensure_service on this invocation's client, launching with its arguments and config."""
    return ensure_service(inv.client, lambda: launch_service(inv))


def ensure_service(
    client: Client, launch: Callable[[], subprocess.Popen], *, wait_s: float = AUTOSTART_WAIT_S
) -> bool:
    """Start a local service when a loopback control URL does not answer; return once `GET /`
    does. True when this call started it."""
    if not is_loopback_url(client.url) or _answers(client):
        return False
    process = launch()
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if _answers(client):
            return True
        if process.poll() is not None:
            raise ServiceUnreachable(
                f"`clawd-browser serve` exited with status "
                f"{process.returncode} before answering at {client.url}"
            )
        time.sleep(_POLL_S)
    raise ServiceUnreachable(
        f"started `clawd-browser serve`, but {client.url} did not answer within {wait_s:g} s"
    )


def _answers(client: Client) -> bool:
    try:
        client.request("GET", "/", timeout=2.0)
    except ServiceUnreachable:
        return False
    except errors.ClawdError:  # 401 or a slow answer still means something listens
        return True
    return True


def launch_service(inv: Invocation) -> subprocess.Popen:
    """`clawd-browser serve` detached, on the control URL's host and port, with the same --config.

    Its output goes to $CLAWD_HOME/autostart.log: a detached service has no terminal to complain
    to."""
    parts = urllib.parse.urlsplit(inv.client.url)
    cmd = [sys.executable, "-m", "clawd"]
    if inv.args.config:
        cmd += ["--config", inv.args.config]
    cmd += ["serve", "--host", parts.hostname or "127.0.0.1", "--port", str(parts.port or 80)]
    home = inv.config.home
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    # the service's own lines go there (URLs the agent browsed): the owner's alone, as its log
    fd = os.open(home / "autostart.log", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)  # one an older clawd made wider
    with open(fd, "ab") as log:
        return subprocess.Popen(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,
            close_fds=True,
        )
