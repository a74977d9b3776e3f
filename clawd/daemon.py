"""`clawd-browser serve`: run the service in the foreground. The only place signals become
actions: SIGTERM/SIGINT stop it in order (exit 0 within 10 s), SIGHUP reopens the log file and
reloads the configuration. How each is done lives in clawd/lifecycle/ (shutdown, reload, and
sd_notify for systemd's Type=notify)."""

from __future__ import annotations

import errno
import logging
import os
import queue
import signal
import threading
from collections.abc import Callable, Mapping

from clawd import errors
from clawd import log as clawd_log
from clawd.browser.launcher import port_holder
from clawd.config.model import Config
from clawd.lifecycle.notify import sd_notify
from clawd.lifecycle.reload import ConfigReload, loader_for
from clawd.lifecycle.shutdown import DRAIN_S, SHUTDOWN_BUDGET, Shutdown, give_up
from clawd.server.app import ClawdServer
from clawd.server.service import Service, refuse_unsafe_bind, with_allowed_hosts

log = logging.getLogger("clawd.daemon")

_STOP = ("SIGTERM", "SIGINT")
_RELOAD = ("SIGHUP",)


class Daemon:
    """Build the service, serve it on a thread, and turn signals (queued by their handlers, acted
    on by the main thread) into stop and reload."""

    def __init__(
        self,
        config: Config,
        *,
        load: Callable[[], Config] | None = None,
        allow_hosts=(),
        env: Mapping[str, str] | None = None,
    ):
        self.allow_hosts = tuple(allow_hosts or ())
        self._config = with_allowed_hosts(config, self.allow_hosts)
        self._load = load or loader_for(config)
        self.env = os.environ if env is None else env
        self.signals: queue.SimpleQueue = queue.SimpleQueue()  # safe to put() from a handler
        self.server: ClawdServer | None = None
        self.service: Service | None = None
        # the shutdown's clock: seams for tests, which cannot wait 10 s nor survive os._exit
        self.shutdown_budget, self.drain_s, self.give_up = SHUTDOWN_BUDGET, DRAIN_S, give_up

    @property
    def config(self) -> Config:
        """The configuration in force: the running service's once built (a reload changes it)."""
        return self.service.config if self.service is not None else self._config

    def notify(self, state: str) -> bool:
        return sd_notify(state, self.env)

    def build(self) -> ClawdServer:
        refuse_unsafe_bind(self._config)
        self.service = Service(self._config)
        self.server = ClawdServer(self.service, self._config.server.host, self._config.server.port)
        return self.server

    def serve(self) -> int:
        server = self.server or self.build()
        threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.2}, name="http", daemon=True
        ).start()
        log.info(
            "clawd listening on http://%s:%d (config: %s, state: %s)",
            self.config.server.host,
            server.port,
            self.config.source or "built-in defaults",
            self.config.home,
        )
        self.notify(f"READY=1\nSTATUS=serving on port {server.port}\nMAINPID={os.getpid()}")
        while self._act_on(self._next_signal()):
            pass
        return self.shutdown()

    def reload(self) -> bool:
        """SIGHUP: reopen the log file, then take the configuration again or refuse it whole."""
        return ConfigReload(
            self.service, load=self._load, allow_hosts=self.allow_hosts, notify=self.notify
        )()

    def shutdown(self) -> int:
        """SIGTERM/SIGINT: stop in order within the budget; the exit status."""
        return Shutdown(
            self.server,
            self.service,
            notify=self.notify,
            budget=self.shutdown_budget,
            drain_s=self.drain_s,
            past_budget=self.give_up,
        )()

    # -- signals --------------------------------------------------------------------------------
    def install_signals(self) -> None:
        for name in _STOP + _RELOAD:
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), self._queue_signal)

    def _queue_signal(self, signum, _frame) -> None:
        self.signals.put(signum)  # the main thread acts: a handler must not take locks

    def _next_signal(self) -> int:
        while True:
            try:
                return self.signals.get(timeout=1.0)
            except queue.Empty:
                continue

    def _act_on(self, signum: int) -> bool:
        """Act on one signal; False when it asks the service to stop."""
        name = signal.Signals(signum).name
        if name in _RELOAD:
            self.reload()
            return True
        log.info("%s: shutting down", name)
        return False


# -- entry point --------------------------------------------------------------------------------
def run(
    config: Config,
    *,
    load: Callable[[], Config] | None = None,
    allow_hosts=(),
    log_level: str | None = "info",
    log_file: str | None = None,
) -> int:
    clawd_log.configure(log_level, log_file)
    daemon = Daemon(config, load=load, allow_hosts=allow_hosts)
    try:
        daemon.build()
    except errors.ConfigError as exc:
        for problem in exc.problems:
            log.error("%s", problem)
        return 1
    except OSError as exc:
        log.error("%s", cannot_listen(config, exc))
        return 1
    daemon.install_signals()
    return daemon.serve()


def cannot_listen(config: Config, exc: OSError) -> str:
    """Why serve cannot start, and the key to change. A taken port is not swapped for the next
    free one: clients find the service at server.port and send their token to whatever listens
    there, so a silent move would leave them talking to the other program."""
    where = f"{config.server.host}:{config.server.port}"
    if exc.errno != errno.EADDRINUSE:
        return f"cannot listen on {where}: {exc}"
    return (
        f"cannot listen on {where}: the port is already in use by "
        f"{port_holder(config.server.port)} (another clawd, perhaps another user's); set "
        f"server.port in {config.source or 'the config file'} (or serve --port PORT) to a free "
        f"port, and point clients at it"
    )
