"""`doctor`: check, without needing the service, what a first start depends on: the configuration,
a Chromium to launch, the state directory and its permissions, the auth token and bind address,
sandbox and display; then whether the service answers, and its own diagnosis (GET /doctor). The
checks shared with the service are in clawd/security/doctor.py. Exit 1 when a check is an error
(warnings do not)."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

from clawd import errors
from clawd.cli import output
from clawd.cli.commands import Invocation, command
from clawd.security.doctor import (
    ERROR,
    OK,
    WARN,
    Check,
    Probes,
    check_auth,
    check_bind,
    check_chromium,
    check_sandbox,
    check_state_dir,
)


def doctor(inv: Invocation) -> int:
    checks = list(run_checks(inv))
    result = {"ok": all(c.level != ERROR for c in checks), "checks": [c.as_dict() for c in checks]}
    output.emit(inv, result, render)
    # a failed check is the answer the user asked for, yet scripts need to see it in the status
    return 0 if result["ok"] else 1


def render(result: dict) -> str:
    marks = {OK: "[ok]  ", WARN: "[warn]", ERROR: "[FAIL]"}
    return "\n".join(
        f"{marks.get(c['level'], '[?]   ')} {c['name']}: {c['detail']}" for c in result["checks"]
    )


def run_checks(inv: Invocation) -> Iterator[Check]:
    from clawd.config.model import StateLayout

    config, problem = _config(inv)
    yield problem or Check("config", OK, f"{config.source or 'built-in defaults'} validates")
    probes, layout = Probes(), StateLayout(config.home)
    yield check_chromium(config, probes)
    yield check_sandbox(config, probes)
    yield _display(config)
    yield check_state_dir(layout)
    yield check_auth(config, layout, before_start=True)
    yield check_bind(config)
    # sandbox profiles: Docker, the image, each container's labels, ports and CDP reach
    yield from (Check(*c) for c in probes.sandbox(config.browser.profiles.values(), {}))
    if problem is None:
        yield from _service(inv)
    else:
        yield Check(
            "service",
            WARN,
            "not checked: the control URL and credentials come from the configuration",
        )


def _config(inv: Invocation):
    from clawd.config.model import Config

    try:
        return inv.config, None
    except errors.ConfigError as exc:
        where = exc.source or "the configuration"
        detail = f"{where}: {len(exc.problems)} problem(s): " + "; ".join(exc.problems)
        return Config(), Check(
            "config", ERROR, detail + " (checking the rest with built-in defaults)"
        )


def _display(config) -> Check:
    from clawd.browser.launcher import resolve_headless

    setting = config.browser.headless
    if resolve_headless(setting):
        return Check("display", OK, f"headless (browser.headless: {setting})")
    display = os.environ.get("WAYLAND_DISPLAY") or os.environ.get("DISPLAY")
    if display is None and sys.platform.startswith("linux"):
        return Check(
            "display",
            ERROR,
            "browser.headless is false but there is no DISPLAY or WAYLAND_DISPLAY: "
            "set browser.headless to auto or true",
        )
    return Check(
        "display", OK, f"headed on {display or 'the desktop'} (browser.headless: {setting})"
    )


# -- the service -----------------------------------------------------------------------------------
def _service(inv: Invocation) -> Iterator[Check]:
    from clawd.client import ServiceUnreachable

    client = inv.client
    try:
        status = client.request("GET", "/", timeout=5.0)
    except ServiceUnreachable:
        yield Check("service", WARN, f"not running at {client.url} (start it: clawd-browser serve)")
        return
    except errors.Unauthorized:
        yield Check(
            "service",
            ERROR,
            f"{client.url} refuses our credentials: the token differs from the "
            "service's (check --token or --token-file, CLAWD_TOKEN, $CLAWD_HOME/auth-token)",
        )
        return
    except errors.ClawdError as exc:
        yield Check("service", ERROR, f"{client.url} answered {exc.code}: {exc.message}")
        return
    running = "running" if status.get("running") else "not started"
    yield Check(
        "service",
        OK,
        f"clawd {status.get('version', '?')} at {client.url}; browser of profile "
        f"{status.get('profile', '?')} {running}",
    )
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
        level = item.get("level") or (OK if item.get("ok", True) else ERROR)
        yield Check(
            f"service: {item.get('name', '?')}",
            level,
            str(item.get("detail") or item.get("message") or ""),
        )


def add_parsers(sub) -> None:
    command(
        sub,
        "doctor",
        doctor,
        "diagnose the browser, sandbox, display and configuration",
        needs_service=False,
    )
