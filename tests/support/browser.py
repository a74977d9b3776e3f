"""Finding Chromium for the tests, starting a bare one (for remote-profile tests), and the config
every browser test uses: headless, the flags this environment needs, 127.0.0.1 allowed."""

from __future__ import annotations

import contextlib
import os
import pathlib
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


def free_ports(count: int) -> list[int]:
    """`count` different free ports: every socket stays bound until all are picked (one port
    picked, closed, then another picked can be the same one; CI once drew server.port twice)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket()) for _ in range(count)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]


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
