"""A second clawd on the same machine (another user, another CLAWD_HOME; issue 36): its default
profile's DevTools port taken by the first one's browser, its HTTP port perhaps too."""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys

import pytest
import yaml

from tests.support.browser import require_chromium, service_config
from tests.support.service import RunningService


@pytest.fixture
def taken():
    """A port some other program listens on (the first service's Chromium, say)."""
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        yield holder.getsockname()[1]


def test_a_second_service_starts_its_browser_on_the_next_free_port(tmp_path, taken, caplog):
    require_chromium()
    config = service_config(
        tmp_path / "second",
        extra={"browser": {"cdpPortRangeStart": taken, "profiles": {"clawd": {}}}},
    )
    with caplog.at_level(logging.WARNING, logger="clawd.browser"):
        running = RunningService(config)
    try:
        client = running.client()
        assert client.start()["running"] is True
        port = client.status()["cdpPort"]
        assert port != taken and taken < port < taken + 100
        assert "browser.profiles.clawd.cdpPort" in caplog.text
    finally:
        running.close()


def test_serve_on_a_taken_port_exits_1_naming_the_key_to_set(tmp_path, taken):
    config = tmp_path / "clawd.yaml"
    config.write_text(yaml.safe_dump({"server": {"host": "127.0.0.1", "port": taken}}))
    env = dict(os.environ, CLAWD_HOME=str(tmp_path / "home"), CLAWD_CONFIG=str(config))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from clawd.cli.main import main; sys.exit(main())",
            "serve",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1, done
    assert f"127.0.0.1:{taken}" in done.stderr and "already in use" in done.stderr
    assert "set server.port" in done.stderr and str(config) in done.stderr
