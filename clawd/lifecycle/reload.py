"""Taking a new configuration while serving (daemon.py runs it on SIGHUP): reopen the log file,
read the file again, then apply it whole or refuse it whole, telling systemd either way."""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Callable

from clawd import errors
from clawd import log as clawd_log
from clawd.config.loader import secret_values
from clawd.config.model import Config
from clawd.lifecycle.notify import monotonic_usec
from clawd.server.service import Service, with_allowed_hosts

log = logging.getLogger("clawd.daemon")

# (schema path for the log, dataclass path): what was built at start and waits for a restart
RESTART_ONLY = (
    ("server", "server"),
    ("browser.ssrfPolicy", "browser.ssrf_policy"),
    ("browser.cdpPortRangeStart", "browser.cdp_port_range_start"),
    ("relay", "relay"),  # its listener and profile chrome are made at start
)


class ConfigReload:
    """Reload the running service's configuration (service.config is the one in force)."""

    def __init__(
        self,
        service: Service,
        *,
        load: Callable[[], Config],
        allow_hosts=(),
        notify: Callable[[str], object] = lambda state: None,
    ):
        self.service = service
        self.load = load
        self.allow_hosts = tuple(allow_hosts)
        self.notify = notify

    def __call__(self) -> bool:
        """Reopen the log file, then read the configuration again and apply it, or refuse it
        whole. True when it was applied."""
        self.notify(f"RELOADING=1\nMONOTONIC_USEC={monotonic_usec()}")
        if clawd_log.reopen():
            log.info("SIGHUP: log file reopened")
        try:
            return self._take(*self._read())
        finally:
            self.notify("READY=1")

    def _take(self, new: Config | None, problems: list[str]) -> bool:
        if problems:
            log.error(
                "SIGHUP: configuration refused, keeping the running one (%d problem(s)):",
                len(problems),
            )
            for problem in problems:
                log.error("  %s", problem)
            self.notify(f"STATUS=serving; reload refused: {len(problems)} problem(s), see the log")
            return False
        self.apply(new)
        self.notify("STATUS=serving; configuration reloaded")
        return True

    def _read(self) -> tuple[Config | None, list[str]]:
        try:
            new = with_allowed_hosts(self.load(), self.allow_hosts)
        except errors.ConfigError as exc:
            return None, [f"{exc.source}: {p}" if exc.source else p for p in exc.problems]
        except Exception as exc:  # a reload must never take the running service down
            log.exception("SIGHUP: reading the configuration failed")
            return None, [f"cannot read the configuration: {exc}"]
        problems = reload_problems(self.service.config, new)
        return (new, []) if not problems else (None, problems)

    def apply(self, new: Config) -> None:
        """Profiles added, removed and changed take effect now; the listening socket, auth and
        the navigation policy were built at start, so changes to them wait for a restart."""
        old, service = self.service.config, self.service
        for key in restart_only_changes(old, new):
            log.warning("SIGHUP: %s changed; that takes effect after a restart", key)
        kept = _keep_restart_only(old, new)
        clawd_log.register_secret(*secret_values(kept))  # new API keys are masked from now on
        service.config = kept
        service.profiles.replace_configured(dict(kept.browser.profiles))
        self._apply_profiles(dict(old.browser.profiles), dict(kept.browser.profiles))
        if _browser_settings(old) != _browser_settings(kept):
            self._forget_idle_runtimes(kept.browser.profiles)
            log.info("SIGHUP: browser settings changed; browsers started from now on use them")
        log.info("SIGHUP: configuration reloaded from %s", new.source or "built-in defaults")

    def _apply_profiles(self, before: dict, after: dict) -> None:
        for name in sorted(set(before) - set(after)):
            self.service.forget_runtime(name)
            log.info("SIGHUP: profile %s removed (its browser, if any, stopped)", name)
        for name in sorted(set(after) - set(before)):
            log.info("SIGHUP: profile %s added", name)
        for name in sorted(n for n in set(before) & set(after) if before[n] != after[n]):
            self.service.forget_runtime(name)
            log.info("SIGHUP: profile %s changed (its browser restarts on next use)", name)

    def _forget_idle_runtimes(self, names) -> None:
        running = {r.profile.name for r in self.service.running_runtimes()}
        for name in names:
            if name not in running:
                self.service.forget_runtime(name)


def loader_for(config: Config) -> Callable[[], Config]:
    """Read the file `config` came from again (built-in defaults when it came from none)."""

    def load() -> Config:
        from clawd.config import loader

        return loader.load_config(path=config.source)

    return load


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
        return [
            f"$.browser.defaultProfile: the running service's default profile is "
            f"{default!r}; changing it needs a restart"
        ]
    return []


def _keep_restart_only(old: Config, new: Config) -> Config:
    """`new`, with what only a restart may change kept as it runs."""
    browser = dataclasses.replace(
        new.browser,
        ssrf_policy=old.browser.ssrf_policy,
        cdp_port_range_start=old.browser.cdp_port_range_start,
    )
    return dataclasses.replace(new, server=old.server, browser=browser, relay=old.relay)


def _browser_settings(config: Config):
    return dataclasses.replace(config.browser, profiles={})
