"""daemon.py and log.py without a subprocess: sd_notify over a real datagram socket, the journal
and file log handlers, a reload that is refused or applied, and requests served by the daemon's
server through the production request handler."""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import signal
import socket
import struct
import sys
import tempfile
import threading

import pytest
import requests

from clawd import daemon, errors
from clawd import log as clawd_log
from clawd.config.loader import config_from_data
from clawd.config.model import ProfileConfig
from clawd.server.app import ClawdServer, InFlight
from clawd.server.handler import Handler
from clawd.server.routing import Router, route
from tests.support.browser import free_port
from tests.support.page_eval import wait_until


@pytest.fixture
def notify_socket():
    directory = tempfile.mkdtemp(prefix="clawd-", dir="/tmp")
    path = os.path.join(directory, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    yield path, sock
    sock.close()
    os.remove(path)
    os.rmdir(directory)


def test_sd_notify_sends_one_datagram_to_notify_socket(notify_socket):
    path, sock = notify_socket
    assert daemon.sd_notify("READY=1\nSTATUS=serving", {"NOTIFY_SOCKET": path}) is True
    assert sock.recv(4096) == b"READY=1\nSTATUS=serving"


def test_sd_notify_reaches_an_abstract_socket():
    name = f"clawd-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        sock.settimeout(5)
        assert daemon.sd_notify("STOPPING=1", {"NOTIFY_SOCKET": "@" + name}) is True
        assert sock.recv(4096) == b"STOPPING=1"


def test_sd_notify_without_systemd_or_with_a_dead_socket_does_nothing(tmp_path, caplog):
    assert daemon.sd_notify("READY=1", {}) is False
    assert daemon.sd_notify("READY=1", {"NOTIFY_SOCKET": str(tmp_path / "gone")}) is False
    assert "sd_notify" in caplog.text


def _config(tmp_path, port=None, **browser):
    return config_from_data(
        {"server": {"port": port or free_port()}, "browser": browser},
        env={"CLAWD_HOME": str(tmp_path)},
    )


def test_reload_refuses_an_invalid_config_keeps_the_old_and_tells_systemd(
    tmp_path, notify_socket, caplog
):
    path, sock = notify_socket
    config = _config(tmp_path)

    def load():
        raise errors.ConfigError(
            ["$.server.port: 70000 is greater than the maximum of 65535", "$: unknown key 'bogus'"],
            source="/etc/clawd/clawd.yaml",
        )

    d = daemon.Daemon(config, load=load, env={"NOTIFY_SOCKET": path})
    d.build()
    try:
        with caplog.at_level(logging.INFO):
            assert d.reload() is False
        assert d.config is config
        assert (
            "/etc/clawd/clawd.yaml: $.server.port: 70000 is greater than the maximum of 65535"
            in caplog.text
        )
        assert "$: unknown key 'bogus'" in caplog.text
        messages = [sock.recv(4096).decode() for _ in range(3)]
        assert messages[0].startswith("RELOADING=1\nMONOTONIC_USEC=")
        assert "reload refused: 2 problem(s)" in messages[1]
        assert messages[2] == "READY=1"
    finally:
        d.server.server_close()


def test_reload_applies_added_removed_and_changed_profiles(tmp_path):
    old = _config(tmp_path, profiles={"clawd": {"cdpPort": 18801}, "gone": {"cdpPort": 18802}})
    new = _config(tmp_path, profiles={"clawd": {"cdpPort": 18805}, "work": {"cdpPort": 18803}})
    d = daemon.Daemon(old, load=lambda: new, env={})
    d.build()
    try:
        assert d.reload() is True
        assert d.service.profiles.names() == ["clawd", "work", "user"]
        assert d.service.profiles.get("clawd").cdp_port == 18805
        assert d.service.config.browser.profiles["work"] == ProfileConfig("work", cdp_port=18803)
    finally:
        d.server.server_close()


def test_reload_keeps_what_needs_a_restart_and_refuses_a_new_default_profile(tmp_path, caplog):
    old = _config(tmp_path)
    moved = dataclasses.replace(
        old, server=dataclasses.replace(old.server, port=old.server.port + 1)
    )
    d = daemon.Daemon(old, load=lambda: moved, env={})
    d.build()
    try:
        with caplog.at_level(logging.WARNING):
            assert d.reload() is True
        assert d.service.config.server.port == old.server.port
        assert "server changed; that takes effect after a restart" in caplog.text
        other = _config(tmp_path, defaultProfile="work", profiles={"work": {}})
        d._load = lambda: other
        assert d.reload() is False
        assert d.service.profiles.default_name == "clawd"
    finally:
        d.server.server_close()


def test_reload_keeps_the_relay_as_it_started(tmp_path, caplog):
    old = _config(tmp_path)
    relayed = dataclasses.replace(old, relay=dataclasses.replace(old.relay, enabled=True))
    d = daemon.Daemon(old, load=lambda: relayed, env={})
    d.build()
    try:
        with caplog.at_level(logging.WARNING):
            assert d.reload() is True
        assert d.service.config.relay.enabled is False and d.service.relay is None
        assert "relay changed; that takes effect after a restart" in caplog.text
        assert "chrome" not in d.service.profiles.names()
    finally:
        d.server.server_close()


def test_in_flight_waits_for_requests_and_names_the_stragglers():
    in_flight = InFlight()
    assert in_flight.wait_idle(0.01)
    key = in_flight.add("POST /navigate")
    assert not in_flight.wait_idle(0.05)
    assert in_flight.describe() == ["POST /navigate"]
    in_flight.remove(key)
    assert in_flight.wait_idle(0.01)


def test_file_log_is_reopened_at_its_path_after_a_rename(tmp_path):
    path = tmp_path / "clawd.log"
    clawd_log.configure("info", str(path))
    try:
        logging.getLogger("clawd.test").info("before")
        path.rename(tmp_path / "clawd.log.1")
        assert clawd_log.reopen() is True
        logging.getLogger("clawd.test").info("after")
        logging.getLogger("clawd.test").debug("not at info level")
    finally:
        clawd_log.configure("info", None)
    assert "before" in (tmp_path / "clawd.log.1").read_text()
    assert path.read_text().endswith("INFO clawd.test: after\n")


def test_stderr_log_has_journal_priorities_only_when_stderr_is_the_journal(tmp_path):
    with open(tmp_path / "stream", "w+") as stream:
        st = os.fstat(stream.fileno())
        journal = {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"}
        assert clawd_log.under_journald(journal, stream)
        assert not clawd_log.under_journald(
            {"JOURNAL_STREAM": "1:2"}, stream
        )  # inherited, redirected
        assert not clawd_log.under_journald({}, stream)
        handler = clawd_log.configure("debug", None, env=journal, stream=stream)
        try:
            logging.getLogger("clawd.test").warning("disk\nfull")
            logging.getLogger("clawd.test").debug("detail")
        finally:
            clawd_log.configure("info", None, stream=sys.stderr)
        stream.seek(0)
        assert stream.read() == "<4>clawd.test: disk\n  full\n<7>clawd.test: detail\n"
        assert isinstance(handler.formatter, clawd_log.JournalFormatter)


def test_shutdown_answers_a_request_stuck_past_the_budget_with_503_shutting_down(tmp_path, caplog):
    stuck, release = threading.Event(), threading.Event()

    def blocking(_request):
        stuck.set()
        release.wait(30)  # a wait that stopping the browsers does not end
        return {"ok": True}

    d = daemon.Daemon(_config(tmp_path), env={})
    d.build()
    d.server.router = Router([route("GET", "/block", blocking)])
    d.shutdown_budget, d.drain_s = 3.0, 0.2
    gave_up = []
    d.give_up = lambda *args: gave_up.append(args)
    serving = threading.Thread(target=d.serve, daemon=True)
    serving.start()
    url = f"http://127.0.0.1:{d.server.port}/block"
    headers = {"Authorization": f"Bearer {d.service.auth.token}"}
    answer = {}
    client = threading.Thread(
        target=lambda: answer.update(r=requests.get(url, headers=headers, timeout=20))
    )
    client.start()
    try:
        assert stuck.wait(10)
        d.signals.put(signal.SIGTERM)
        client.join(10)
        serving.join(10)
        assert not serving.is_alive()
    finally:
        release.set()
    assert answer["r"].status_code == 503
    assert answer["r"].json()["code"] == "SHUTTING_DOWN"
    assert gave_up == []
    assert "GET /block did not finish in time: answered 503 SHUTTING_DOWN" in caplog.text


@contextlib.contextmanager
def _serving(tmp_path, routes=()):
    """A built daemon whose server answers `routes` on a thread (no signals, no shutdown)."""
    d = daemon.Daemon(_config(tmp_path), env={})
    d.build()
    if routes:
        d.server.router = Router(list(routes))
    threading.Thread(
        target=d.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    try:
        yield d
    finally:
        d.server.shutdown()
        d.server.server_close()


def test_the_daemon_serves_requests_through_the_production_handler(tmp_path):
    seen = []

    def endpoint(_request):
        seen.extend(type(running) for running in d.server.in_flight.requests())
        return {"ok": True}

    with _serving(tmp_path, [route("GET", "/seen", endpoint)]) as d:
        answer = requests.get(
            f"http://127.0.0.1:{d.server.port}/seen",
            timeout=10,
            headers={"Authorization": f"Bearer {d.service.auth.token}"},
        )
    assert answer.status_code == 200 and seen == [Handler]
    assert type(d.server) is ClawdServer and d.server.RequestHandlerClass is Handler


def test_the_daemon_answers_a_malformed_request_line_with_400(tmp_path):
    with (
        _serving(tmp_path) as d,
        socket.create_connection(("127.0.0.1", d.server.port), timeout=10) as sock,
    ):
        sock.sendall(b"GET / HTTP/2.0\r\n\r\n")
        head = sock.makefile("rb").readline()
    assert head.startswith(b"HTTP/1.1 400 ")


def test_a_draining_server_answers_a_kept_alive_connection_once_more_then_closes_it(tmp_path):
    with (
        _serving(tmp_path, [route("GET", "/ok", lambda _request: {"ok": True})]) as d,
        requests.Session() as session,
    ):
        session.headers["Authorization"] = f"Bearer {d.service.auth.token}"
        url = f"http://127.0.0.1:{d.server.port}/ok"
        first = session.get(url, timeout=10)
        d.server.draining.set()
        last = session.get(url, timeout=10)
    assert "Connection" not in first.headers
    assert last.status_code == 200 and last.headers["Connection"] == "close"


def test_a_client_that_resets_its_connection_is_logged_at_debug_not_printed(
    tmp_path, caplog, capfd
):
    """A peer gone between keep-alive requests (a reset while the server reads the next request
    line) is normal: socketserver would print its traceback on stderr; clawd logs one debug line."""
    caplog.set_level(logging.DEBUG, logger="clawd.server")
    with _serving(tmp_path) as d:
        sock = socket.create_connection(("127.0.0.1", d.server.port), timeout=10)
        sock.sendall(b"GET /heal")  # half a request line: the server waits in readline
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.close()  # linger 0: the close is a reset
        wait_until(
            lambda: "ended: ConnectionResetError" in caplog.text,
            message=lambda: f"the reset in the log ({caplog.text!r})",
        )
    assert "Traceback" not in capfd.readouterr().err
    assert [r.levelno for r in caplog.records if "ended:" in r.getMessage()] == [logging.DEBUG]


def test_any_other_connection_error_is_logged_with_its_traceback(caplog):
    logger = logging.getLogger("clawd.test-connection")
    try:
        raise ValueError("bad framing")
    except ValueError:
        clawd_log.connection_error(logger, ("127.0.0.1", 5))
    (record,) = caplog.records
    assert record.levelno == logging.ERROR and record.exc_info[0] is ValueError
    assert record.getMessage() == "connection from ('127.0.0.1', 5) failed"
