"""`clawd-browser --autostart CMD` from a subprocess, as cron runs it: no service answers, so one
is started detached, CMD runs against it, and it keeps running for the next command."""

from __future__ import annotations

import os
import pathlib
import signal
import subprocess
import sys

import psutil
import pytest

from tests.e2e.daemon_process import write_config
from tests.support import browser as support
from tests.support.browser import require_chromium

REPO = pathlib.Path(__file__).resolve().parents[2]
CRON_SCRIPT = REPO / "etc" / "cron" / "clawd-screenshot.sh"


class Setup:
    def __init__(self, tmp: pathlib.Path, *, autostart_in_config: bool = False):
        extra = {"cli": {"autostart": True}} if autostart_in_config else None
        self.config = support.service_config(tmp / "home", extra=extra)
        self.port = self.config.server.port
        self.url = f"http://127.0.0.1:{self.port}"
        self.config_path = tmp / "clawd.yaml"
        write_config(self.config_path, self.config)
        self.env = {
            **os.environ,
            "CLAWD_HOME": str(self.config.home),
            "CLAWD_CONFIG": str(self.config_path),
            "PATH": f"{pathlib.Path(sys.executable).parent}{os.pathsep}"
            f"{os.environ.get('PATH', '')}",
        }
        for variable in ("CLAWD_TOKEN", "CLAWD_PASSWORD", "NOTIFY_SOCKET"):
            self.env.pop(variable, None)

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "clawd", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def services(self) -> list[psutil.Process]:
        """The `serve` processes listening on our port (started detached, so not our children)."""
        found = []
        for proc in psutil.process_iter(["cmdline"]):
            cmdline = proc.info["cmdline"] or []
            if "serve" in cmdline and "--port" in cmdline and str(self.port) in cmdline:
                found.append(proc)
        return found

    def stop_services(self) -> None:
        procs = self.services()
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        _, alive = psutil.wait_procs(procs, timeout=12)
        for proc in alive:
            proc.kill()


@pytest.fixture
def setup(tmp_path):
    require_chromium()
    s = Setup(tmp_path)
    yield s
    s.stop_services()


def test_without_autostart_an_unreachable_service_is_exit_status_3(setup):
    done = setup.cli("--url", setup.url, "status")
    assert done.returncode == 3, done.stderr
    assert "SERVICE_UNREACHABLE" in done.stderr
    assert setup.services() == []


def test_autostart_starts_a_detached_service_that_answers_and_outlives_the_command(setup):
    done = setup.cli("--autostart", "--url", setup.url, "--json", "status")
    assert done.returncode == 0, done.stderr
    assert '"ok": true' in done.stdout
    [service] = setup.services()
    assert os.getsid(service.pid) == service.pid  # its own session: cron's exit does not kill it
    again = setup.cli("--url", setup.url, "profiles")  # no --autostart: the same service answers
    assert again.returncode == 0, again.stderr
    assert [p.pid for p in setup.services()] == [service.pid]
    service.send_signal(signal.SIGTERM)
    service.wait(12)  # not our child: its status is not ours to read
    log = setup.config.home / "autostart.log"
    assert "clawd stopped in" in log.read_text()
    assert log.stat().st_mode & 0o777 == 0o600  # the service's lines: the URLs it browsed


def test_cli_autostart_true_in_the_config_starts_the_service_too(tmp_path):
    require_chromium()
    s = Setup(tmp_path, autostart_in_config=True)
    try:
        done = s.cli("--url", s.url, "status")
        assert done.returncode == 0, done.stderr
        assert len(s.services()) == 1
    finally:
        s.stop_services()


def test_the_cron_screenshot_job_autostarts_and_saves_a_full_page_png(setup, site, tmp_path):
    out = tmp_path / "shots"
    setup.env["CLAWD_BROWSER"] = f"clawd-browser --url {setup.url}"
    done = subprocess.run(
        ["sh", str(CRON_SCRIPT), site.url("/long.html"), str(out)],
        env=setup.env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr + (out / "screenshot.log").read_text()
    assert done.stdout == "" and done.stderr == ""  # cron mails nothing when all went well
    [shot] = out.glob("shot-*.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    log = (out / "screenshot.log").read_text()
    assert "saved " + str(shot) in log
    assert len(setup.services()) == 1


def test_the_cron_job_reports_a_failure_on_stderr_with_its_exit_status(setup, tmp_path):
    out = tmp_path / "shots"
    setup.env["CLAWD_BROWSER"] = f"clawd-browser --url {setup.url}"
    done = subprocess.run(
        ["sh", str(CRON_SCRIPT), "http://10.0.0.1/", str(out)],
        env=setup.env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 1, done.stderr
    assert "open http://10.0.0.1/ failed" in done.stderr and "NAVIGATION_BLOCKED" in done.stderr
    assert list(out.glob("shot-*.png")) == []
