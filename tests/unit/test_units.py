"""The service definitions in etc/: systemd units (checked by systemd-analyze when it exists), the
launchd plist, the cron job."""

from __future__ import annotations

import os
import pathlib
import plistlib
import shutil
import subprocess
import sys

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
SYSTEMD = REPO / "etc" / "systemd"
SYSTEM_UNIT = SYSTEMD / "clawd-browser.service"
USER_UNIT = SYSTEMD / "clawd-browser-user.service"
PLIST = REPO / "etc" / "launchd" / "dev.clawd.browser.plist"
CRON = REPO / "etc" / "cron"
CLAWD_BROWSER = pathlib.Path(sys.executable).parent / "clawd-browser"


def unit_settings(path: pathlib.Path) -> dict[str, dict[str, list[str]]]:
    """{section: {key: [values]}}: systemd allows a key more than once,
    so configparser will not do."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.mark.parametrize("path", [SYSTEM_UNIT, USER_UNIT], ids=["system", "user"])
def test_units_are_notify_services_that_restart_on_failure_and_reload_on_hup(path):
    service = unit_settings(path)["Service"]
    assert service["Type"] == ["notify"]
    assert service["Restart"] == ["on-failure"]
    assert service["ExecReload"] == ["/bin/kill -HUP $MAINPID"]
    assert service["ExecStart"][0].endswith("clawd-browser serve")
    assert service["KillMode"] == ["mixed"]  # serve stops Chromium itself, in order
    assert int(service["TimeoutStopSec"][0]) > 10  # serve's own budget is 10 s
    assert unit_settings(path)["Install"]["WantedBy"]


def test_system_unit_runs_as_the_clawd_user_with_its_state_directory_and_hardening():
    service = unit_settings(SYSTEM_UNIT)["Service"]
    assert service["User"] == ["clawd"] and service["StateDirectory"] == ["clawd"]
    assert "CLAWD_HOME=/var/lib/clawd" in service["Environment"]
    for option in (
        "NoNewPrivileges",
        "ProtectSystem",
        "ProtectHome",
        "PrivateTmp",
        "PrivateDevices",
    ):
        assert service[option][0] in ("yes", "strict"), option
    for breaks_chromium in (
        "MemoryDenyWriteExecute",
        "RestrictNamespaces",
        "PrivateUsers",
        "SystemCallFilter",
    ):
        assert breaks_chromium not in service, breaks_chromium


def _verify(unit: pathlib.Path, tmp_path: pathlib.Path, exec_placeholder: str, *user: str):
    """systemd-analyze verify on a copy whose ExecStart names this checkout's clawd-browser (verify
    insists that the executable exists) with the generated man pages on MANPATH (it also checks
    Documentation=)."""
    units, man, runtime = tmp_path / "units", tmp_path / "man", tmp_path / "run"
    for d in (units, man / "man1", man / "man5", runtime):
        d.mkdir(parents=True)
    runtime.chmod(0o700)
    shutil.copy(REPO / "man" / "clawd-browser.1", man / "man1")
    shutil.copy(REPO / "man" / "clawd.yaml.5", man / "man5")
    copy = units / unit.name
    copy.write_text(unit.read_text(encoding="utf-8").replace(exec_placeholder, str(CLAWD_BROWSER)))
    env = {
        **os.environ,
        "MANPATH": str(man),
        "XDG_RUNTIME_DIR": str(runtime),
        "SYSTEMD_LOG_LEVEL": "notice",
    }
    return subprocess.run(
        ["systemd-analyze", *user, "verify", str(copy)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


needs_systemd_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed"
)


@needs_systemd_analyze
def test_system_unit_passes_systemd_analyze_verify(tmp_path):
    assert CLAWD_BROWSER.exists()
    done = _verify(SYSTEM_UNIT, tmp_path, "/opt/clawd/bin/clawd-browser")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr  # unknown keys are only warnings


@needs_systemd_analyze
def test_user_unit_passes_systemd_analyze_verify(tmp_path):
    done = _verify(USER_UNIT, tmp_path, "%h/.local/bin/clawd-browser", "--user")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "", done.stderr


@needs_systemd_analyze
def test_verify_would_catch_a_broken_unit(tmp_path):
    broken = tmp_path / "clawd-browser.service"
    broken.write_text(SYSTEM_UNIT.read_text().replace("Type=notify", "Type=notifyy"))
    done = _verify(broken, tmp_path / "v", "/opt/clawd/bin/clawd-browser")
    assert "notifyy" in done.stderr


def test_launchd_plist_parses_and_keeps_the_service_alive_on_failure():
    with open(PLIST, "rb") as fh:
        plist = plistlib.load(fh)
    assert plist["Label"] == PLIST.stem == "dev.clawd.browser"
    command = " ".join(plist["ProgramArguments"])
    assert plist["ProgramArguments"][:2] == ["/bin/sh", "-c"] and "exec " in command
    assert "clawd-browser\" serve" in command and "--log-file" in command
    assert plist["RunAtLoad"] is True
    assert plist["KeepAlive"] == {"SuccessfulExit": False}
    assert plist["ExitTimeOut"] > 10


def test_cron_script_is_valid_sh_and_the_crontab_line_calls_it():
    script = CRON / "clawd-screenshot.sh"
    assert os.access(script, os.X_OK)
    checked = subprocess.run(["sh", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    text = script.read_text()
    assert (
        "--autostart open" in text and "screenshot --target" in text and "--full-page --out" in text
    )
    jobs = [
        line
        for line in (CRON / "crontab").read_text().splitlines()
        if line and not line.startswith("#")
    ]
    assert len(jobs) == 1
    fields = jobs[0].split()
    assert len(fields) > 5 and all(f.replace("*", "").isdigit() or f == "*" for f in fields[:5])
    assert "clawd-screenshot.sh" in jobs[0]
