"""GET /doctor on a running service: its own Chromium's port is not "another program", the state
directory and token it created pass, evaluate is flagged; and `clawd-browser doctor` shows it."""

from __future__ import annotations

import json
import socket

from tests.support.browser import service_config
from tests.support.cli import cli_of
from tests.support.service import RunningService


def _checks(report: dict) -> dict:
    return {c["name"]: c for c in report["checks"]}


def test_get_doctor_reports_every_check_with_a_level(client):
    client.start()
    report = client.request("GET", "/doctor")
    checks = _checks(report)
    for check in report["checks"]:
        assert set(check) == {"name", "ok", "level", "detail"} and check["level"] in (
            "ok",
            "warn",
            "error",
        )
    assert checks["chromium"]["level"] == "ok" and "Chromium" in checks["chromium"]["detail"]
    assert checks["state dir"]["level"] == "ok"
    assert checks["auth"]["level"] == "ok" and "auth-token" in checks["auth"]["detail"]
    assert checks["bind"]["level"] == "ok"
    assert checks["evaluate"]["level"] == "warn"
    ports = [c for name, c in checks.items() if name.startswith("port ")]
    assert ports and all(c["level"] == "ok" for c in ports), ports  # our own Chromium holds it
    assert report["ok"] is True


def test_a_cdp_port_held_by_another_program_is_an_error(tmp_path):
    squatter = socket.socket()
    squatter.bind(("127.0.0.1", 0))
    squatter.listen(1)
    port = squatter.getsockname()[1]
    running = RunningService(service_config(tmp_path / "home", cdp_port=port))
    try:
        report = running.client().request("GET", "/doctor")
        assert _checks(report)[f"port {port}"]["level"] == "error"
        assert report["ok"] is False
    finally:
        running.close()
        squatter.close()


def test_the_cli_doctor_shows_the_services_report(service, client, monkeypatch):
    client.start()
    monkeypatch.setenv("CLAWD_HOME", str(service.config.home))
    for variable in ("CLAWD_CONFIG", "CLAWD_PASSWORD"):
        monkeypatch.delenv(variable, raising=False)
    _, out, _ = cli_of(service, "--json", "doctor")
    names = {c["name"]: c for c in json.loads(out)["checks"]}
    assert names["service: evaluate"]["level"] == "warn"
    assert names["service: chromium"]["level"] == "ok"
