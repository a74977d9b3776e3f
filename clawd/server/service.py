"""The service's state, shared by every request: the config, the state layout, the profile
registry with one BrowserRuntime per profile, the navigation policy, auth and media."""

from __future__ import annotations

import dataclasses
import logging
import threading

from clawd import errors
from clawd import log as clawd_log
from clawd.browser.drivers.attach import AttachDriver
from clawd.browser.drivers.base import Driver
from clawd.browser.drivers.existing import ExistingSessionDriver
from clawd.browser.drivers.managed import ManagedDriver
from clawd.browser.drivers.remote import RemoteDriver
from clawd.browser.profiles import ProfileRegistry
from clawd.browser.runtime import BrowserRuntime
from clawd.config.loader import secret_values
from clawd.config.model import BrowserConfig, Config, ProfileConfig, RelayConfig, StateLayout
from clawd.page.hooks import tab_hooks
from clawd.page.observe.interception import NavigationGuard
from clawd.relay.driver import ExtensionDriver
from clawd.sandbox.driver import SandboxDriver
from clawd.sandbox.tokens import ObserveTokens
from clawd.security.auth import authenticator_for
from clawd.security.csrf import RequestGuard
from clawd.security.proxy import PinningProxy
from clawd.security.ssrf import CachedResolver, NavigationPolicy, system_resolver
from clawd.security.tools import ToolPolicy
from clawd.server.media import MediaStore

log = logging.getLogger("clawd.server")

# how a profile gets its browser, by the name its status shows (browser/drivers/base.py)
DRIVERS: dict[str, type[Driver]] = {
    driver.name: driver
    for driver in (
        ManagedDriver,
        AttachDriver,
        ExistingSessionDriver,
        RemoteDriver,
        SandboxDriver,
        ExtensionDriver,
    )
}


class Service:
    def __init__(self, config: Config, *, resolver=None, extra_hooks: tuple = ()):
        self.config = config
        self.layout = StateLayout(config.home)
        self.layout.ensure()
        self.resolver = resolver or system_resolver
        self.policy = NavigationPolicy(
            config.browser.ssrf_policy, resolver=CachedResolver(self.resolver)
        )
        self.guard = NavigationGuard(self.policy, strict=config.browser.ssrf_policy.strict)
        self.hooks = [*tab_hooks(self.guard, self.layout), *extra_hooks]
        self.auth = authenticator_for(
            config.server.auth.token, config.server.auth.password, self.layout.auth_token
        )
        # the generated token lives in a file, not the config: neither is ever written to a log
        clawd_log.register_secret(self.auth.token, self.auth.password, *secret_values(config))
        self.relay = start_relay(config.relay, self.auth.token)
        self.profiles = ProfileRegistry(config.browser, self.layout, relay=self.relay is not None)
        self.request_guard = RequestGuard([config.server.host])
        self.media = MediaStore(self.layout.media)
        # strict: every request of a managed browser goes through a proxy that pins DNS answers
        self.proxy = (
            PinningProxy(self.policy).start() if config.browser.ssrf_policy.strict else None
        )
        self._runtimes: dict[str, BrowserRuntime] = {}
        self.observe_tokens = ObserveTokens()  # GET /sandbox/observe links (sandbox/tokens.py)
        self._tools = (config.tools, ToolPolicy.from_config(config.tools))
        self._web = None  # the web tier, made on first use (web/ imports trafilatura lazily)
        self._lock = threading.Lock()

    def tool_policy(self) -> ToolPolicy:
        """tools.allow/deny of the configuration in use (a reload may change it)."""
        tools, policy = self._tools
        if tools != self.config.tools:
            self._tools = (self.config.tools, policy := ToolPolicy.from_config(self.config.tools))
        return policy

    def web(self):
        """The web tier (web_fetch, web_search), built again when a reload changed its settings."""
        from clawd.web.tier import WebTier, settings_of

        with self._lock:
            if self._web is None or self._web.source != settings_of(self.config):
                self._web = WebTier(self.config, resolver=self.resolver)
            return self._web

    def runtime(self, name: str | None) -> BrowserRuntime:
        profile = self.profiles.get(name)
        with self._lock:
            runtime = self._runtimes.get(profile.name)
            if runtime is None or (runtime.profile is not profile and runtime.profile != profile):
                if runtime is not None:
                    runtime.stop()
                runtime = BrowserRuntime(
                    profile,
                    self.config.browser,
                    self.layout,
                    self._driver(profile),
                    hooks=self.hooks,
                )
                self._runtimes[profile.name] = runtime
            return runtime

    def _driver(self, profile: ProfileConfig) -> Driver:
        browser = self.config.browser
        return DRIVERS[driver_name(profile, browser)](
            profile,
            browser,
            self.layout,
            launch_args=self.proxy.chromium_args() if self.proxy else (),
            relay=self.relay,
        )

    def running_runtimes(self) -> list[BrowserRuntime]:
        with self._lock:
            return [r for r in self._runtimes.values() if r.running() or r.process is not None]

    def forget_runtime(self, name: str) -> None:
        with self._lock:
            runtime = self._runtimes.pop(name, None)
        if runtime is not None:
            runtime.stop()

    def stop_all(self) -> None:
        with self._lock:
            runtimes = list(self._runtimes.values())
        for runtime in runtimes:
            try:
                runtime.stop()
            except Exception:
                log.exception("stopping profile %s failed", runtime.profile.name)
        if self.proxy is not None:
            self.proxy.stop()
            self.proxy = None
        if self.relay is not None:
            self.relay.stop()
            self.relay = None


def driver_name(profile: ProfileConfig, browser: BrowserConfig) -> str:
    """The profile's driver: its own (a cdpUrl makes it remote), attach-only for a managed
    profile with attachOnly (the profile's flag, else browser.attachOnly)."""
    attach_only = browser.attach_only if profile.attach_only is None else profile.attach_only
    return "attach-only" if profile.kind == "managed" and attach_only else profile.kind


def start_relay(relay: RelayConfig, service_token: str | None):
    """The extension relay when relay.enabled (its token defaults to the service token)."""
    if not relay.enabled:
        return None
    from clawd.relay.server import RelayServer  # websockets is imported only when it is on

    return RelayServer(relay.token or service_token or "", port=relay.port).start()


def with_allowed_hosts(config: Config, hosts) -> Config:
    """`serve --allow-host H`: H joins browser.ssrfPolicy.allowedHostnames for this run."""
    if not hosts:
        return config
    policy = config.browser.ssrf_policy
    merged = tuple(dict.fromkeys([*policy.allowed_hostnames, *hosts]))
    browser = dataclasses.replace(
        config.browser, ssrf_policy=dataclasses.replace(policy, allowed_hostnames=merged)
    )
    return dataclasses.replace(config, browser=browser)


def refuse_unsafe_bind(config: Config) -> None:
    from clawd.security.csrf import is_loopback_host

    auth = config.server.auth
    if not is_loopback_host(config.server.host) and not (auth.token or auth.password):
        raise errors.ConfigError(
            [
                f"$.server.host: {config.server.host} is not loopback; binding it needs "
                "server.auth.token or server.auth.password (or CLAWD_TOKEN)"
            ]
        )
