"""Credentials never reach the log, at any level: a real relay handshake logged at debug (websockets
prints request lines, headers and frames), records whose arguments and tracebacks carry secrets,
and log files readable by their owner only, new, reopened after rotation, or found wider."""

from __future__ import annotations

import io
import json
import logging
import os
import secrets

import pytest
import requests
import websocket

from clawd import log as clawd_log
from clawd.cdp.connection import Connection
from clawd.relay import package
from clawd.relay.server import RelayServer

TOKEN = secrets.token_urlsafe(32)


@pytest.fixture
def restore_logging(monkeypatch):
    """configure() replaces the root handlers (pytest's among them): put them back after."""
    root = logging.getLogger()
    saved, level = list(root.handlers), root.level
    monkeypatch.setattr(clawd_log, "_secrets", (), raising=False)
    yield
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.handlers[:] = saved
    root.setLevel(level)


@pytest.fixture
def umask_022():
    old = os.umask(0o022)  # the usual umask, under which a plain open() makes a 0644 file
    yield
    os.umask(old)


def _flush() -> None:
    for handler in logging.getLogger().handlers:
        handler.flush()


def _mode(path) -> int:
    return os.stat(path).st_mode & 0o777


def _leaks(text: str, *values: str) -> list[str]:
    """Each value, or its first 8 characters, found in `text`."""
    return [v for v in values if v in text or v[:8] in text]


def _hello(relay: RelayServer) -> websocket.WebSocket:
    ws = websocket.create_connection(
        f"ws://127.0.0.1:{relay.port}/extension", origin=package.origin(), timeout=5
    )
    ws.send(json.dumps({"type": "hello", "token": TOKEN, "version": "t", "tabs": []}))
    assert json.loads(ws.recv()) == {"type": "welcome"}
    return ws


# -- the relay at debug ----------------------------------------------------------------------------
def test_a_debug_log_of_the_relay_handshakes_holds_no_token_and_no_devtools_secret(
    tmp_path, restore_logging, umask_022
):
    path = tmp_path / "clawd.log"
    clawd_log.configure("debug", str(path))
    relay = RelayServer(TOKEN, port=0, hello_timeout=5).start()
    extension = None
    try:
        version = requests.get(
            f"http://127.0.0.1:{relay.port}/json/version",
            headers={"Authorization": f"Bearer {TOKEN}"},
            timeout=5,
        )
        assert version.json()["webSocketDebuggerUrl"] == relay.browser_ws_url
        extension = _hello(relay)
        cdp = Connection(relay.browser_ws_url)
        try:
            assert cdp.call("Target.getTargets", timeout=5) == {"targetInfos": []}
        finally:
            cdp.close()
    finally:
        if extension is not None:
            extension.close()
        relay.stop()
    _flush()
    text = path.read_text(encoding="utf-8")
    assert _leaks(text, TOKEN, relay.secret) == []
    # the debug lines were written, masked: the secrets were there to be found
    assert "< Authorization: ***" in text
    assert "GET /devtools/browser/*** HTTP/1.1" in text
    assert '"token": "***' in text
    assert _mode(path) == 0o600


# -- records of every level ------------------------------------------------------------------------
def test_message_arguments_and_tracebacks_are_scrubbed_at_every_level(restore_logging):
    out = io.StringIO()
    clawd_log.configure("warning", None, env={}, stream=out)
    logger = logging.getLogger("clawd.test")
    pool = f"wss://user:{TOKEN}@pool.example/chromium?token={TOKEN}&timeout=60000"
    logger.warning("remote browser at %s refused: %s", pool, {"Authorization": f"Bearer {TOKEN}"})
    try:
        raise ValueError(f"could not open {pool}")
    except ValueError:
        logger.exception("connect failed")
    text = out.getvalue()
    assert _leaks(text, TOKEN) == []
    assert "ValueError: could not open wss://***@pool.example/chromium?token=***" in text
    assert "timeout=60000" in text and "{'Authorization': '***'}" in text


def test_a_registered_secret_is_masked_whole_and_cut_short(restore_logging):
    out = io.StringIO()
    clawd_log.configure("info", None, env={}, stream=out)
    key = "sk-" + secrets.token_hex(20)
    clawd_log.register_secret(key)
    logger = logging.getLogger("clawd.test")
    logger.info("the provider said: %s", f"invalid key {key[:-1]}")
    logger.info("key %s in a shape no pattern knows", key)
    text = out.getvalue()
    assert _leaks(text, key) == [] and text.count("***") == 2


def test_every_secret_of_the_configuration_can_be_registered_and_is_masked(restore_logging):
    from clawd.config.loader import config_from_data, secret_values

    given = {
        "server": {"auth": {"password": "pw-" + secrets.token_hex(8)}},
        "relay": {"token": "relay-" + secrets.token_hex(12)},
        "nodes": {"lab": {"url": "http://10.0.0.5:18791", "token": "node-" + secrets.token_hex(8)}},
        "web": {"search": {"brave": {"apiKey": "brave-" + secrets.token_hex(8)}}},
        "browser": {
            "vision": {"models": [{"provider": "openai", "model": "m", "apiKey": "sk-x" * 4}]}
        },
    }
    config = config_from_data(given, env={})
    values = secret_values(config)
    assert sorted(values) == sorted(
        [
            config.server.auth.password,
            config.relay.token,
            config.nodes["lab"].token,
            config.web.search.brave.api_key,
            "sk-x" * 4,
        ]
    )
    out = io.StringIO()
    clawd_log.configure("info", None, env={}, stream=out)
    clawd_log.register_secret(*values)
    logging.getLogger("clawd.test").info("said %s", " / ".join(values))
    assert _leaks(out.getvalue(), *values) == []


def test_an_ordinary_line_is_left_as_it_was(restore_logging):
    out = io.StringIO()
    clawd_log.configure("info", None, env={}, stream=out)
    line = 'GET /tabs 200 1.2ms profile=clawd tab=t1 {"key": "Enter", "code": "TAB_NOT_FOUND"}'
    logging.getLogger("clawd.access").info("%s", line)
    assert out.getvalue().rstrip("\n").endswith(f"clawd.access: {line}")


# -- the file's mode -------------------------------------------------------------------------------
def test_a_new_log_file_and_the_one_reopened_after_rotation_are_0600(
    tmp_path, restore_logging, umask_022
):
    path = tmp_path / "clawd.log"
    clawd_log.configure("info", str(path))
    logging.getLogger("clawd.test").info("before")
    assert _mode(path) == 0o600
    path.rename(tmp_path / "clawd.log.1")
    assert clawd_log.reopen() is True
    logging.getLogger("clawd.test").info("after")
    _flush()
    assert "after" in path.read_text() and _mode(path) == 0o600


def test_an_existing_log_file_readable_by_others_is_made_0600(tmp_path, restore_logging):
    path = tmp_path / "clawd.log"
    path.write_text("an older clawd's lines\n")
    path.chmod(0o644)
    clawd_log.configure("info", str(path))
    assert _mode(path) == 0o600
    assert path.read_text().startswith("an older clawd's lines\n")  # appended to, not truncated


def test_the_service_registers_its_generated_token_and_the_configurations_secrets(
    restore_logging, tmp_path
):
    """The token generated into $CLAWD_HOME/auth-token is in no config: the service itself has
    to tell the log what to mask, in whatever shape a line carries it."""
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    key = "brave-" + secrets.token_hex(10)
    config = service_config(
        tmp_path / "home", extra={"web": {"search": {"brave": {"apiKey": key}}}}
    )
    running = RunningService(config)
    try:
        token = running.service.auth.token
        out = io.StringIO()
        clawd_log.configure("info", None, env={}, stream=out)
        logging.getLogger("clawd.test").info("shapes no pattern knows: %s|%s", token, key)
        assert token and _leaks(out.getvalue(), token, key) == []
    finally:
        running.close()
