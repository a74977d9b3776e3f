"""The service's doctor checks (clawd/security/doctor.py) over fake probes: no browser,
no service."""

from __future__ import annotations

import subprocess

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import ProfileConfig, StateLayout
from clawd.security import doctor
from clawd.security.doctor import Probes


def _ran(stdout="Chromium 156.0.1 built on Debian\n", returncode=0, stderr=""):
    def run(args, **kw):
        assert args[1:] == ["--version"] and kw["timeout"] > 0
        return subprocess.CompletedProcess(args, returncode, stdout, stderr)

    return run


def _probes(**kw) -> Probes:
    kw.setdefault("run", _ran())
    kw.setdefault("find_executable", lambda explicit: "/opt/chromium")
    kw.setdefault("port_in_use", lambda port: False)
    kw.setdefault("euid", 1000)
    return Probes(**kw)


@pytest.fixture
def home(tmp_path):
    home = tmp_path / "home"
    layout = StateLayout(home)
    layout.ensure()
    layout.auth_token.write_text("secret\n")
    layout.auth_token.chmod(0o600)
    return home


def _config(home, **browser):
    data = {"browser": {"profiles": {"clawd": {"cdpPort": 18800}}, **browser}}
    return config_from_data(data, env={"CLAWD_HOME": str(home)})


def _checks(config, probes=None, **kw) -> dict:
    report = doctor.diagnose(config, StateLayout(config.home), probes=probes or _probes(), **kw)
    return {c["name"]: c for c in report["checks"]} | {"_ok": report["ok"]}


def test_a_sound_setup_is_ok_with_evaluate_flagged_as_a_risk(home):
    checks = _checks(_config(home, noSandbox=False))
    assert checks["_ok"] is True
    assert (
        checks["chromium"]["level"] == "ok" and "Chromium 156.0.1" in checks["chromium"]["detail"]
    )
    assert checks["evaluate"]["level"] == "warn"
    for name in ("state dir", "auth", "bind", "sandbox", "port 18800"):
        assert checks[name]["level"] == "ok", checks[name]
    assert set(checks["auth"]) == {"name", "ok", "level", "detail"}


def test_evaluate_disabled_is_not_flagged(home):
    assert _checks(_config(home, evaluateEnabled=False))["evaluate"]["level"] == "ok"


def test_a_missing_chromium_is_an_error(home):
    def missing(explicit):
        raise errors.BrowserLaunchFailed("no Chromium-family browser found")

    checks = _checks(_config(home), _probes(find_executable=missing))
    assert checks["chromium"]["level"] == "error" and checks["_ok"] is False


@pytest.mark.parametrize(
    "run, words",
    [
        (_ran(returncode=127, stderr="cannot open shared object"), "exited 127"),
        (
            lambda *a, **kw: (_ for _ in ()).throw(subprocess.TimeoutExpired("chromium", 10)),
            "did not answer",
        ),
        (
            lambda *a, **kw: (_ for _ in ()).throw(PermissionError(13, "Permission denied")),
            "does not run",
        ),
    ],
)
def test_a_chromium_that_does_not_launch_is_an_error(home, run, words):
    checks = _checks(_config(home), _probes(run=run))
    assert checks["chromium"]["level"] == "error" and words in checks["chromium"]["detail"]


def test_no_sandbox_in_effect_is_a_warning(home):
    assert _checks(_config(home, noSandbox=True))["sandbox"]["level"] == "warn"
    assert _checks(_config(home), _probes(euid=0))["sandbox"]["level"] == "warn"  # auto as root
    assert _checks(_config(home), _probes(euid=1000))["sandbox"]["level"] == "ok"


def test_a_group_writable_state_dir_is_an_error_and_a_readable_one_a_warning(home):
    home.chmod(0o770)
    assert _checks(_config(home))["state dir"]["level"] == "error"
    home.chmod(0o750)
    assert _checks(_config(home))["state dir"]["level"] == "warn"
    home.chmod(0o702)
    assert _checks(_config(home))["state dir"]["level"] == "error"


def test_an_auth_token_not_0600_is_an_error(home):
    StateLayout(home).auth_token.chmod(0o640)
    checks = _checks(_config(home))
    assert checks["auth"]["level"] == "error" and "chmod 600" in checks["auth"]["detail"]


def test_no_credential_at_all_is_an_error_and_a_configured_one_is_enough(home, tmp_path):
    StateLayout(home).auth_token.unlink()
    assert _checks(_config(home))["auth"]["level"] == "error"
    configured = config_from_data(
        {"server": {"auth": {"token": "t0ken"}}}, env={"CLAWD_HOME": str(home)}
    )
    assert _checks(configured)["auth"]["level"] == "ok"


def test_a_non_loopback_bind_needs_auth(home):
    exposed = config_from_data({"server": {"host": "0.0.0.0"}}, env={"CLAWD_HOME": str(home)})
    assert _checks(exposed)["bind"]["level"] == "error"
    guarded = config_from_data(
        {"server": {"host": "0.0.0.0", "auth": {"password": "pw"}}}, env={"CLAWD_HOME": str(home)}
    )
    assert _checks(guarded)["bind"]["level"] == "warn"


def test_remote_cdp_over_plain_http_or_ws_to_another_host_is_flagged(home):
    profiles = [
        ProfileConfig("far", cdp_url="http://10.0.0.42:9222"),
        ProfileConfig("pool", cdp_url="ws://browsers.example:3000?token=x"),
        ProfileConfig("safe", cdp_url="wss://browsers.example/devtools/browser/1"),
        ProfileConfig("near", cdp_url="http://127.0.0.1:9333"),
    ]
    checks = _checks(_config(home), profiles=profiles)
    assert checks["remote cdp far"]["level"] == "warn"
    assert (
        checks["remote cdp pool"]["level"] == "warn"
        and "token" not in checks["remote cdp pool"]["detail"]
    )
    assert checks["remote cdp safe"]["level"] == "ok"
    assert checks["remote cdp near"]["level"] == "ok"


def test_a_managed_port_taken_by_another_program_is_an_error_but_our_own_is_not(home):
    profiles = [
        ProfileConfig("clawd", cdp_port=18800),
        ProfileConfig("work", cdp_port=18801),
        ProfileConfig("attached", cdp_port=18802, attach_only=True),
        ProfileConfig("far", cdp_url="http://127.0.0.1:9"),
    ]
    taken = {18800, 18801, 18802}
    checks = _checks(
        _config(home),
        _probes(port_in_use=taken.__contains__, own_ports=frozenset({18800})),
        profiles=profiles,
    )
    assert checks["port 18800"]["level"] == "ok"
    assert checks["port 18801"]["level"] == "error" and "work" in checks["port 18801"]["detail"]
    assert "port 18802" not in checks  # attach-only: something must listen there
    assert checks["_ok"] is False
