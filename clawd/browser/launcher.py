"""Starting and stopping a managed Chromium: flags, readiness, stale locks, the process tree.
Only ever stops a process clawd launched."""

from __future__ import annotations

import atexit
import dataclasses
import http.client
import json
import logging
import os
import pathlib
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping

import psutil

from clawd import errors

log = logging.getLogger("clawd.browser")

FORBIDDEN_PORT = 9222  # the port people's own browsers and tools use: never ours
READY_TIMEOUT = 15.0
POLL_INTERVAL = 0.15
LINE_CHECK = 0.01
STOP_GRACE = 2.5
LOCK_FILES = ("SingletonLock", "SingletonSocket", "SingletonCookie")
ENABLE_FEATURES = "--enable-features="

# Every Chromium this process launched and has not stopped. It runs in a session of its own (so
# our signals stay ours), which also means it would outlive us: at exit, whatever is left goes.
_launched: set[ChromiumProcess] = set()
_launched_lock = threading.Lock()


@dataclasses.dataclass(frozen=True)
class LaunchSpec:
    executable: str
    port: int
    user_data_dir: pathlib.Path
    headless: bool
    no_sandbox: bool
    extra_args: tuple[str, ...] = ()
    webmcp: bool = True  # browser.webmcp: the tools pages register for agents


def resolve_headless(
    setting, env: Mapping[str, str] = os.environ, platform: str = sys.platform
) -> bool:
    """auto: headless when Linux has no display to draw on."""
    if setting != "auto":
        return bool(setting)
    if platform.startswith("linux"):
        return not (env.get("DISPLAY") or env.get("WAYLAND_DISPLAY"))
    return False


def resolve_no_sandbox(setting, euid: int | None = None) -> bool:
    """auto: --no-sandbox only as root, where Chromium refuses to start with its sandbox."""
    if setting != "auto":
        return bool(setting)
    if euid is None:
        euid = os.geteuid() if hasattr(os, "geteuid") else 1
    return euid == 0


def build_args(spec: LaunchSpec, platform: str = sys.platform) -> list[str]:
    args = [
        spec.executable,
        f"--remote-debugging-port={spec.port}",
        f"--user-data-dir={spec.user_data_dir}",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-sync",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-features=Translate,MediaRouter",
        "--password-store=basic",
    ]
    extra, features = enabled_features(spec.extra_args, ("WebMCP",) if spec.webmcp else ())
    if features:
        args.append(f"{ENABLE_FEATURES}{features}")
    if spec.headless:
        args += ["--headless=new", "--disable-gpu"]
    if spec.no_sandbox:
        args.append("--no-sandbox")
    if platform.startswith("linux"):
        args.append("--disable-dev-shm-usage")
    args += extra
    args.append("about:blank")
    return args


def enabled_features(extra_args, ours: tuple[str, ...]) -> tuple[list[str], str]:
    """extraArgs without their --enable-features, and one value naming theirs and `ours`:
    Chromium reads only the last of a repeated switch, so a user's --enable-features would
    otherwise turn ours (WebMCP) off."""
    extra = [a for a in extra_args if not a.startswith(ENABLE_FEATURES)]
    theirs = [a[len(ENABLE_FEATURES) :] for a in extra_args if a.startswith(ENABLE_FEATURES)]
    named = [f for value in theirs for f in value.split(",") if f]
    return extra, ",".join(dict.fromkeys([*named, *ours]))


class ChromiumProcess:
    """A Chromium clawd launched: its Popen and where its stderr goes."""

    def __init__(self, popen: subprocess.Popen, stderr_path: pathlib.Path, spec: LaunchSpec):
        self.popen = popen
        self.stderr_path = stderr_path
        self.spec = spec

    @property
    def pid(self) -> int:
        return self.popen.pid

    def alive(self) -> bool:
        return self.popen.poll() is None

    def stderr_tail(self, lines: int = 15) -> str:
        try:
            text = self.stderr_path.read_text(errors="replace")
        except OSError:
            return ""
        return "\n".join(text.strip().splitlines()[-lines:])


def launch(
    spec: LaunchSpec, *, popen: Callable[..., subprocess.Popen] = subprocess.Popen
) -> ChromiumProcess:
    if spec.port == FORBIDDEN_PORT:
        raise errors.BrowserLaunchFailed(
            "port 9222 is never used for a managed profile; pick another cdpPort",
            hint="browser.profiles.<name>.cdpPort",
        )
    if port_in_use(spec.port):
        raise errors.BrowserLaunchFailed(
            f"cdpPort {spec.port} is already in use by {port_holder(spec.port)}",
            hint="browser.profiles.<name>.cdpPort",
        )
    spec.user_data_dir.mkdir(parents=True, exist_ok=True)
    remove_stale_lock(spec.user_data_dir)
    stderr_path = spec.user_data_dir.parent / "chromium.log"
    # Chromium prints its DevTools URL (the browser's secret path) there: the owner's alone
    fd = os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)  # one an older clawd made wider
    with open(fd, "wb") as stderr:
        proc = popen(
            build_args(spec),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )  # its own group: our signals stay ours
    log.info("launched %s (pid %d) on port %d", spec.executable, proc.pid, spec.port)
    launched = ChromiumProcess(proc, stderr_path, spec)
    with _launched_lock:
        _launched.add(launched)
    return launched


def wait_ready(process: ChromiumProcess, timeout: float = READY_TIMEOUT) -> str:
    """The browser websocket: the one Chromium's stderr names in its "DevTools listening on"
    line (looked for every LINE_CHECK), else the one /json/version names, asked every
    POLL_INTERVAL (a browser that prints no such line). Connecting to the line's websocket waits
    for the browser like /json/version does: asking that first, then opening the websocket,
    cost a cold start 15-25 ms more; waiting out a 150 ms poll cost 25 ms on average."""
    deadline = time.monotonic() + timeout
    line = _ListeningLine(process.stderr_path)
    next_poll = time.monotonic()
    while time.monotonic() < deadline:
        if not process.alive():
            raise exited_while_starting(process)
        named = line.url()
        if named and named.startswith("ws://"):
            return named
        if named or time.monotonic() >= next_poll:
            found = _version_websocket(process.spec.port)
            if found:
                return found
            next_poll = time.monotonic() + POLL_INTERVAL
        time.sleep(LINE_CHECK)
    raise launch_failure(
        process, f"Chromium did not answer on port {process.spec.port} within {timeout:g} s"
    )


class _ListeningLine:
    """The websocket Chromium's stderr (a file) names in "DevTools listening on ws://...", once
    that line is whole; reads only what was written since the last look."""

    MARK = b"DevTools listening on "

    def __init__(self, path: pathlib.Path):
        self._path, self._offset, self._text, self._url = path, 0, b"", None

    def url(self) -> str | None:
        if self._url is None:
            try:
                with open(self._path, "rb") as stream:
                    stream.seek(self._offset)
                    chunk = stream.read()
            except OSError:
                return None
            self._offset += len(chunk)
            text = self._text + chunk
            start = text.find(self.MARK)
            end = text.find(b"\n", start) if start >= 0 else -1
            if end < 0:  # keep a mark split between two reads, or a line not whole yet
                self._text = text[start:] if start >= 0 else text[-len(self.MARK) :]
                return None
            self._url = text[start + len(self.MARK) : end].strip().decode("ascii", "replace")
        return self._url


def _version_websocket(port: int) -> str | None:
    """The browser websocket /json/version names, or None while Chromium is not answering yet.
    Plain http.client: a loopback GET needs no proxies or sessions, and `requests` would cost
    the idle service 9 MB (issue 16)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=1.0)
    try:
        conn.request("GET", "/json/version")
        answer = conn.getresponse()
        if answer.status != 200:
            return None
        return json.loads(answer.read())["webSocketDebuggerUrl"]
    except (OSError, http.client.HTTPException, ValueError, KeyError, TypeError):
        return None
    finally:
        conn.close()


def exited_while_starting(process: ChromiumProcess) -> errors.BrowserLaunchFailed:
    return launch_failure(
        process, f"Chromium exited with status {process.popen.returncode} while starting"
    )


def launch_failure(process: ChromiumProcess, what: str) -> errors.BrowserLaunchFailed:
    tail = process.stderr_tail()
    hint = likely_fix(tail, process.spec)
    message = f"{what}; the likely fix is {hint}" + (
        f"\n--- chromium stderr ---\n{tail}" if tail else ""
    )
    stop_tree(process)
    return errors.BrowserLaunchFailed(message, hint=hint)


def likely_fix(stderr_tail: str, spec: LaunchSpec) -> str:
    text = stderr_tail.lower()
    if "sandbox" in text and not spec.no_sandbox:
        return "browser.noSandbox: true"
    if ("display" in text or "ozone" in text or "x server" in text) and not spec.headless:
        return "browser.headless: true"
    return "browser.executablePath (check that it is a working Chromium)"


def stop_tree(process: ChromiumProcess, grace: float = STOP_GRACE) -> None:
    """SIGTERM the whole tree, SIGKILL what is left after `grace` seconds, reap. The tree is
    the process group we started, so children are found even when the root already died."""
    tree = _tree(process)
    for proc in tree:
        _signal(proc, signal.SIGTERM)
    _, alive = psutil.wait_procs(tree, timeout=grace)
    for proc in alive:
        _signal(proc, signal.SIGKILL)
    psutil.wait_procs(alive, timeout=grace)
    try:
        process.popen.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        log.warning("Chromium pid %d did not exit", process.pid)
    with _launched_lock:
        _launched.discard(process)


def _tree(process: ChromiumProcess) -> list[psutil.Process]:
    found = {}
    try:
        root = psutil.Process(process.pid)
        found[root.pid] = root
        found.update((c.pid, c) for c in root.children(recursive=True))
    except psutil.NoSuchProcess:
        pass
    for proc in psutil.process_iter():
        try:
            if os.getpgid(proc.pid) == process.pid:  # start_new_session: pgid == the root's pid
                found.setdefault(proc.pid, proc)
        except (ProcessLookupError, PermissionError, psutil.Error):
            continue
    return list(found.values())


def wait_port_free(port: int, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while port_in_use(port):
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.05)
    return True


@atexit.register
def _stop_leftovers() -> None:
    with _launched_lock:
        left = list(_launched)
    for process in left:
        stop_tree(process, grace=1.0)


def wait_exit(process: ChromiumProcess, timeout: float) -> bool:
    try:
        process.popen.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return False
    with _launched_lock:
        _launched.discard(process)
    return True


def _signal(proc: psutil.Process, sig: int) -> None:
    try:
        proc.send_signal(sig)
    except (psutil.NoSuchProcess, psutil.AccessDenied):
        pass


def remove_stale_lock(user_data_dir: pathlib.Path, hostname: str | None = None) -> bool:
    """Chromium's SingletonLock is a symlink `<host>-<pid>`; a dead owner on this host leaves it
    behind after a crash and Chromium then refuses the profile."""
    lock = user_data_dir / "SingletonLock"
    try:
        target = os.readlink(lock)
    except OSError:
        return False
    host, _, pid = target.rpartition("-")
    if (
        host != (hostname or socket.gethostname())
        or not pid.isdigit()
        or psutil.pid_exists(int(pid))
    ):
        return False
    for name in LOCK_FILES:
        try:
            (user_data_dir / name).unlink()
        except OSError:
            pass
    log.info("removed a stale SingletonLock of dead pid %s in %s", pid, user_data_dir)
    return True


def port_in_use(port: int, host: str = "127.0.0.1") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


def port_holder(port: int) -> str:
    """Who listens on `port`, for the error that refuses it: "pid 123 (python3)" when the system
    lets us see (our own processes, or all of them as root), else "another program"."""
    try:
        listening = [
            c.pid
            for c in psutil.net_connections(kind="tcp")
            if c.status == psutil.CONN_LISTEN and c.laddr and c.laddr.port == port and c.pid
        ]
        if listening:
            return f"pid {listening[0]} ({psutil.Process(listening[0]).name()})"
    except (psutil.Error, OSError):
        pass
    return "another program"
