"""A real `python -m clawd serve` subprocess with its own $CLAWD_HOME, config file, log file and
a notify socket standing in for systemd's."""

from __future__ import annotations

import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time

import yaml

from clawd.client import Client
from clawd.config.loader import config_to_dict


class NotifySocket:
    """An AF_UNIX datagram socket like the one systemd passes in $NOTIFY_SOCKET."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(
            prefix="clawd-notify-", dir="/tmp"
        )  # short: sun_path is 108 bytes
        self.path = os.path.join(self.dir, "notify")
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(self.path)
        self.received: list[str] = []

    def wait_for(self, line: str, timeout: float = 15.0) -> list[str]:
        """Every message up to and including the first one carrying `line`."""
        deadline = time.monotonic() + timeout
        seen = []
        while time.monotonic() < deadline:
            self.sock.settimeout(max(deadline - time.monotonic(), 0.01))
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                break
            self.received.append(message)
            seen.append(message)
            if line in message.splitlines():
                return seen
        raise AssertionError(f"no {line!r} on the notify socket within {timeout} s; got {seen}")

    def close(self) -> None:
        self.sock.close()
        for path in (self.path, self.dir):
            try:
                os.remove(path) if path == self.path else os.rmdir(path)
            except OSError:
                pass


def write_config(path: pathlib.Path, config, *, edit=None) -> dict:
    data = config_to_dict(config, mask_secrets=False)
    if edit:
        edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return data


class ServeProcess:
    def __init__(
        self,
        tmp: pathlib.Path,
        config,
        *,
        extra_args=(),
        prefix=(),
        ready_timeout: float = 15.0,
        edit=None,
    ):
        """`prefix` goes before the interpreter on the command line (bench/instructions.py runs
        the service under valgrind, which needs minutes, not seconds, to be ready); `edit`
        changes the config's data before it is written."""
        self.tmp, self.config = tmp, config
        self.home = config.home
        self.config_path = tmp / "clawd.yaml"
        self.log_path = tmp / "clawd.log"
        write_config(self.config_path, config, edit=edit)
        self.notify = NotifySocket()
        env = {
            **os.environ,
            "CLAWD_HOME": str(self.home),
            "NOTIFY_SOCKET": self.notify.path,
            "PYTHONUNBUFFERED": "1",
        }
        for variable in ("CLAWD_CONFIG", "CLAWD_TOKEN", "CLAWD_PASSWORD", "JOURNAL_STREAM"):
            env.pop(variable, None)
        cmd = [
            *prefix,
            sys.executable,
            "-m",
            "clawd",
            "--config",
            str(self.config_path),
            "serve",
            "--log-file",
            str(self.log_path),
            "--log-level",
            "debug",
            *extra_args,
        ]
        self.stderr_path = tmp / "serve.stderr"
        with open(self.stderr_path, "wb") as err:
            self.proc = subprocess.Popen(
                cmd, env=env, stdout=subprocess.DEVNULL, stderr=err, start_new_session=True
            )
        self.notify.wait_for("READY=1", timeout=ready_timeout)
        self.url = f"http://127.0.0.1:{config.server.port}"

    def client(self, **kw) -> Client:
        return Client(self.url, home=self.home, **kw)

    def signal(self, signum: int) -> None:
        os.kill(self.proc.pid, signum)

    def log_text(self, path: pathlib.Path | None = None) -> str:
        path = path or self.log_path
        return path.read_text(encoding="utf-8") if path.exists() else ""

    def wait_for_log(
        self, text: str, timeout: float = 10.0, path: pathlib.Path | None = None
    ) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            content = self.log_text(path)
            if text in content:
                return content
            time.sleep(0.05)
        raise AssertionError(f"{text!r} not logged within {timeout} s; log:\n{self.log_text(path)}")

    def close(self) -> None:
        if self.proc.poll() is None:
            self.signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(5)
        self.notify.close()
