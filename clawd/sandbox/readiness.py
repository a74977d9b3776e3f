"""When a sandbox container's Chromium is ready: /json/version answered through the loopback port
Docker published. When it is not ready in time, what the container was doing instead: its state,
processes, CPU time, what the last request got and the end of its log."""

from __future__ import annotations

import dataclasses
import logging
import os
import time
from collections.abc import Callable

import requests

from clawd import errors
from clawd.sandbox import engine

log = logging.getLogger("clawd.sandbox")

STEP = 0.1  # between two requests that failed at once
CONNECT = 1.0  # a loopback connect is accepted or refused at once
LISTENING = "DevTools listening on "
# lines every start writes: Chromium finds no D-Bus in the container, and the forwarder logs each
# request that came before Chromium listened; they would hide the lines that say something
_NOISE = ("dbus/", "E connect(")
_REQUEST_ENDS = (  # (text in the error, what it means here)
    ("refused", "refused: nothing listens on the published port"),
    ("reset", "reset: Docker's port forward found nothing listening on 9222 in the container"),
    (
        "RemoteDisconnected",
        "closed without an answer: the forwarder in the container did not reach Chromium "
        "(not listening yet, or this address is outside sandbox.cdpSourceRange)",
    ),
)


@dataclasses.dataclass
class Answer:
    ws_url: str | None  # the browser websocket /json/version named, None if it did not
    what: str  # how the request ended, in words


def ask(url: str, timeout: float) -> Answer:
    """One GET of /json/version. A request that reached Chromium gets `timeout` to be answered:
    a Chromium still starting on a busy host answers its first requests seconds late, and a
    request given up is a request answered to no one."""
    try:
        reply = requests.get(url, timeout=(CONNECT, timeout))
    except requests.Timeout:
        return Answer(None, f"no answer within {timeout:.1f} s (the connection was accepted)")
    except requests.RequestException as exc:
        return Answer(None, _request_end(exc))
    if not reply.ok:
        return Answer(None, f"HTTP {reply.status_code}")
    try:
        return Answer(reply.json()["webSocketDebuggerUrl"], "HTTP 200")
    except (ValueError, KeyError, TypeError):
        return Answer(None, "HTTP 200 without a webSocketDebuggerUrl")


def _request_end(exc: Exception) -> str:
    text = repr(exc)
    for marker, meaning in _REQUEST_ENDS:
        if marker.lower() in text.lower():
            return meaning
    return f"failed: {str(exc)[:160]}"


class Readiness:
    """Waits for one container's Chromium; `ask`, `clock` and `sleep` are seams for tests."""

    def __init__(
        self,
        profile: str,
        *,
        ask: Callable[[str, float], Answer] = ask,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.profile = profile
        self._ask, self._clock, self._sleep = ask, clock, sleep

    def wait(self, container, port: int, timeout: float) -> str:
        """The websocket /json/version names on 127.0.0.1:`port`, asked until `timeout` s have
        passed; SandboxFailed saying what the container was doing when it exits or time is up."""
        url = f"http://127.0.0.1:{port}/json/version"
        deadline = self._clock() + timeout
        while True:
            answer = self._ask(url, max(deadline - self._clock(), STEP))
            if answer.ws_url:
                return answer.ws_url
            with engine.translated("watching the sandbox container"):
                container.reload()
            if container.status in ("exited", "dead"):
                raise exited(container, answer.what)
            if self._clock() >= deadline:
                doing = what_it_was_doing(container, answer.what)
                raise errors.SandboxFailed(
                    f"the sandbox browser of {self.profile} did not answer {url} within "
                    f"{timeout:g} s (sandbox.autoStartTimeoutMs). {doing['text']}",
                    container=doing["facts"],
                )
            self._sleep(STEP)


def exited(container, last_request: str | None = None) -> errors.SandboxFailed:
    """The error for a container that stopped before its Chromium answered."""
    doing = what_it_was_doing(container, last_request)
    return errors.SandboxFailed(
        f"container {container.name} exited while starting. {doing['text']}",
        container=doing["facts"],
    )


def what_it_was_doing(container, last_request: str | None) -> dict:
    """{text, facts}: the container's state, processes, CPU time, Chromium's listening line, the
    last request's end and its log's last lines, each read best-effort (a failed read is left
    out, never raised over the error being explained)."""
    facts = _state(container)
    facts["processes"] = _processes(container)
    facts.update(_cpu(container))
    facts.update(_log_facts(container, facts.get("startedAt")))
    facts["lastRequest"] = last_request
    facts["hostLoad"] = _host_load()
    return {"text": _sentences(facts), "facts": facts}


def _state(container) -> dict:
    state = container.attrs.get("State") or {}
    facts = {"state": state.get("Status") or container.status}
    started = _epoch(state.get("StartedAt"))
    if started is not None:
        facts["startedAt"] = started
        facts["upSeconds"] = round(max(time.time() - started, 0.0), 1)
    if facts["state"] in ("exited", "dead"):
        facts["exitCode"] = state.get("ExitCode")
        facts["oomKilled"] = bool(state.get("OOMKilled"))
    return facts


def _processes(container) -> list[dict] | None:
    """The container's processes as `ps` on Docker's host sees them: command, state, CPU time."""
    try:
        with engine.translated():
            top = container.top(ps_args="-eo pid,stat,time,comm")
    except errors.ClawdError:
        return None  # not running, or no ps where the daemon runs
    titles = [t.upper() for t in top.get("Titles") or []]
    rows = []
    for row in top.get("Processes") or []:
        item = dict(zip(titles, row, strict=False))
        rows.append({"command": item.get("COMMAND", "?"), "state": item.get("STAT", "?")})
    return rows


def _cpu(container) -> dict:
    """The CPU time the container used, and how often a CPU limit held it back (if one did)."""
    try:
        with engine.translated():
            cpu = container.stats(stream=False, one_shot=True)["cpu_stats"]
        used = cpu["cpu_usage"]["total_usage"]
    except (errors.ClawdError, KeyError, TypeError):
        return {}
    facts = {"cpuSeconds": round(used / 1e9, 2)}
    throttling = cpu.get("throttling_data") or {}
    if throttling.get("throttled_periods"):
        facts["throttledShare"] = round(throttling["throttled_periods"] / throttling["periods"], 2)
    return facts


def _log_facts(container, started: float | None) -> dict:
    """Whether Chromium said it listens (and when, after the start), and the last lines that
    are not start-up noise, of this run only."""
    since = {"since": started} if started else {}  # the run before a restart said it too
    try:
        with engine.translated():
            raw = container.logs(timestamps=True, tail=400, **since)
    except errors.ClawdError:
        return {}
    listening, tail = None, []
    for line in raw.decode("utf-8", "replace").splitlines():
        stamp, _, text = line.partition(" ")
        if LISTENING in text and listening is None:
            at = _epoch(stamp)
            listening = round(at - started, 1) if at and started else 0.0
        if text.strip() and not any(n in text for n in _NOISE):
            tail.append(text.strip())
    return {"listeningAfterSeconds": listening, "log": tail[-6:]}


def _host_load() -> dict | None:
    """This machine's load, when the daemon runs on it (a unix socket, DOCKER_HOST or not)."""
    if not os.environ.get("DOCKER_HOST", "unix://").startswith("unix://"):
        return None
    return {"average1m": round(os.getloadavg()[0], 1), "cpus": os.cpu_count()}


def _sentences(facts: dict) -> str:
    parts = [_state_sentence(facts)]
    if facts.get("processes") is not None:
        parts.append(
            "Its processes (ps state R: running or waiting for a CPU, S: sleeping, D: waiting "
            "on a disk): " + _process_summary(facts["processes"]) + "."
        )
    if facts.get("listeningAfterSeconds") is not None:
        parts.append(
            f"Chromium said it listens {facts['listeningAfterSeconds']:g} s after the start."
        )
    elif facts["state"] == "running":
        parts.append("Chromium has not said it listens (no 'DevTools listening' line yet).")
    if facts.get("lastRequest"):
        parts.append(f"The last request was {facts['lastRequest']}.")
    hint = _hint(facts)
    if hint:
        parts.append(hint)
    if facts.get("log"):
        parts.append("Its log ends: " + " | ".join(facts["log"]))
    return " ".join(parts)


def _state_sentence(facts: dict) -> str:
    text = f"The container is {facts['state']}"
    if facts.get("upSeconds") is not None and facts["state"] == "running":
        text += f", started {facts['upSeconds']:g} s ago"
    if facts.get("cpuSeconds") is not None and facts["state"] == "running":
        text += f", {facts['cpuSeconds']:g} s of CPU used"
    if "exitCode" in facts:
        oom = ", killed out of memory" if facts["oomKilled"] else ""
        text += f" (exit code {facts['exitCode']}{oom})"
    return text + "."


def _process_summary(processes: list[dict]) -> str:
    """`chromium x9 (S7 R2)`: each command, how many, in which ps states."""
    if not processes:
        return "none"
    states: dict[str, dict[str, int]] = {}
    for p in processes:
        seen = states.setdefault(p["command"], {})
        seen[p["state"][:1]] = seen.get(p["state"][:1], 0) + 1
    parts = []
    for name, seen in states.items():
        count = sum(seen.values())
        letters = " ".join(f"{k}{n}" if n > 1 else k for k, n in sorted(seen.items()))
        parts.append(f"{name} x{count} ({letters})" if count > 1 else f"{name} ({letters})")
    return ", ".join(parts)


def _hint(facts: dict) -> str | None:
    """Why a running container's Chromium has not answered, when its processes tell: a CPU
    limit held it back, it waits for a CPU on a busy host, or (not listening, all asleep) it
    waits on something else."""
    if facts["state"] != "running":
        return None
    processes = facts.get("processes") or []
    runnable = sum(p["state"].startswith("R") for p in processes)
    load = facts.get("hostLoad")
    if facts.get("throttledShare"):
        return (
            f"A CPU limit on the container held it back in {facts['throttledShare']:.0%} of its "
            "scheduling periods: lift it or raise sandbox.autoStartTimeoutMs."
        )
    if runnable and load and load["cpus"] and load["average1m"] > load["cpus"]:
        return (
            f"{runnable} of its processes were waiting to run, and this host's load average is "
            f"{load['average1m']:g} on {load['cpus']} CPUs: the start was waiting for a CPU; on "
            "a host this busy raise sandbox.autoStartTimeoutMs."
        )
    if processes and not runnable and facts.get("listeningAfterSeconds") is None:
        return (
            "All its processes are asleep: the start waits on something, not on a CPU "
            "(clawd-browser sandbox logs shows the whole log)."
        )
    return None


def _epoch(raw: str | None) -> float | None:
    """Docker's RFC 3339 time (nanoseconds, Z) as seconds since the epoch."""
    if not raw or raw.startswith("0001"):
        return None
    from datetime import datetime

    head, _, frac = raw.rstrip("Z").partition(".")
    try:
        whole = datetime.fromisoformat(head + "+00:00").timestamp()
    except ValueError:
        return None
    digits = "".join(c for c in frac if c.isdigit())
    return whole + (int(digits) / 10 ** len(digits) if digits else 0.0)
