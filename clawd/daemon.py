"""`clawd-browser serve`: run the service in the foreground. The only place signals become
actions: SIGTERM/SIGINT stop it in order (exit 0 within 10 s), SIGHUP reopens the log file and
reloads the configuration. Talks to systemd (Type=notify) through $NOTIFY_SOCKET, no dependency."""
from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import queue
import signal
import socket
import threading
import time
from typing import Callable, Mapping

from clawd import errors, log as clawd_log
from clawd.config.model import Config
from clawd.server.app import ClawdServer
from clawd.server.handler import Handler
from clawd.server.service import Service, refuse_unsafe_bind, with_allowed_hosts

log = logging.getLogger("clawd.daemon")

SHUTDOWN_BUDGET = 10.0   # the promise: SIGTERM to exit in less than this
DRAIN_S = 4.0            # how long in-flight requests may finish before their browsers are stopped
BROWSER_STOP_S = 4.0     # Browser.close, SIGTERM, SIGKILL after 2.5 s: bounded, run in parallel


# -- systemd ----------------------------------------------------------------------------------------
def sd_notify(state: str, env: Mapping[str, str] | None = None) -> bool:
    """Send `state` (e.g. "READY=1") to systemd's notify socket; False when there is none."""
    env = os.environ if env is None else env
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
        log.warning("sd_notify to %s failed: %s", env.get("NOTIFY_SOCKET"), exc)
        return False


def _monotonic_usec() -> int:
    return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000


# -- requests in flight -----------------------------------------------------------------------------
class InFlight:
    """The requests being handled right now, so shutdown can wait for them and answer the stragglers."""

    def __init__(self):
        self._cond = threading.Condition()
        self._running: dict[int, object] = {}
        self._ids = iter(range(1, 1 << 62))

    @contextlib.contextmanager
    def track(self, request: object):
        with self._cond:
            key = next(self._ids)
            self._running[key] = request
        try:
            yield
        finally:
            with self._cond:
                del self._running[key]
                self._cond.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        with self._cond:
            while self._running:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._cond.wait(left)
            return True

    def requests(self) -> list:
        with self._cond:
            return list(self._running.values())

    def describe(self) -> list[str]:
        return [str(request) for request in self.requests()]


class _TrackedHandler(Handler):
    """Handler whose request is answered exactly once: by its endpoint, or by shutdown when the
    endpoint is stuck in a wait that stopping the browser does not end (the client then gets
    503 SHUTTING_DOWN instead of a dropped connection)."""

    def _handle(self, method: str) -> None:
        self._answer_lock = threading.Lock()
        self._answered = False
        server = self.server
        if server.draining.is_set():
            self.close_connection = True   # answer this one, then let the client go
        with server.in_flight.track(self):
            super()._handle(method)

    def _answer(self, status: int, result) -> None:
        with self._answer_lock:
            if self._answered:
                raise BrokenPipeError("already answered by shutdown")
            self._answered = True
            super()._answer(status, result)

    def answer_shutting_down(self, timeout: float = 0.5) -> bool:
        if not self._answer_lock.acquire(timeout=timeout):
            return False
        try:
            if self._answered:
                return False
            self._answered = True
            self.close_connection = True
            error = errors.ServiceShuttingDown("the service shut down before this request finished")
            super()._answer(error.http_status, error.to_dict())
            return True
        except OSError:
            return False
        finally:
            self._answer_lock.release()

    def __str__(self) -> str:
        return f"{self.command} {self.path}"


class DaemonServer(ClawdServer):
    """ClawdServer that knows which requests are in flight and can stop taking new ones."""

    def __init__(self, service: Service, host: str, port: int):
        super().__init__(service, host, port)
        self.RequestHandlerClass = _TrackedHandler
        self.in_flight = InFlight()
        self.draining = threading.Event()


# -- the daemon -------------------------------------------------------------------------------------
class Daemon:
    """Build the service, serve it on a thread, and turn signals (queued by their handlers, acted
    on by the main thread) into stop and reload."""

    def __init__(self, config: Config, *, load: Callable[[], Config] | None = None, allow_hosts=(),
                 env: Mapping[str, str] | None = None):
        self.allow_hosts = tuple(allow_hosts or ())
        self.config = with_allowed_hosts(config, self.allow_hosts)
        self._load = load or _reloader(config)
        self.env = os.environ if env is None else env
        self.signals: queue.SimpleQueue = queue.SimpleQueue()   # safe to put() from a signal handler
        self.server: DaemonServer | None = None
        self.service: Service | None = None
        # the shutdown's clock: seams for tests, which cannot wait 10 s nor survive os._exit
        self.shutdown_budget, self.drain_s, self.give_up = SHUTDOWN_BUDGET, DRAIN_S, _give_up

    def notify(self, state: str) -> bool:
        return sd_notify(state, self.env)

    def build(self) -> DaemonServer:
        refuse_unsafe_bind(self.config)
        self.service = Service(self.config)
        self.server = DaemonServer(self.service, self.config.server.host, self.config.server.port)
        return self.server

    def serve(self) -> int:
        server = self.server or self.build()
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                                  name="http", daemon=True)
        thread.start()
        log.info("clawd listening on http://%s:%d (config: %s, state: %s)", self.config.server.host,
                 server.port, self.config.source or "built-in defaults", self.config.home)
        self.notify(f"READY=1\nSTATUS=serving on port {server.port}\nMAINPID={os.getpid()}")
        while True:
            try:
                signum = self.signals.get(timeout=1.0)
            except queue.Empty:
                continue
            if signum == getattr(signal, "SIGHUP", None):
                self.reload()
            else:
                log.info("%s: shutting down", signal.Signals(signum).name)
                break
        return self.shutdown()

    # -- SIGHUP ---------------------------------------------------------------------------------
    def reload(self) -> bool:
        """Reopen the log file, then read the configuration again and apply it, or refuse it whole."""
        self.notify(f"RELOADING=1\nMONOTONIC_USEC={_monotonic_usec()}")
        if clawd_log.reopen():
            log.info("SIGHUP: log file reopened")
        try:
            new, problems = self._read_new_config()
            if problems:
                log.error("SIGHUP: configuration refused, keeping the running one (%d problem(s)):", len(problems))
                for problem in problems:
                    log.error("  %s", problem)
                self.notify(f"STATUS=serving; reload refused: {len(problems)} problem(s), see the log")
                return False
            self.apply(new)
            self.notify("STATUS=serving; configuration reloaded")
            return True
        finally:
            self.notify("READY=1")

    def _read_new_config(self) -> tuple[Config | None, list[str]]:
        try:
            new = with_allowed_hosts(self._load(), self.allow_hosts)
        except errors.ConfigError as exc:
            return None, [f"{exc.source}: {p}" if exc.source else p for p in exc.problems]
        except Exception as exc:   # a reload must never take the running service down
            log.exception("SIGHUP: reading the configuration failed")
            return None, [f"cannot read the configuration: {exc}"]
        problems = reload_problems(self.config, new)
        return (new, []) if not problems else (None, problems)

    def apply(self, new: Config) -> None:
        """Profiles added, removed and changed take effect now; the listening socket, auth and the
        navigation policy were built at start, so changes to them wait for a restart."""
        old, service = self.config, self.service
        for key in restart_only_changes(old, new):
            log.warning("SIGHUP: %s changed; that takes effect after a restart", key)
        kept = dataclasses.replace(
            new, server=old.server,
            browser=dataclasses.replace(new.browser, ssrf_policy=old.browser.ssrf_policy,
                                        cdp_port_range_start=old.browser.cdp_port_range_start))
        before, after = dict(old.browser.profiles), dict(kept.browser.profiles)
        service.config = kept
        service.profiles.replace_configured(after)
        for name in sorted(set(before) - set(after)):
            service.forget_runtime(name)
            log.info("SIGHUP: profile %s removed (its browser, if any, stopped)", name)
        for name in sorted(set(after) - set(before)):
            log.info("SIGHUP: profile %s added", name)
        for name in sorted(n for n in set(before) & set(after) if before[n] != after[n]):
            service.forget_runtime(name)
            log.info("SIGHUP: profile %s changed (its browser restarts on next use)", name)
        if _browser_settings(old) != _browser_settings(kept):
            self._forget_idle_runtimes(after)
            log.info("SIGHUP: browser settings changed; browsers started from now on use them")
        self.config = kept
        log.info("SIGHUP: configuration reloaded from %s", new.source or "built-in defaults")

    def _forget_idle_runtimes(self, names) -> None:
        running = {r.profile.name for r in self.service.running_runtimes()}
        for name in names:
            if name not in running:
                self.service.forget_runtime(name)

    # -- SIGTERM --------------------------------------------------------------------------------
    def shutdown(self) -> int:
        """Stop accepting, let requests in flight finish (DRAIN_S), stop the managed browsers (which
        fails the CDP calls still pending, so their requests answer with a code), close."""
        began = time.monotonic()
        self.notify("STOPPING=1\nSTATUS=stopping")
        watchdog = threading.Timer(self.shutdown_budget - 0.5, self.give_up, args=(began, self.shutdown_budget))
        watchdog.daemon = True
        watchdog.start()
        server = self.server
        server.draining.set()
        server.shutdown()            # the accept loop ends
        server.socket.close()        # new connections are refused instead of queueing unanswered
        if not server.in_flight.wait_idle(self.drain_s):
            log.info("stopping the browsers under %d request(s) still running: %s",
                     len(server.in_flight.describe()), ", ".join(server.in_flight.describe()))
        self._stop_browsers()
        left = self.shutdown_budget - 2.0 - (time.monotonic() - began)
        if not server.in_flight.wait_idle(max(left, 0.1)):
            self._answer_stragglers(server)
        server.server_close()
        watchdog.cancel()
        log.info("clawd stopped in %.1f s", time.monotonic() - began)
        return 0

    @staticmethod
    def _answer_stragglers(server: DaemonServer) -> None:
        for request in server.in_flight.requests():
            answered = request.answer_shutting_down()
            log.warning("%s did not finish in time%s", request,
                        ": answered 503 SHUTTING_DOWN" if answered else "")

    def _stop_browsers(self) -> None:
        service = self.service
        names = [r.profile.name for r in service.running_runtimes()]
        threads = [threading.Thread(target=service.forget_runtime, args=(name,), name=f"stop-{name}",
                                    daemon=True) for name in names]
        for thread in threads:
            thread.start()
        deadline = time.monotonic() + BROWSER_STOP_S
        for thread in threads:
            thread.join(max(deadline - time.monotonic(), 0))
        service.stop_all()           # anything not running but holding a process

    # -- signals --------------------------------------------------------------------------------
    def install_signals(self) -> None:
        for name in ("SIGTERM", "SIGINT", "SIGHUP"):
            if hasattr(signal, name):
                signal.signal(getattr(signal, name), self._queue_signal)

    def _queue_signal(self, signum, _frame) -> None:
        self.signals.put(signum)


def _give_up(began: float, budget: float) -> None:
    """The last resort when something hangs past the budget: better a logged exit than a
    SIGKILL from the service manager with nothing said."""
    log.error("shutdown did not finish within %.0f s (%.1f s so far); exiting now",
              budget, time.monotonic() - began)
    logging.shutdown()
    os._exit(1)


# -- what a reload may change -----------------------------------------------------------------------
def _reloader(config: Config) -> Callable[[], Config]:
    def load() -> Config:
        from clawd.config import loader
        return loader.load_config(path=config.source)
    return load


RESTART_ONLY = (("server", "server"), ("browser.ssrfPolicy", "browser.ssrf_policy"),
                ("browser.cdpPortRangeStart", "browser.cdp_port_range_start"))


def _get(config: Config, dotted: str):
    value = config
    for part in dotted.split("."):
        value = getattr(value, part)
    return value


def restart_only_changes(old: Config, new: Config) -> list[str]:
    return [key for key, attr in RESTART_ONLY if _get(old, attr) != _get(new, attr)]


def reload_problems(old: Config, new: Config) -> list[str]:
    """What makes a valid file unusable for a running service."""
    default = old.browser.default_profile
    if new.browser.default_profile != default:
        return [f"$.browser.defaultProfile: the running service's default profile is {default!r}; "
                "changing it needs a restart"]
    return []


def _browser_settings(config: Config) -> Config:
    return dataclasses.replace(config.browser, profiles={})


# -- entry point ------------------------------------------------------------------------------------
def run(config: Config, *, load: Callable[[], Config] | None = None, allow_hosts=(),
        log_level: str | None = "info", log_file: str | None = None) -> int:
    clawd_log.configure(log_level, log_file)
    daemon = Daemon(config, load=load, allow_hosts=allow_hosts)
    try:
        daemon.build()
    except errors.ConfigError as exc:
        for problem in exc.problems:
            log.error("%s", problem)
        return 1
    except OSError as exc:
        log.error("cannot listen on %s:%d: %s", config.server.host, config.server.port, exc)
        return 1
    daemon.install_signals()
    return daemon.serve()
