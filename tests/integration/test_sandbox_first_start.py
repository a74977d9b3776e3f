"""A sandbox profile's start (issue 40, item 16): on a busy host the container's Chromium listens
late and answers its first /json/version seconds after that; the start waits for the answer
instead of asking again, the live view's helpers start at the first live view instead of taking
CPU from Chromium's start, and a start that fails says what the container was doing.

The Docker tests use a real dockerd; two of them run a stand-in for a busy Chromium (a DevTools
endpoint that answers late, or a start that gives up) in an image made from the sandbox image."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import socket
import threading
import time
from collections.abc import Callable

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import StateLayout
from clawd.sandbox import container as sbx
from clawd.sandbox import engine
from tests.support.docker import require_docker

pytestmark = pytest.mark.timeout(300)

NETWORK = "clawd-sandbox-test"
TAG = f"sbxfs{os.getpid() % 100000}"
LATE = 1.5  # seconds the stand-in takes to answer each request: over the old 1 s per request

# A busy Chromium, as far as the start can tell: it says it listens, then answers every
# /json/version LATE seconds after it came; STANDIN=exit gives up at once, like a browser that
# cannot start.
STANDIN = f"""
import http.server, os, sys, time
if os.environ["STANDIN"] == "exit":
    print("stand-in: no display to start on", file=sys.stderr, flush=True)
    sys.exit(3)
class Late(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        print("stand-in: asked", self.path, file=sys.stderr, flush=True)
        time.sleep({LATE})
        body = b'{{"webSocketDebuggerUrl": "ws://127.0.0.1:9222/devtools/browser/stand-in"}}'
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *args):
        pass
server = http.server.ThreadingHTTPServer(("0.0.0.0", 9222), Late)
print("DevTools listening on ws://127.0.0.1:9222/devtools/browser/stand-in", file=sys.stderr,
      flush=True)
server.serve_forever()
"""


@pytest.fixture(scope="module")
def docker_client():
    return require_docker()


@pytest.fixture(scope="module")
def standin(docker_client):
    """{mode: image tag} of the stand-in images, removed after the module."""
    tags = {}
    for mode in ("late", "exit"):
        tag = f"clawd-sandbox-standin-{mode}:{TAG}"
        dockerfile = (
            f"FROM {engine.IMAGE}\nENV STANDIN={mode}\n"
            f"ENTRYPOINT {json.dumps(['python3', '-c', STANDIN])}\n"
        )
        docker_client.images.build(fileobj=io.BytesIO(dockerfile.encode()), tag=tag, rm=True)
        tags[mode] = tag
    yield tags
    for tag in tags.values():
        docker_client.images.remove(tag, force=True)


def _box(tmp_path, name: str, **sandbox) -> sbx.SandboxContainer:
    data = {
        "browser": {
            "profiles": {
                "clawd": {"cdpPort": 18893},
                name: {"driver": "sandbox", "sandbox": {"network": NETWORK, **sandbox}},
            }
        }
    }
    config = config_from_data(data, env={"CLAWD_HOME": str(tmp_path)})
    return sbx.SandboxContainer(config.browser.profiles[name], StateLayout(tmp_path))


@pytest.fixture
def boxes(docker_client):
    """Sandbox containers a test made, removed after it."""
    made: list[sbx.SandboxContainer] = []
    yield made
    for box in made:
        box.remove()


def _in_container(container, script: str) -> str:
    ran = container.exec_run(["python3", "-c", script])
    assert ran.exit_code == 0, ran.output.decode(errors="replace")
    return ran.output.decode().strip()


# -- a Chromium that answers late -----------------------------------------------------------------
def test_a_chromium_that_answers_late_is_waited_for_not_asked_again(
    tmp_path, docker_client, standin, boxes
):
    box = _box(tmp_path, f"{TAG}-late", image=standin["late"], autoStartTimeoutMs=30000)
    boxes.append(box)
    ws_url = box.ensure()
    assert ws_url == f"ws://127.0.0.1:{box.cdp_port}/devtools/browser/stand-in"
    asked = [line for line in box.logs().splitlines() if "stand-in: asked" in line]
    assert asked == ["stand-in: asked /json/version"], asked  # one request, answered


def test_a_container_that_exits_while_starting_says_how_it_ended(
    tmp_path, docker_client, standin, boxes
):
    box = _box(tmp_path, f"{TAG}-exit", image=standin["exit"], autoStartTimeoutMs=30000)
    boxes.append(box)
    with pytest.raises(errors.SandboxFailed) as failed:
        box.ensure()
    message = str(failed.value)
    assert "exited while starting" in message and "exit code 3" in message, message
    assert "stand-in: no display to start on" in message, message
    assert failed.value.details["container"]["exitCode"] == 3


# -- the real image ------------------------------------------------------------------------------
def _commands(container) -> list[str]:
    return [row[-1] for row in container.top(ps_args="-eo pid,comm")["Processes"]]


def test_the_live_view_helpers_start_at_the_first_live_view_not_with_chromium(
    tmp_path, docker_client, boxes
):
    box = _box(tmp_path, f"{TAG}-vnc", autoStartTimeoutMs=60000)
    boxes.append(box)
    box.ensure()
    container = docker_client.containers.get(box.name)
    running = _commands(container)
    assert "chromium" in running, running
    assert "x11vnc" not in running and "websockify" not in running, running

    box.start_live_view()
    box.start_live_view()  # the second live view finds them started
    deadline = time.monotonic() + 30
    while not {"x11vnc", "websockify"} <= set(running := _commands(container)):
        assert time.monotonic() < deadline, f"the live view's helpers did not start: {running}"
        time.sleep(0.1)
    assert running.count("x11vnc") == 1 and running.count("websockify") == 1, running
    # asked again after a restart, they start again: the container's run is a new one
    container.restart(timeout=5)
    box.ensure()
    box.start_live_view()
    deadline = time.monotonic() + 30
    while "websockify" not in (running := _commands(container)):
        assert time.monotonic() < deadline, f"no live view after a restart: {running}"
        time.sleep(0.1)


def test_a_start_that_runs_out_of_time_says_what_the_container_was_doing(
    tmp_path, docker_client, boxes
):
    box = _box(tmp_path, f"{TAG}-fwd", headless=True, autoStartTimeoutMs=60000)
    boxes.append(box)
    box.ensure()
    container = docker_client.containers.get(box.name)
    # the forwarder dies: Chromium still listens inside, nothing reaches it from the host
    _in_container(
        container,
        "import os, signal\n"
        "for pid in filter(str.isdigit, os.listdir('/proc')):\n"
        "    if open(f'/proc/{pid}/comm').read().strip() == 'socat':\n"
        "        os.kill(int(pid), signal.SIGKILL)\n",
    )
    # the same profile with a short budget, as after a config reload: used a moment ago, its
    # container is kept (hot window) and only waited for
    profile = box.profile
    short = dataclasses.replace(
        profile, sandbox=dataclasses.replace(profile.sandbox, auto_start_timeout_ms=2000)
    )
    again = sbx.SandboxContainer(short, StateLayout(tmp_path))
    with pytest.raises(errors.SandboxFailed) as failed:
        again.ensure()
    message = str(failed.value)
    facts = failed.value.details["container"]
    assert facts["state"] == "running" and "The container is running" in message, message
    commands = {p["command"] for p in facts["processes"]}
    assert "chromium" in commands and "socat" not in commands, facts["processes"]
    assert facts["listeningAfterSeconds"] is not None, facts
    assert "Chromium said it listens" in message, message
    assert facts["lastRequest"].startswith(("reset", "closed without an answer")), facts
    assert f"The last request was {facts['lastRequest']}" in message, message
    assert facts["cpuSeconds"] > 0, facts


# -- readiness without Docker ----------------------------------------------------------------------
class _Container:
    """What Readiness reads of a container, fixed."""

    name = "clawd-sbx-fake"

    def __init__(self, status="running", logs=b"", processes=(), exit_code=0):
        self.status = status
        started = "2026-01-02T03:04:05.5Z"
        self.attrs = {
            "State": {"Status": status, "StartedAt": started, "ExitCode": exit_code},
        }
        self._logs, self._processes = logs, processes
        self.throttling: dict = {}

    def reload(self):
        pass

    def top(self, ps_args=""):
        return {"Titles": ["PID", "STAT", "TIME", "COMMAND"], "Processes": self._processes}

    def stats(self, stream=False, one_shot=False):
        return {"cpu_stats": {"cpu_usage": {"total_usage": 410_000_000}, **self.throttling}}

    def logs(self, **kwargs):
        return self._logs


def _server(handle) -> tuple[int, list]:
    """A loopback server on port 0 whose connections go to handle(sock); the port and a list of
    what it saw."""
    listener = socket.create_server(("127.0.0.1", 0))
    seen: list = []

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            seen.append(conn.recv(4096))
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    return listener, seen


def _answer_after(delay: float, status: str = "200 OK", body: bytes = b"") -> Callable:
    def handle(conn):
        time.sleep(delay)
        head = f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        try:
            conn.sendall(head + body)
        except OSError:
            pass  # the asker gave up first: what the test is about
        conn.close()

    return handle


def test_a_request_chromium_accepted_gets_the_rest_of_the_budget():
    from clawd.sandbox import readiness

    body = b'{"webSocketDebuggerUrl": "ws://172.18.0.2:9222/devtools/browser/x"}'
    listener, seen = _server(_answer_after(LATE, body=body))
    with listener:
        port = listener.getsockname()[1]
        ws = readiness.Readiness("p").wait(_Container(), port, timeout=20)
    assert ws == "ws://172.18.0.2:9222/devtools/browser/x"
    assert len(seen) == 1, seen  # asked once, and waited for


def test_ask_names_how_a_request_ended():
    from clawd.sandbox import readiness

    free = socket.create_server(("127.0.0.1", 0))
    refused_port = free.getsockname()[1]
    free.close()
    assert readiness.ask(f"http://127.0.0.1:{refused_port}/json/version", 1).what.startswith(
        "refused"
    )
    cases = [
        (lambda conn: conn.close(), "closed without an answer"),
        (_answer_after(0, "404 Not Found"), "HTTP 404"),
        (_answer_after(0, body=b"{}"), "HTTP 200 without a webSocketDebuggerUrl"),
        (_answer_after(5), "no answer within 0.3 s (the connection was accepted)"),
    ]
    for handle, said in cases:
        listener, _ = _server(handle)
        with listener:
            answer = readiness.ask(f"http://127.0.0.1:{listener.getsockname()[1]}/x", 0.3)
        assert answer.ws_url is None and answer.what.startswith(said), (said, answer)


def test_a_timed_out_start_names_state_processes_cpu_listening_last_request_and_log(monkeypatch):
    from clawd.sandbox import readiness

    logs = (
        b"2026-01-02T03:04:06.0Z [7:7:ERROR:dbus/bus.cc:405] Failed to connect to the bus\n"
        b"2026-01-02T03:04:06.1Z 2026/01/02 socat[18] E connect(5, AF=2 127.0.0.1:9223, 16): "
        b"Connection refused\n"
        b"2026-01-02T03:04:07.5Z [7:9:WARNING:gpu] falling back to software\n"
    )
    processes = [
        ["1", "Ss", "00:00:00", "docker-init"],
        ["7", "R", "00:00:01", "chromium"],
        ["30", "S", "00:00:00", "chromium"],
        ["12", "S", "00:00:00", "Xvfb"],
    ]
    monkeypatch.setattr(readiness, "_host_load", lambda: {"average1m": 21.5, "cpus": 2})
    now = [0.0]
    never = readiness.Answer(None, "closed without an answer: the forwarder did not reach it")
    waiting = readiness.Readiness(
        "box",
        ask=lambda url, timeout: never,
        clock=lambda: now[0],
        sleep=lambda s: now.__setitem__(0, now[0] + s),
    )
    with pytest.raises(errors.SandboxFailed) as failed:
        waiting.wait(_Container(logs=logs, processes=processes), 32768, timeout=10)
    message = str(failed.value)
    assert message.startswith(
        "the sandbox browser of box did not answer http://127.0.0.1:32768/json/version within "
        "10 s (sandbox.autoStartTimeoutMs). The container is running"
    ), message
    assert "0.41 s of CPU used" in message
    assert "docker-init (S), chromium x2 (R S), Xvfb (S)" in message
    assert "Chromium has not said it listens" in message
    assert "The last request was closed without an answer" in message
    assert (
        "1 of its processes were waiting to run, and this host's load average is 21.5 on 2 CPUs:"
        " the start was waiting for a CPU" in message
    ), message
    # start-up noise is left out of the log's end; what else it says is kept
    assert message.endswith("Its log ends: [7:9:WARNING:gpu] falling back to software"), message
    facts = failed.value.details["container"]
    assert facts["state"] == "running" and facts["cpuSeconds"] == 0.41
    assert facts["listeningAfterSeconds"] is None


def test_a_start_held_back_by_a_cpu_limit_or_asleep_says_which(monkeypatch):
    from clawd.sandbox import readiness

    monkeypatch.setattr(readiness, "_host_load", lambda: {"average1m": 0.5, "cpus": 2})
    asleep = [["1", "Ss", "00:00:00", "docker-init"], ["7", "Sl", "00:00:00", "chromium"]]
    text = readiness.what_it_was_doing(_Container(processes=asleep), None)["text"]
    assert "All its processes are asleep: the start waits on something, not on a CPU" in text
    limited = _Container(processes=[["7", "R", "00:00:03", "chromium"]])
    limited.throttling = {"throttling_data": {"periods": 100, "throttled_periods": 94}}
    doing = readiness.what_it_was_doing(limited, None)
    assert "A CPU limit on the container held it back in 94% of its" in doing["text"], doing
    assert doing["facts"]["throttledShare"] == 0.94


def test_the_listening_line_of_this_run_is_dated_from_its_start():
    from clawd.sandbox import readiness

    logs = b"2026-01-02T03:04:08.25Z DevTools listening on ws://127.0.0.1:9223/devtools/x\n"
    asleep = [["7", "S", "00:00:01", "chromium"]]
    doing = readiness.what_it_was_doing(_Container(logs=logs, processes=asleep), "HTTP 404")
    assert doing["facts"]["listeningAfterSeconds"] == 2.8  # 03:04:05.5 -> 03:04:08.25
    assert "Chromium said it listens 2.8 s after the start" in doing["text"]
    assert "All its processes are asleep" not in doing["text"]  # it listened: not stuck


def test_an_exited_container_reports_its_exit_code_and_memory_kill():
    from clawd.sandbox import readiness

    box = _Container(status="exited", exit_code=137)
    box.attrs["State"]["OOMKilled"] = True
    failed = readiness.exited(box)
    assert "exited while starting" in str(failed)
    assert "(exit code 137, killed out of memory)" in str(failed), str(failed)
