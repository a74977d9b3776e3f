"""`clawd-browser serve` as systemd runs it: a real subprocess, real signals,
a real notify socket."""

from __future__ import annotations

import re
import signal
import threading
import time
from http.server import BaseHTTPRequestHandler

import psutil
import pytest

from clawd import errors
from tests.e2e.daemon_process import ServeProcess, write_config
from tests.support import browser as support
from tests.support.browser import free_port, require_chromium
from tests.support.servers import QuietServer


@pytest.fixture
def serve(tmp_path):
    require_chromium()
    process = ServeProcess(tmp_path, support.service_config(tmp_path / "home"))
    yield process
    process.close()


class StallingSite:
    """A page that never answers until released: a navigation to it stays in flight."""

    def __init__(self):
        self.hit = threading.Event()
        self.release = threading.Event()
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                site.hit.set()
                site.release.wait(30)
                body = b"<title>late</title>"
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:
                    pass  # the browser that asked is gone

            def log_message(self, *args):
                pass

        self.server = QuietServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/slow"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


def _in_background(fn):
    outcome = {}

    def run():
        try:
            outcome["result"] = fn()
        except Exception as exc:  # the assertion looks at what the request ended with
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def _browser_processes(pid: int) -> list[psutil.Process]:
    return [
        p
        for p in psutil.Process(pid).children(recursive=True)
        if "chrom" in (p.name() or "").lower()
    ]


def _gone(process: psutil.Process) -> bool:
    try:
        return process.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def test_sigterm_with_a_request_in_flight_exits_0_within_10s_and_stops_chromium(serve):
    client = serve.client(timeout=30)
    client.start()
    browsers = _browser_processes(serve.proc.pid)
    assert browsers, "the managed Chromium should be a child of the service"
    site = StallingSite()
    try:
        thread, outcome = _in_background(lambda: client.open(site.url))
        assert site.hit.wait(15), "the navigation never reached the page"
        began = time.monotonic()
        serve.signal(signal.SIGTERM)
        assert serve.proc.wait(12) == 0
        assert time.monotonic() - began < 10
        thread.join(5)
    finally:
        site.close()
    assert not thread.is_alive()
    # the request in flight finished, or failed with a code; it was not left without an answer
    if "error" in outcome:
        error = outcome["error"]
        assert isinstance(error, errors.ClawdError) and error.code != "SERVICE_UNREACHABLE", (
            f"{error!r}\n{serve.log_text()}"
        )
    assert all(_gone(p) for p in browsers), [p.pid for p in browsers if not _gone(p)]
    serve.notify.wait_for("STOPPING=1", 1)
    assert "clawd stopped in" in serve.log_text()


def test_sigterm_lets_a_request_that_finishes_within_the_drain_window_answer_normally(serve):
    client = serve.client(timeout=30)
    client.start()
    site = StallingSite()
    try:
        thread, outcome = _in_background(lambda: client.open(site.url))
        assert site.hit.wait(15)
        serve.signal(signal.SIGTERM)
        serve.wait_for_log("SIGTERM: shutting down")
        site.release.set()  # the page answers while the service drains
        thread.join(10)
        assert serve.proc.wait(12) == 0
    finally:
        site.close()
    assert outcome.get("result", {}).get("title") == "late", outcome


def test_new_connections_are_refused_once_shutdown_begins(serve):
    client = serve.client(timeout=5)
    client.status()
    serve.signal(signal.SIGTERM)
    assert serve.proc.wait(10) == 0
    with pytest.raises(errors.ClawdError) as caught:
        serve.client(timeout=2).status()
    assert caught.value.code == "SERVICE_UNREACHABLE"


def _profile_names(client) -> list[str]:
    return [p["name"] for p in client.profiles()["profiles"]]


def _wait(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


def test_sighup_adds_and_removes_profiles_without_a_restart(serve):
    client = serve.client()
    assert _profile_names(client) == ["clawd", "user"]
    port = free_port()
    write_config(
        serve.config_path,
        serve.config,
        edit=lambda d: d["browser"]["profiles"].update(work={"cdpPort": port, "color": "#0066CC"}),
    )
    serve.signal(signal.SIGHUP)
    messages = serve.notify.wait_for("READY=1")
    assert any(m.startswith("RELOADING=1") for m in messages)
    _wait(lambda: "work" in _profile_names(client))
    work = next(p for p in client.profiles()["profiles"] if p["name"] == "work")
    assert work["cdpPort"] == port and work["color"] == "#0066CC"

    write_config(serve.config_path, serve.config)  # and gone again
    serve.signal(signal.SIGHUP)
    _wait(lambda: _profile_names(client) == ["clawd", "user"])
    assert serve.proc.poll() is None
    assert "profile work removed" in serve.wait_for_log("profile work removed")


def test_sighup_with_an_invalid_config_keeps_the_old_one_and_logs_every_problem(serve):
    client = serve.client()

    def break_it(data):
        data["server"]["port"] = 70000
        data["browser"]["bogus"] = True
        data["browser"]["profiles"]["work"] = {"cdpPort": free_port()}

    write_config(serve.config_path, serve.config, edit=break_it)
    serve.signal(signal.SIGHUP)
    log = serve.wait_for_log("configuration refused")
    serve.notify.wait_for("READY=1")
    assert "$.server.port: 70000 is greater than the maximum of 65535" in log
    assert "$.browser: unknown key 'bogus'" in log
    assert serve.proc.poll() is None
    assert _profile_names(client) == [
        "clawd",
        "user",
    ]  # the old configuration is still the one in use
    assert client.status()["ok"] is True


def test_sighup_reopens_the_log_file_after_logrotate_moved_it(serve):
    client = serve.client()
    client.status()
    serve.wait_for_log("GET / 200")  # the access line is written after the answer is sent
    rotated = serve.log_path.with_name("clawd.log.1")
    serve.log_path.rename(rotated)
    serve.signal(signal.SIGHUP)
    serve.notify.wait_for("READY=1")
    client.request("GET", "/tabs")
    new = serve.wait_for_log("GET /tabs 200")
    assert "log file reopened" in new
    assert "GET /tabs" not in rotated.read_text()
    assert "GET / 200" in rotated.read_text()


ACCESS = re.compile(
    r"INFO clawd\.access: (?P<method>[A-Z]+) (?P<path>\S+) (?P<status>\d{3}) "
    r"(?P<ms>\d+(\.\d+)?)ms profile=(?P<profile>\S+) tab=(?P<tab>\S+)$"
)


def test_one_access_log_line_per_request_with_method_path_status_ms_profile_and_tab(
    serve, tmp_path
):
    client = serve.client(timeout=30)
    client.status()
    with pytest.raises(errors.ClawdError):
        client.request("GET", "/tabs", profile="nope")
    client.request("POST", "/tabs/open", json={"url": "about:blank"})
    client.request("GET", "/tabs")

    def access_lines():
        found = [m.groupdict() for m in map(ACCESS.search, serve.log_text().splitlines()) if m]
        return found if len(found) >= 4 else None

    lines = _wait(access_lines)
    assert [(line["method"], line["path"], line["status"]) for line in lines] == [
        ("GET", "/", "200"),
        ("GET", "/tabs", "404"),
        ("POST", "/tabs/open", "200"),
        ("GET", "/tabs", "200"),
    ]
    opened = lines[2]
    assert opened["profile"] == "clawd" and re.fullmatch(r"t\d+", opened["tab"]), opened
