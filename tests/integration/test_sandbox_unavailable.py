"""A sandbox profile on a machine whose Docker daemon does not answer: 503 SANDBOX_UNAVAILABLE
with the next step, through the service, never a traceback (needs no Docker)."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.sandbox import engine
from tests.support.service import RunningService


def test_a_sandbox_profile_without_a_daemon_answers_503_with_the_next_step(monkeypatch, tmp_path):
    pytest.importorskip("docker")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/absent.sock")
    engine.forget_client()
    data = {"browser": {"profiles": {"clawd": {"cdpPort": 18896}, "box": {"driver": "sandbox"}}}}
    service = RunningService(config_from_data(data, env={"CLAWD_HOME": str(tmp_path / "h")}))
    try:
        with service.client() as c:
            with pytest.raises(errors.SandboxUnavailable) as down:
                c.start(profile="box")
            assert down.value.code == "SANDBOX_UNAVAILABLE"
            assert "dockerd" in str(down.value)
            status = c.status(profile="box")  # status still answers, naming the state
            assert status["sandbox"]["state"] == "unavailable", status
    finally:
        service.close()
        engine.forget_client()
