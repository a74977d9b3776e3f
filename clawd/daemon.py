"""`clawd-browser serve`: run the service in the foreground. The only place signals become
actions: SIGTERM/SIGINT stop it in order (exit 0 within 10 s), SIGHUP reopens the log.
Tells systemd it is ready through $NOTIFY_SOCKET (Type=notify) without any dependency."""
from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time

from clawd import errors, log as clawd_log
from clawd.config.model import Config
from clawd.server.app import ClawdServer
from clawd.server.service import Service, refuse_unsafe_bind, with_allowed_hosts

log = logging.getLogger("clawd.daemon")

SHUTDOWN_BUDGET = 10.0


def sd_notify(state: str, env=os.environ) -> bool:
    address = env.get("NOTIFY_SOCKET")
    if not address:
        return False
    if address.startswith("@"):
        address = "\0" + address[1:]   # an abstract socket
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
            sock.connect(address)
            sock.sendall(state.encode())
        return True
    except OSError as exc:
        log.warning("sd_notify failed: %s", exc)
        return False


class Daemon:
    def __init__(self, config: Config, *, allow_hosts=(), log_level: str = "info", log_file: str | None = None):
        self.config = with_allowed_hosts(config, allow_hosts)
        self.log_level, self.log_file = log_level, log_file
        self.stopping = threading.Event()
        self.server: ClawdServer | None = None
        self.service: Service | None = None

    def build(self) -> ClawdServer:
        refuse_unsafe_bind(self.config)
        self.service = Service(self.config)
        self.server = ClawdServer(self.service, self.config.server.host, self.config.server.port)
        return self.server

    def serve(self) -> int:
        server = self.server or self.build()
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                  name="http", daemon=True)
        thread.start()
        log.info("clawd listening on http://%s:%d (config: %s)", self.config.server.host, server.port,
                 self.config.source or "built-in defaults")
        sd_notify("READY=1\nSTATUS=serving")
        self.stopping.wait()
        self.shutdown()
        return 0

    def request_stop(self, *_args) -> None:
        self.stopping.set()

    def shutdown(self) -> None:
        began = time.monotonic()
        sd_notify("STOPPING=1")
        server, service = self.server, self.service
        if server is not None:
            server.shutdown()          # no new requests; in-flight ones go on in their threads
        if service is not None:
            service.stop_all()         # pending CDP calls of in-flight requests fail with a code
        if server is not None:
            server.server_close()
        log.info("clawd stopped in %.1f s", time.monotonic() - began)

    def install_signals(self) -> None:
        signal.signal(signal.SIGTERM, self.request_stop)
        signal.signal(signal.SIGINT, self.request_stop)
        if hasattr(signal, "SIGHUP"):
            signal.signal(signal.SIGHUP, lambda *_: clawd_log.reopen(self.log_level, self.log_file))


def run(config: Config, *, allow_hosts=(), log_level: str = "info", log_file: str | None = None) -> int:
    clawd_log.configure(log_level, log_file)
    daemon = Daemon(config, allow_hosts=allow_hosts, log_level=log_level, log_file=log_file)
    try:
        daemon.build()
    except errors.ConfigError as exc:
        log.error("%s", exc.message)
        return 1
    except OSError as exc:
        log.error("cannot listen on %s:%d: %s", config.server.host, config.server.port, exc)
        return 1
    daemon.install_signals()
    return daemon.serve()
