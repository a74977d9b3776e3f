"""launcher: flags, tristate settings, stale locks, the likely fix, launch with a fake Popen, and
stop_tree on real (non-browser) Python processes. No Chromium."""

from __future__ import annotations

import http.server
import json
import os
import pathlib
import socket
import stat
import subprocess
import sys
import threading

import psutil
import pytest

from clawd import errors
from clawd.browser import launcher
from clawd.browser.launcher import (
    ChromiumProcess,
    LaunchSpec,
    build_args,
    likely_fix,
    port_in_use,
    remove_stale_lock,
    resolve_headless,
    resolve_no_sandbox,
    stop_tree,
)
from tests.support.browser import free_port
from tests.support.servers import QuietServer

DEAD_PID = 99_999_999  # above any pid_max (2**22 on 64-bit Linux): never a live process

BASE_FLAGS = [
    "--no-first-run",
    "--no-default-browser-check",
    "--disable-sync",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-features=Translate,MediaRouter",
    "--password-store=basic",
    "--enable-features=WebMCP",  # browser.webmcp (DESIGN §19)
]


def spec(tmp_path, **overrides) -> LaunchSpec:
    values = dict(
        executable="/usr/bin/chromium",
        port=18800,
        user_data_dir=tmp_path / "clawd" / "user-data",
        headless=False,
        no_sandbox=False,
    )
    values.update(overrides)
    return LaunchSpec(**values)


# -- flags ----------------------------------------------------------------------------------------
def test_build_args_has_port_user_data_dir_and_the_fixed_flags_in_order(tmp_path):
    s = spec(tmp_path)
    assert build_args(s, platform="darwin") == [
        "/usr/bin/chromium",
        "--remote-debugging-port=18800",
        f"--user-data-dir={s.user_data_dir}",
        *BASE_FLAGS,
        "about:blank",
    ]


def test_headless_adds_new_headless_and_disable_gpu(tmp_path):
    args = build_args(spec(tmp_path, headless=True), platform="darwin")
    assert args[-3:] == ["--headless=new", "--disable-gpu", "about:blank"]
    assert "--headless" not in args  # the old headless mode is never asked for


def test_no_sandbox_adds_the_flag_only_when_set(tmp_path):
    assert "--no-sandbox" in build_args(spec(tmp_path, no_sandbox=True), platform="darwin")
    assert "--no-sandbox" not in build_args(spec(tmp_path), platform="darwin")


def test_linux_adds_disable_dev_shm_usage_and_others_do_not(tmp_path):
    assert "--disable-dev-shm-usage" in build_args(spec(tmp_path), platform="linux")
    assert "--disable-dev-shm-usage" not in build_args(spec(tmp_path), platform="darwin")
    assert "--disable-dev-shm-usage" not in build_args(spec(tmp_path), platform="win32")


def test_extra_args_come_after_clawd_flags_and_before_the_start_page(tmp_path):
    args = build_args(
        spec(
            tmp_path,
            headless=True,
            no_sandbox=True,
            extra_args=("--lang=de", "--window-size=800,600"),
        ),
        platform="linux",
    )
    assert args[-3:] == ["--lang=de", "--window-size=800,600", "about:blank"]
    assert (
        args.index("--lang=de") > args.index("--disable-dev-shm-usage") > args.index("--no-sandbox")
    )
    assert not any(a.startswith("--remote-debugging-port=9222") for a in args)


# -- tristates ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "env, headless",
    [
        ({}, True),
        ({"DISPLAY": ""}, True),
        ({"DISPLAY": ":0"}, False),
        ({"WAYLAND_DISPLAY": "wayland-0"}, False),
    ],
)
def test_auto_headless_on_linux_follows_the_display(env, headless):
    assert resolve_headless("auto", env=env, platform="linux") is headless


def test_auto_headless_elsewhere_is_headed():
    assert resolve_headless("auto", env={}, platform="darwin") is False


@pytest.mark.parametrize("setting", [True, False])
def test_an_explicit_headless_setting_wins(setting):
    assert resolve_headless(setting, env={"DISPLAY": ":0"}, platform="linux") is setting
    assert resolve_headless(setting, env={}, platform="linux") is setting


@pytest.mark.parametrize("setting", [True, False])
def test_an_explicit_no_sandbox_setting_wins(setting):
    assert resolve_no_sandbox(setting, euid=0) is setting
    assert resolve_no_sandbox(setting, euid=1000) is setting


def test_auto_no_sandbox_is_off_for_an_ordinary_user():
    assert resolve_no_sandbox("auto", euid=1000) is False


def test_auto_no_sandbox_is_on_for_root():
    assert resolve_no_sandbox("auto", euid=0) is True


def test_auto_no_sandbox_without_an_euid_asks_the_os():
    assert resolve_no_sandbox("auto") is (os.geteuid() == 0)


# -- stale SingletonLock --------------------------------------------------------------------------
def make_lock(user_data_dir: pathlib.Path, target: str) -> pathlib.Path:
    user_data_dir.mkdir(parents=True, exist_ok=True)
    lock = user_data_dir / "SingletonLock"
    os.symlink(target, lock)
    return lock


def lock_files_present(user_data_dir):
    return sorted(n for n in launcher.LOCK_FILES if os.path.lexists(user_data_dir / n))


def test_a_lock_of_a_dead_pid_on_this_host_is_removed_with_its_siblings(tmp_path):
    make_lock(tmp_path, f"my-box-{DEAD_PID}")
    os.symlink("/tmp/.org.chromium.Chromium.gone/SingletonSocket", tmp_path / "SingletonSocket")
    os.symlink("12345", tmp_path / "SingletonCookie")
    assert remove_stale_lock(tmp_path, hostname="my-box") is True
    assert lock_files_present(tmp_path) == []


def test_a_lock_of_a_live_pid_is_kept(tmp_path):
    make_lock(tmp_path, f"my-box-{os.getpid()}")
    assert remove_stale_lock(tmp_path, hostname="my-box") is False
    assert lock_files_present(tmp_path) == ["SingletonLock"]


def test_a_lock_of_another_host_is_kept(tmp_path):
    make_lock(tmp_path, f"other-box-{DEAD_PID}")
    assert remove_stale_lock(tmp_path, hostname="my-box") is False
    assert lock_files_present(tmp_path) == ["SingletonLock"]


def test_a_lock_with_no_pid_is_kept(tmp_path):
    make_lock(tmp_path, "my-box-notapid")
    assert remove_stale_lock(tmp_path, hostname="my-box") is False


def test_no_lock_is_nothing_to_remove(tmp_path):
    assert remove_stale_lock(tmp_path, hostname="my-box") is False
    assert remove_stale_lock(tmp_path / "missing", hostname="my-box") is False


def test_the_default_hostname_is_this_machine(tmp_path):
    make_lock(tmp_path, f"{socket.gethostname()}-{DEAD_PID}")
    assert remove_stale_lock(tmp_path) is True


# -- the likely fix -------------------------------------------------------------------------------
SANDBOX_TAIL = (
    "[0101/000000.000:FATAL:zygote_host_impl_linux.cc(127)] No usable sandbox! Update your kernel"
)
DISPLAY_TAIL = "[0101/000000.000:ERROR:ozone_platform_x11.cc(240)] Missing X server or $DISPLAY"


def test_a_sandbox_complaint_points_at_no_sandbox(tmp_path):
    assert likely_fix(SANDBOX_TAIL, spec(tmp_path)) == "browser.noSandbox: true"


def test_a_display_complaint_points_at_headless(tmp_path):
    assert likely_fix(DISPLAY_TAIL, spec(tmp_path)) == "browser.headless: true"


def test_anything_else_or_a_fix_already_applied_points_at_the_executable(tmp_path):
    assert likely_fix("", spec(tmp_path)).startswith("browser.executablePath")
    assert likely_fix(SANDBOX_TAIL, spec(tmp_path, no_sandbox=True)).startswith(
        "browser.executablePath"
    )
    assert likely_fix(DISPLAY_TAIL, spec(tmp_path, headless=True)).startswith(
        "browser.executablePath"
    )


# -- ports ----------------------------------------------------------------------------------------
def test_port_in_use_sees_a_listener_and_not_a_closed_port():
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        assert port_in_use(port) is True
    assert port_in_use(port) is False


# -- launch with a fake Popen ---------------------------------------------------------------------
class FakePopen:
    def __init__(self, returncode=None, stderr_text=""):
        self.pid = DEAD_PID
        self.returncode = returncode
        self.stderr_text = stderr_text
        self.args = None
        self.kwargs = None
        self.waited = False

    def __call__(self, args, **kwargs):
        self.args, self.kwargs = args, kwargs
        kwargs["stderr"].write(self.stderr_text.encode())
        return self

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        self.waited = True
        return self.returncode


def test_launch_creates_the_profile_dir_and_starts_chromium_in_its_own_session(tmp_path):
    popen = FakePopen()
    s = spec(tmp_path, port=free_port())
    process = launcher.launch(s, popen=popen)
    assert s.user_data_dir.is_dir()
    assert popen.args == build_args(s)
    assert popen.kwargs["start_new_session"] is True
    assert (
        popen.kwargs["stdin"] is subprocess.DEVNULL and popen.kwargs["stdout"] is subprocess.DEVNULL
    )
    assert process.stderr_path == s.user_data_dir.parent / "chromium.log"
    assert process.pid == DEAD_PID and process.alive()


def test_chromiums_log_is_the_owners_alone_even_when_an_older_one_was_wider(tmp_path):
    """Chromium prints its DevTools URL, the browser's secret path, into chromium.log."""
    s = spec(tmp_path, port=free_port())
    older = s.user_data_dir.parent / "chromium.log"
    older.parent.mkdir(parents=True, exist_ok=True)
    older.write_text("old")
    older.chmod(0o644)
    process = launcher.launch(s, popen=FakePopen())
    assert stat.S_IMODE(process.stderr_path.stat().st_mode) == 0o600


def test_launch_removes_a_stale_lock_first(tmp_path):
    s = spec(tmp_path, port=free_port())
    make_lock(s.user_data_dir, f"{socket.gethostname()}-{DEAD_PID}")
    launcher.launch(s, popen=FakePopen())
    assert lock_files_present(s.user_data_dir) == []


def test_launch_refuses_port_9222(tmp_path):
    popen = FakePopen()
    with pytest.raises(errors.BrowserLaunchFailed) as raised:
        launcher.launch(spec(tmp_path, port=9222), popen=popen)
    assert "9222" in str(raised.value) and raised.value.details["hint"].endswith("cdpPort")
    assert popen.args is None


def test_launch_refuses_a_port_someone_else_listens_on(tmp_path):
    popen = FakePopen()
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        with pytest.raises(errors.BrowserLaunchFailed) as raised:
            launcher.launch(spec(tmp_path, port=port), popen=popen)
    assert f"cdpPort {port} is already in use by pid {os.getpid()} (" in str(raised.value)
    assert popen.args is None


def test_stderr_tail_keeps_the_last_lines(tmp_path):
    log = tmp_path / "chromium.log"
    log.write_text("\n".join(f"line {n}" for n in range(40)) + "\n")
    process = ChromiumProcess(FakePopen(), log, spec(tmp_path))
    assert process.stderr_tail(3) == "line 37\nline 38\nline 39"
    assert (
        ChromiumProcess(FakePopen(), tmp_path / "missing.log", spec(tmp_path)).stderr_tail() == ""
    )


def test_a_chromium_that_exits_while_starting_fails_with_its_stderr_and_the_likely_fix(tmp_path):
    popen = FakePopen(stderr_text=f"starting\n{SANDBOX_TAIL}\n")
    process = launcher.launch(spec(tmp_path, port=free_port()), popen=popen)
    popen.returncode = 1
    with pytest.raises(errors.BrowserLaunchFailed) as raised:
        launcher.wait_ready(process, timeout=5.0)
    message = str(raised.value)
    assert "exited with status 1" in message
    assert "No usable sandbox" in message and "browser.noSandbox: true" in message
    assert raised.value.details["hint"] == "browser.noSandbox: true"
    assert popen.waited  # reaped


class _VersionHandler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps(
            {"webSocketDebuggerUrl": "ws://127.0.0.1/devtools/browser/ready"}
        ).encode()
        self.send_response(200 if self.path == "/json/version" else 404)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_wait_ready_returns_the_websocket_url_once_json_version_answers(tmp_path):
    server = QuietServer(("127.0.0.1", 0), _VersionHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        process = ChromiumProcess(
            FakePopen(), tmp_path / "chromium.log", spec(tmp_path, port=server.server_port)
        )
        assert launcher.wait_ready(process, timeout=5.0) == "ws://127.0.0.1/devtools/browser/ready"
    finally:
        server.shutdown()
        server.server_close()


class _Asked(http.server.BaseHTTPRequestHandler):
    """/json/version that notes every ask and answers another websocket than the line's."""

    paths: list[str] = []

    def do_GET(self):
        type(self).paths.append(self.path)
        body = json.dumps({"webSocketDebuggerUrl": "ws://127.0.0.1/devtools/browser/asked"})
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def asked(monkeypatch):
    """A /json/version server on the spec's port, polled only when the line cannot answer."""
    monkeypatch.setattr(launcher, "POLL_INTERVAL", 3600.0)  # one poll at the start, if any
    _Asked.paths = []
    server = QuietServer(("127.0.0.1", 0), _Asked)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_port
    server.shutdown()
    server.server_close()


def test_wait_ready_takes_the_websocket_the_stderr_line_names_once_it_is_whole(tmp_path, asked):
    """Chromium writes its stderr in pieces: the mark cut in two, the line without its end.
    Only the whole line is taken, and /json/version is then not asked at all."""
    log = tmp_path / "chromium.log"
    log.write_bytes(b"[0101/000000.000:WARNING] starting\nDevTools listen")
    process = ChromiumProcess(FakePopen(), log, spec(tmp_path, port=asked))
    line = launcher._ListeningLine(log)
    assert line.url() is None
    with open(log, "ab") as stream:
        stream.write(b"ing on ws://127.0.0.1:1/devtools/brow")
    assert line.url() is None
    with open(log, "ab") as stream:
        stream.write(b"ser/up\nmore output\n")
    assert line.url() == "ws://127.0.0.1:1/devtools/browser/up"

    _Asked.paths = []
    assert launcher.wait_ready(process, timeout=10.0) == "ws://127.0.0.1:1/devtools/browser/up"
    assert _Asked.paths == []


def test_wait_ready_asks_json_version_when_the_line_names_no_websocket(tmp_path, asked):
    log = tmp_path / "chromium.log"
    log.write_bytes(b"DevTools listening on (unexpected)\n")
    process = ChromiumProcess(FakePopen(), log, spec(tmp_path, port=asked))
    assert launcher.wait_ready(process, timeout=10.0) == "ws://127.0.0.1/devtools/browser/asked"
    assert _Asked.paths == ["/json/version"]


# -- stop_tree on real processes (plain Python, never a browser) ----------------------------------
PARENT_WITH_CHILD = """
import subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print(child.pid, flush=True)
child.wait()
"""

STUBBORN = """
import signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
print("ready", flush=True)
time.sleep(60)
"""


def start(code: str, tmp_path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    return proc, proc.stdout.readline().strip()


def test_stop_tree_terminates_the_process_and_its_children(tmp_path):
    proc, child_pid = start(PARENT_WITH_CHILD, tmp_path)
    child = psutil.Process(int(child_pid))
    try:
        stop_tree(ChromiumProcess(proc, tmp_path / "log", spec(tmp_path)), grace=5.0)
        assert proc.poll() is not None and not psutil.pid_exists(proc.pid)
        child.wait(5.0)
        assert not child.is_running()
    finally:
        if proc.poll() is None:
            proc.kill()
        if child.is_running():
            child.kill()
        proc.stdout.close()


def test_stop_tree_kills_what_ignores_sigterm_after_the_grace(tmp_path):
    proc, ready = start(STUBBORN, tmp_path)
    assert ready == "ready"
    try:
        stop_tree(ChromiumProcess(proc, tmp_path / "log", spec(tmp_path)), grace=0.3)
        # it ignores SIGTERM, so being gone means SIGKILL came (psutil reaped it, so Popen's
        # returncode cannot tell which signal it was)
        assert proc.poll() is not None
        assert not psutil.pid_exists(proc.pid)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stdout.close()


def test_stop_tree_of_a_process_already_gone_is_quiet(tmp_path):
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(10)
    stop_tree(ChromiumProcess(proc, tmp_path / "log", spec(tmp_path)), grace=0.3)
    assert proc.returncode == 0
