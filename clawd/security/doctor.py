"""The doctor's checks: pure checks over the config, the state layout and probes passed in (run a
program, is a port taken, our own browsers' ports), so tests hand in fakes. The service runs them
for GET /doctor (diagnose); `clawd-browser doctor` runs the ones that make sense before a start
(clawd/cli/commands/doctor.py). Each check is {name, ok, level: ok|warn|error, detail}; warnings
are risks, errors stop a start."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from clawd import errors
from clawd.browser import trash
from clawd.config.model import Config, ProfileConfig, StateLayout
from clawd.relay import package
from clawd.security.csrf import is_loopback_host

OK, WARN, ERROR = "ok", "warn", "error"
VERSION_TIMEOUT = 10.0


@dataclass
class Check:
    name: str
    level: str
    detail: str

    def as_dict(self) -> dict:
        return {
            "name": self.name,
            "ok": self.level != ERROR,
            "level": self.level,
            "detail": self.detail,
        }


def _port_in_use(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex(("127.0.0.1", port)) == 0


def _find_executable(explicit: str | None) -> str:
    from clawd.browser.executables import find_executable

    return find_executable(explicit)


def _sandbox_checks(profiles, warnings) -> list:
    from clawd.sandbox import doctor

    return doctor.checks(profiles, warnings)


@dataclass
class Probes:
    """The outside world the checks look at; tests replace any of it."""

    run: Callable = subprocess.run
    find_executable: Callable[[str | None], str] = _find_executable
    port_in_use: Callable[[int], bool] = _port_in_use
    euid: int = field(default_factory=lambda: os.geteuid() if hasattr(os, "geteuid") else 1)
    own_ports: frozenset = frozenset()  # cdp ports our own running Chromiums listen on
    sandbox: Callable = field(default_factory=lambda: _sandbox_checks)  # docs/architecture.md
    sandbox_warnings: dict = field(default_factory=dict)  # profile -> kept-stale warning


def diagnose(
    config: Config,
    layout: StateLayout,
    *,
    profiles: Iterable[ProfileConfig] | None = None,
    probes: Probes | None = None,
    relay: dict | None = None,
) -> dict:
    """Every check, and ok=false when any is an error. `relay`: the running relay's status
    (the service passes it; before a start there is none)."""
    probes = probes or Probes()
    profiles = list(config.browser.profiles.values() if profiles is None else profiles)
    checks = [
        check_chromium(config, probes),
        check_state_dir(layout),
        check_auth(config, layout),
        check_bind(config),
        *check_remote_cdp(profiles),
        check_evaluate(config),
        check_sandbox(config, probes),
        *check_ports(config, profiles, probes),
        check_trash(layout),
        *(Check(*c) for c in probes.sandbox(profiles, probes.sandbox_warnings)),
        check_relay(config, relay, probes),
    ]
    return {"ok": all(c.level != ERROR for c in checks), "checks": [c.as_dict() for c in checks]}


# -- the browser --------------------------------------------------------------------------------
def check_chromium(config: Config, probes: Probes) -> Check:
    if not config.browser.enabled:
        return Check("chromium", OK, "browser.enabled is false: no browser is needed")
    try:
        path = probes.find_executable(config.browser.executable_path)
    except errors.ClawdError as exc:
        return Check("chromium", ERROR, exc.message)
    try:
        done = probes.run(
            [path, "--version"], capture_output=True, text=True, timeout=VERSION_TIMEOUT
        )
    except subprocess.TimeoutExpired:
        return Check(
            "chromium", ERROR, f"{path} --version did not answer within {VERSION_TIMEOUT:.0f} s"
        )
    except OSError as exc:
        return Check("chromium", ERROR, f"{path} does not run: {exc.strerror or exc}")
    if done.returncode != 0:
        return Check(
            "chromium",
            ERROR,
            f"{path} --version exited {done.returncode}: {(done.stderr or '').strip()[-300:]}",
        )
    version = ((done.stdout or "").strip().splitlines() or ["(no version printed)"])[0]
    return Check("chromium", OK, f"{version.strip()} at {path}")


def check_sandbox(config: Config, probes: Probes) -> Check:
    from clawd.browser.launcher import resolve_no_sandbox

    setting = config.browser.no_sandbox
    if not resolve_no_sandbox(setting, euid=probes.euid):
        return Check("sandbox", OK, f"Chromium keeps its sandbox (browser.noSandbox: {setting})")
    why = "running as root" if setting == "auto" else "browser.noSandbox is true"
    return Check(
        "sandbox",
        WARN,
        f"Chromium runs with --no-sandbox ({why}): a renderer exploit reaches "
        "this user's files; run the service as an unprivileged user",
    )


def check_evaluate(config: Config) -> Check:
    if not config.browser.evaluate_enabled:
        return Check(
            "evaluate",
            OK,
            "browser.evaluateEnabled is false: agents cannot run JavaScript in pages",
        )
    return Check(
        "evaluate",
        WARN,
        "browser.evaluateEnabled is true: an agent (or a page that steers it) can "
        "run arbitrary JavaScript in any open page; set it false if not needed",
    )


def check_relay(config: Config, status: dict | None, probes: Probes) -> Check:
    """The extension relay (profile chrome): is the extension connected, how many tabs shared."""
    relay = config.relay
    if not relay.enabled:
        return Check("relay", OK, "relay.enabled is false: profile chrome (your own Chrome) is off")
    if status is None:
        if relay.port and probes.port_in_use(relay.port):
            return Check("relay", ERROR, f"relay.port {relay.port} is taken by another program")
        return Check("relay", OK, f"the relay will listen on 127.0.0.1:{relay.port}")
    if not status.get("connected"):
        return Check(
            "relay",
            WARN,
            f"no clawd extension is connected to 127.0.0.1:{status.get('port')}: load it "
            "unpacked (clawd-browser extension path) and pair it in its options page",
        )
    connected = status.get("extensionVersion") or ""
    shipped = package.manifest().get("version", "")
    if _older(connected, shipped):
        return Check(
            "relay",
            WARN,
            f"the connected clawd extension is {connected}, older than the {shipped} clawd ships: "
            "reload it (chrome://extensions) so an act sees the windows a shared tab opens",
        )
    return Check(
        "relay",
        OK,
        f"the clawd extension {connected} is connected; "
        f"{status.get('sharedTabs', 0)} tab(s) shared",
    )


def _older(version: str, than: str) -> bool:
    """Whether dotted `version` is before `than` (an unreadable one is not)."""
    try:
        return tuple(map(int, version.split("."))) < tuple(map(int, than.split(".")))
    except ValueError:
        return False


# -- state and credentials ----------------------------------------------------------------------
def check_state_dir(layout: StateLayout) -> Check:
    """$CLAWD_HOME: there (or creatable), a directory, ours, writable by us and by nobody else."""
    euid = os.geteuid()
    home = layout.home
    try:
        st = home.stat()
    except FileNotFoundError:
        parent = next((p for p in home.parents if p.exists()), None)
        if parent is None or not os.access(parent, os.W_OK | os.X_OK):
            return Check("state dir", ERROR, f"{home} does not exist and {parent} is not writable")
        return Check("state dir", OK, f"{home} will be created (mode 0700) on first start")
    except OSError as exc:
        return Check("state dir", ERROR, f"{home}: {exc.strerror}")
    if not stat.S_ISDIR(st.st_mode):
        return Check("state dir", ERROR, f"{home} is not a directory")
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return Check(
            "state dir",
            ERROR,
            f"{home} is writable by group or others (mode {_mode(st)}); it holds "
            f"the auth token and browser profiles: chmod 700 {home}",
        )
    if not os.access(home, os.W_OK | os.X_OK):
        return Check("state dir", ERROR, f"{home} is not writable by this user (uid {euid})")
    if st.st_uid != euid:
        return Check(
            "state dir", WARN, f"{home} belongs to uid {st.st_uid}, not to this user (uid {euid})"
        )
    if st.st_mode & 0o077:
        return Check(
            "state dir",
            WARN,
            f"{home} (mode {_mode(st)}) is readable by group or others: chmod 700 {home}",
        )
    return Check("state dir", OK, f"{home} (mode {_mode(st)})")


def check_auth(config: Config, layout: StateLayout, *, before_start: bool = False) -> Check:
    """A configured credential, or the generated token file: present (the service writes it on
    its first start), 0600, not empty."""
    auth = config.server.auth
    if auth.token or auth.password:
        which = " and ".join(
            k for k, v in (("token", auth.token), ("password", auth.password)) if v
        )
        return Check(
            "auth", OK, f"server.auth {which} configured (or from CLAWD_TOKEN/CLAWD_PASSWORD)"
        )
    path = layout.auth_token
    try:
        st = path.stat()
    except FileNotFoundError:
        if before_start:
            return Check(
                "auth", WARN, f"no token yet: the service writes {path} on its first start"
            )
        return Check(
            "auth", ERROR, f"no credential: server.auth is empty and {path} does not exist"
        )
    except OSError as exc:
        return Check("auth", ERROR, f"{path}: {exc.strerror}")
    if stat.S_IMODE(st.st_mode) & 0o077:
        return Check(
            "auth", ERROR, f"{path} is open to group or others (mode {_mode(st)}): chmod 600 {path}"
        )
    try:
        empty = not path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as exc:
        return Check("auth", ERROR, f"{path} cannot be read: {exc.strerror}")
    if empty:
        return Check("auth", ERROR, f"{path} is empty: delete it and restart the service")
    return Check("auth", OK, f"token in {path} (mode {_mode(st)})")


def check_bind(config: Config) -> Check:
    host, auth = config.server.host, config.server.auth
    if is_loopback_host(host):
        return Check("bind", OK, f"server.host {host} is loopback")
    if auth.token or auth.password:
        return Check(
            "bind",
            WARN,
            f"server.host {host} is reachable from other machines; auth is configured, "
            "but the API is plain HTTP: put TLS in front of it",
        )
    return Check(
        "bind",
        ERROR,
        f"server.host {host} is not loopback and neither server.auth.token nor "
        "server.auth.password is set: the service refuses to start",
    )


# -- profiles -----------------------------------------------------------------------------------
def check_remote_cdp(profiles: Iterable[ProfileConfig]) -> list[Check]:
    checks = []
    for profile in profiles:
        for url in profile.cdp_urls:  # a list: every failover endpoint
            parts = urllib.parse.urlsplit(url)
            host = parts.hostname or ""
            name = f"remote cdp {profile.name}"
            if parts.scheme in ("https", "wss"):
                checks.append(Check(name, OK, f"{parts.scheme}:// to {host}"))
            elif is_loopback_host(host):
                checks.append(Check(name, OK, f"plain {parts.scheme}:// to loopback {host}"))
            else:
                checks.append(
                    Check(
                        name,
                        WARN,
                        f"plain {parts.scheme}:// to {host}: whoever is on the path sees "
                        "and can drive the browser; use https:// or wss://",
                    )
                )
    return checks


def check_ports(config: Config, profiles: Iterable[ProfileConfig], probes: Probes) -> list[Check]:
    """A managed profile's cdp port that something other than our own Chromium listens on: the
    launch would fail, or worse, clawd would attach to that program."""
    checks = []
    for profile in profiles:
        attach_only = (
            config.browser.attach_only if profile.attach_only is None else profile.attach_only
        )
        if profile.kind != "managed" or attach_only or profile.cdp_port is None:
            continue
        port = profile.cdp_port
        if port in probes.own_ports:
            checks.append(
                Check(f"port {port}", OK, f"profile {profile.name}: our Chromium listens on it")
            )
        elif probes.port_in_use(port):
            checks.append(
                Check(
                    f"port {port}",
                    ERROR,
                    f"profile {profile.name}: another program listens on "
                    f"127.0.0.1:{port}; give the profile another cdpPort",
                )
            )
        else:
            checks.append(Check(f"port {port}", OK, f"profile {profile.name}: free"))
    return checks


def check_trash(layout: StateLayout) -> Check:
    """Reset and deleted profiles' data is kept: say what is there and how to get rid of it."""
    kept = trash.entries(layout)
    if not kept:
        return Check("trash", OK, f"{layout.trash} is empty")
    size = sum(entry["bytes"] for entry in kept) / 1e6
    names = ", ".join(entry["name"] for entry in kept)
    return Check(
        "trash",
        OK,
        f"{len(kept)} profile data folder(s) kept in {layout.trash} ({size:.1f} MB): "
        f"{names}; delete them when no longer wanted",
    )


def _mode(st: os.stat_result) -> str:
    return f"{stat.S_IMODE(st.st_mode):04o}"
