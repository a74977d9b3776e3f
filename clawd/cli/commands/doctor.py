"""`doctor`: check, without needing the service, what a first start depends on: the configuration,
a Chromium to launch, the state directory and its permissions, the auth token, sandbox and
display; then whether the service answers. Exit 1 when a check fails (warnings do not)."""
from __future__ import annotations

import os
import stat
import subprocess
import sys
from dataclasses import asdict, dataclass
from typing import Callable, Iterator

from clawd import errors
from clawd.cli import output
from clawd.cli.commands import Invocation

OK, WARN, FAIL = "ok", "warn", "fail"


@dataclass
class Check:
    name: str
    level: str
    detail: str

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.level != FAIL}


def doctor(inv: Invocation) -> int:
    checks = list(run_checks(inv))
    result = {"ok": all(c.level != FAIL for c in checks), "checks": [c.as_dict() for c in checks]}
    output.emit(inv, result, render)
    # a failed check is the answer the user asked for, yet scripts need to see it in the status
    return 0 if result["ok"] else 1


def render(result: dict) -> str:
    marks = {OK: "[ok]  ", WARN: "[warn]", FAIL: "[FAIL]"}
    return "\n".join(f"{marks.get(c['level'], '[?]   ')} {c['name']}: {c['detail']}" for c in result["checks"])


def run_checks(inv: Invocation) -> Iterator[Check]:
    config, problem = _config(inv)
    yield problem or Check("config", OK, f"{config.source or 'built-in defaults'} validates")
    for check in (_chromium, _sandbox, _display, _state_dir, _auth):
        yield check(config)
    if problem is None:
        yield from _service(inv)
    else:
        yield Check("service", WARN, "not checked: the control URL and credentials come from the configuration")


def _config(inv: Invocation):
    from clawd.config.model import Config
    try:
        return inv.config, None
    except errors.ConfigError as exc:
        where = exc.source or "the configuration"
        detail = f"{where}: {len(exc.problems)} problem(s): " + "; ".join(exc.problems)
        return Config(), Check("config", FAIL, detail + " (checking the rest with built-in defaults)")


# -- the browser ------------------------------------------------------------------------------------
def _chromium(config, run: Callable = subprocess.run) -> Check:
    from clawd.browser.executables import find_executable   # read-only: where Chromium would come from
    if not config.browser.enabled:
        return Check("chromium", OK, "browser.enabled is false: no browser is needed")
    try:
        path = find_executable(config.browser.executable_path)
    except errors.ClawdError as exc:
        return Check("chromium", FAIL, exc.message)
    try:
        done = run([path, "--version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Check("chromium", FAIL, f"{path} does not run: {exc}")
    version = (done.stdout.strip().splitlines() or ["(no version printed)"])[-1]
    if done.returncode != 0:
        return Check("chromium", FAIL, f"{path} --version exited {done.returncode}: {done.stderr.strip()[-300:]}")
    return Check("chromium", OK, f"{version} at {path}")


def _sandbox(config) -> Check:
    from clawd.browser.launcher import resolve_no_sandbox
    setting = config.browser.no_sandbox
    if not resolve_no_sandbox(setting):
        return Check("sandbox", OK, f"Chromium keeps its sandbox (browser.noSandbox: {setting})")
    why = "running as root" if setting == "auto" else "browser.noSandbox is true"
    return Check("sandbox", WARN, f"Chromium runs with --no-sandbox ({why}); run the service as an "
                                  "unprivileged user (the systemd unit's `clawd`) to keep the sandbox")


def _display(config) -> Check:
    from clawd.browser.launcher import resolve_headless
    setting = config.browser.headless
    if resolve_headless(setting):
        return Check("display", OK, f"headless (browser.headless: {setting})")
    display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if display is None and sys.platform.startswith("linux"):
        return Check("display", FAIL, "browser.headless is false but there is no DISPLAY or WAYLAND_DISPLAY: "
                                      "set browser.headless to auto or true")
    return Check("display", OK, f"headed on {display or 'the desktop'} (browser.headless: {setting})")


# -- state and credentials --------------------------------------------------------------------------
def _state_dir(config) -> Check:
    home = config.home
    if not home.exists():
        parent = next((p for p in home.parents if p.exists()), None)
        if parent is None or not os.access(parent, os.W_OK | os.X_OK):
            return Check("state", FAIL, f"{home} does not exist and {parent} is not writable")
        return Check("state", OK, f"{home} will be created (mode 0700) on first start")
    if not home.is_dir():
        return Check("state", FAIL, f"{home} is not a directory")
    st = home.stat()
    if not os.access(home, os.W_OK | os.X_OK):
        return Check("state", FAIL, f"{home} is not writable by this user (uid {os.geteuid()})")
    if st.st_mode & stat.S_IWOTH:
        return Check("state", FAIL, f"{home} is writable by everyone (mode {_mode(st)}): chmod 700 {home}")
    if st.st_uid != os.geteuid():
        return Check("state", WARN, f"{home} belongs to uid {st.st_uid}, not to this user (uid {os.geteuid()})")
    if st.st_mode & 0o077:
        return Check("state", WARN, f"{home} (mode {_mode(st)}) is open to group or others; it holds "
                                    f"cookies and the auth token: chmod 700 {home}")
    return Check("state", OK, f"{home} (mode {_mode(st)})")


def _mode(st: os.stat_result) -> str:
    return f"{stat.S_IMODE(st.st_mode):04o}"


def _auth(config) -> Check:
    from clawd.config.model import StateLayout
    from clawd.security.csrf import is_loopback_host
    auth, host = config.server.auth, config.server.host
    if auth.token or auth.password:
        which = " and ".join(k for k, v in (("token", auth.token), ("password", auth.password)) if v)
        return Check("auth", OK, f"server.auth {which} configured (or from CLAWD_TOKEN/CLAWD_PASSWORD)")
    if not is_loopback_host(host):
        return Check("auth", FAIL, f"server.host {host} is not loopback and no token or password is set: "
                                   "the service refuses to start")
    path = StateLayout(config.home).auth_token
    if not path.exists():
        return Check("auth", WARN, f"no token yet: the service writes {path} on its first start")
    st = path.stat()
    if st.st_mode & 0o077:
        return Check("auth", FAIL, f"{path} is readable by others (mode {_mode(st)}): chmod 600 {path}")
    if not path.read_text(encoding="utf-8", errors="replace").strip():
        return Check("auth", FAIL, f"{path} is empty: delete it and restart the service")
    return Check("auth", OK, f"token in {path} (mode {_mode(st)})")


# -- the service ------------------------------------------------------------------------------------
def _service(inv: Invocation) -> Iterator[Check]:
    from clawd.client import ServiceUnreachable
    client = inv.client
    try:
        status = client.request("GET", "/", timeout=5.0)
    except ServiceUnreachable:
        yield Check("service", WARN, f"not running at {client.url} (start it: clawd-browser serve)")
        return
    except errors.Unauthorized:
        yield Check("service", FAIL, f"{client.url} refuses our credentials: the token differs from the "
                                     "service's (check --token, CLAWD_TOKEN, $CLAWD_HOME/auth-token)")
        return
    except errors.ClawdError as exc:
        yield Check("service", FAIL, f"{client.url} answered {exc.code}: {exc.message}")
        return
    running = "running" if status.get("running") else "not started"
    yield Check("service", OK, f"clawd {status.get('version', '?')} at {client.url}; browser of profile "
                               f"{status.get('profile', '?')} {running}")
    yield from _service_checks(client)


def _service_checks(client) -> Iterator[Check]:
    """The service's own diagnosis (GET /doctor), where the service has one."""
    try:
        answer = client.request("GET", "/doctor", timeout=30.0)
    except (errors.NotFound, errors.MethodNotAllowed):
        return
    except errors.ClawdError as exc:
        yield Check("service doctor", WARN, f"{exc.code}: {exc.message}")
        return
    for item in answer.get("checks", []):
        level = item.get("level") or (OK if item.get("ok", True) else FAIL)
        level = FAIL if level == "error" else level    # the service says error where we say fail
        yield Check(f"service: {item.get('name', '?')}", level,
                    str(item.get("detail") or item.get("message") or ""))
