"""Finding Chromium for the tests, starting a bare one (for remote-profile tests), and the config
every browser test uses: headless, the flags this environment needs, 127.0.0.1 allowed."""

from __future__ import annotations

import contextlib
import os
import pathlib
import random
import shutil
import socket
import subprocess
import time

import pytest
import requests

from clawd.config.loader import config_from_data

ENV_FLAGS = ["--disable-quic"]  # the rest of the flags this machine needs are clawd's defaults


# What Chromium needs on these machines (DESIGN.md §1), for every browser a test starts itself.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)


def chromium_path() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name) or (
            f"/usr/bin/{name}" if os.path.exists(f"/usr/bin/{name}") else None
        )
        if found:
            return found
    return None


def require_chromium() -> str:
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("Chromium is missing in CI: .ci/run must install it")
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    return path


def free_port() -> int:
    return free_ports(1)[0]


def _assigned_range() -> range:
    """Ports no program gets unless it asks for one by number: below the kernel's ephemeral
    range (bind to port 0 and outgoing connections draw from that range)."""
    try:
        low = int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768  # Linux's default; macOS starts at 49152
    return range(20000, max(20000 + 1000, low))


def free_ports(count: int) -> list[int]:
    """`count` different free ports for a server or Chromium a test starts later, drawn outside
    the ephemeral range: a port drawn by binding to 0 went back to the kernel's pool, and another
    bind to 0 (a test server, the service itself) could take it before Chromium did (CI once saw
    "cdpPort ... is already in use" on a restart). Every socket stays bound until all are picked."""
    ports = _assigned_range()
    with contextlib.ExitStack() as stack:
        picked: list[int] = []
        for port in random.sample(ports, min(len(ports), 200)):
            sock = socket.socket()
            try:
                sock.bind(("127.0.0.1", port))
            except OSError:  # taken, or still in TIME_WAIT
                sock.close()
                continue
            stack.enter_context(sock)
            picked.append(port)
            if len(picked) == count:
                return picked
    raise RuntimeError(f"no {count} free ports among 200 tried in {ports}")


def service_config(home: pathlib.Path, *, cdp_port: int | None = None, extra: dict | None = None):
    server_port, free_cdp_port = free_ports(2)
    data = {
        "server": {"host": "127.0.0.1", "port": server_port},
        "browser": {
            "headless": True,
            "extraArgs": ENV_FLAGS,
            "executablePath": chromium_path(),
            "ssrfPolicy": {"allowedHostnames": ["127.0.0.1"]},
            "cdpPortRangeStart": 18850,
            "profiles": {"clawd": {"cdpPort": cdp_port or free_cdp_port, "color": "#FF4500"}},
        },
    }
    for section, values in (extra or {}).items():
        data.setdefault(section, {}).update(values)
    return config_from_data(data, env={"CLAWD_HOME": str(home)})


class BareChromium:
    """A Chromium started by a test, not by clawd: the far end of a remote profile."""

    def __init__(self, tmp: pathlib.Path, *, port: int | None = None):
        # port 0: Chromium picks one and writes DevToolsActivePort, as a user's own Chrome does
        self.port = free_port() if port is None else port
        self.user_data = tmp / "bare-chromium"
        args = [
            require_chromium(),
            f"--remote-debugging-port={self.port}",
            f"--user-data-dir={self.user_data}",
            *CHROMIUM_FLAGS,
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
        )
        self.ws_url = self._wait_ready()

    def _wait_ready(self, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.port == 0:
                self.port = self._active_port() or 0
                if not self.port:
                    time.sleep(0.1)
                    continue
            try:
                return requests.get(f"http://127.0.0.1:{self.port}/json/version", timeout=1).json()[
                    "webSocketDebuggerUrl"
                ]
            except (requests.RequestException, ValueError, KeyError):
                time.sleep(0.1)
        self.close()
        raise RuntimeError("bare Chromium did not start")

    def _active_port(self) -> int | None:
        try:
            return int((self.user_data / "DevToolsActivePort").read_text().splitlines()[0])
        except (OSError, ValueError, IndexError):
            return None

    def close(self) -> None:
        stop_process(self.proc)


def stop_process(proc: subprocess.Popen) -> None:
    """SIGTERM, and SIGKILL when it has not ended within 5 s."""
    proc.terminate()
    try:
        proc.wait(5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(5)
