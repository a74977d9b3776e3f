"""`clawd-browser doctor` without a service, and against a real in-process one."""

from __future__ import annotations

import io
import json

import pytest

from clawd.cli.main import main
from tests.support import browser as support
from tests.support.cli import isolate_env, run_cli
from tests.support.service import RunningService


@pytest.fixture
def env(monkeypatch, tmp_path):
    home = isolate_env(monkeypatch, tmp_path)
    fake = tmp_path / "fake-chromium"
    fake.write_text("#!/bin/sh\necho 'Chromium 999.0.0.1'\n")
    fake.chmod(0o755)
    config = tmp_path / "clawd.yaml"
    config.write_text(
        f"server: {{port: {support.free_port()}}}\nbrowser:\n  executablePath: {fake}\n"
        "  headless: true\n  noSandbox: false\n"
    )
    monkeypatch.setenv("CLAWD_CONFIG", str(config))
    return {"home": home, "config": config, "fake": fake, "tmp": tmp_path}


def doctor(*extra: str) -> tuple[int, dict]:
    status, out, _ = run_cli(*extra, "--json", "doctor")
    answer = json.loads(out)
    return status, {c["name"]: c for c in answer["checks"]}


def test_without_a_service_a_sound_setup_passes_with_warnings_only(env):
    status, checks = doctor()
    assert status == 0
    assert (
        checks["chromium"]["level"] == "ok" and "Chromium 999.0.0.1" in checks["chromium"]["detail"]
    )
    assert checks["config"]["level"] == "ok" and str(env["config"]) in checks["config"]["detail"]
    assert (
        checks["state dir"]["level"] == "ok" and "will be created" in checks["state dir"]["detail"]
    )
    assert checks["auth"]["level"] == "warn"
    assert checks["service"]["level"] == "warn" and "not running" in checks["service"]["detail"]


def test_a_missing_chromium_fails_with_exit_status_1(env):
    env["config"].write_text(f"browser: {{executablePath: {env['tmp'] / 'nope'}}}\n")
    status, checks = doctor()
    assert status == 1
    assert (
        checks["chromium"]["level"] == "error"
        and "browser.executablePath" in checks["chromium"]["detail"]
    )


def test_an_invalid_config_fails_and_names_the_problem(env):
    env["config"].write_text("server: {port: 70000}\n")
    status, checks = doctor()
    assert status == 1
    assert "$.server.port: 70000 is greater than the maximum of 65535" in checks["config"]["detail"]


def test_a_world_writable_state_dir_fails_and_a_group_readable_one_warns(env):
    home = env["home"]
    home.mkdir()
    home.chmod(0o777)
    assert doctor()[1]["state dir"]["level"] == "error"
    home.chmod(0o750)
    assert doctor()[1]["state dir"]["level"] == "warn"
    home.chmod(0o700)
    assert doctor()[1]["state dir"]["level"] == "ok"


def test_an_auth_token_readable_by_others_fails(env):
    home = env["home"]
    home.mkdir(mode=0o700)
    token = home / "auth-token"
    token.write_text("abc\n")
    token.chmod(0o644)
    status, checks = doctor()
    assert (
        status == 1
        and checks["auth"]["level"] == "error"
        and "chmod 600" in checks["auth"]["detail"]
    )
    token.chmod(0o600)
    assert doctor()[1]["auth"]["level"] == "ok"


def test_a_running_service_is_reached_with_the_token_it_wrote(env, tmp_path):
    config = support.service_config(env["home"])
    service = RunningService(config)
    try:
        status, checks = doctor("--url", service.url)
        assert checks["service"]["level"] == "ok", checks["service"]
        assert service.url in checks["service"]["detail"]
        status, checks = doctor("--url", service.url, "--token=wrong")
        assert status == 1 and checks["service"]["level"] == "error"
    finally:
        service.close()


def test_human_output_marks_each_check(env):
    out = io.StringIO()
    main(["doctor"], stdout=out, stderr=io.StringIO())
    lines = out.getvalue().splitlines()
    assert lines[0].startswith("[ok]   config: ")
    assert any(line.startswith("[warn] service: not running") for line in lines)
