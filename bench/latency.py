#!/usr/bin/env python3
"""Latency of the service next to bare CDP in the same run (issue 2), and act latency next to
Playwright (issue 4). Usage: bench/latency.py [--n 500] [--json OUT]
[--effects [--against CHECKOUT]]

The service runs as deployed, `python -m clawd serve` in a process of its own: in this process
its threads would share one interpreter lock with the client that measures it."""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import tempfile
import time

import psutil
import websocket
from common import (
    ServeProcess,
    Site,
    interleaved,
    print_table,
    service_config,
    start_service_process,
    summary,
    write_json,
)


def bare_cdp_call(port: int, target_id: str):
    """A bare websocket-client CDP round trip to the same browser (the floor clawd adds to)."""
    import requests

    ws_url = requests.get(f"http://127.0.0.1:{port}/json/version", timeout=5).json()[
        "webSocketDebuggerUrl"
    ]
    ws = websocket.create_connection(ws_url, suppress_origin=True, skip_utf8_validation=True)
    counter = iter(range(1, 10**9))

    def call():
        i = next(counter)
        ws.send(
            f'{{"id": {i}, "method": "Target.activateTarget", '
            f'"params": {{"targetId": "{target_id}"}}}}'
        )
        while True:
            if f'"id":{i},' in ws.recv():
                return

    return ws, call


class RawHttp:
    """HTTP/1.1 over one keep-alive socket, written and read by hand: it measures the service,
    not a client library (http.client parses each answer's headers with the email package,
    about 0.1 ms of CPU a call here)."""

    def __init__(self, url: str, token: str):
        import socket

        host, port = url.split("//")[1].split(":")
        self.sock = socket.create_connection((host, int(port)))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = (
            f"Host: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            "Content-Type: application/json\r\n"
        )
        self.buffer = b""

    def __call__(self, method: str, path: str, body: str | None = None) -> bytes:
        data = (body or "").encode()
        self.sock.sendall(
            f"{method} {path} HTTP/1.1\r\n{self.head}Content-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        while b"\r\n\r\n" not in self.buffer:
            self.buffer += self._recv()
        head, _, self.buffer = self.buffer.partition(b"\r\n\r\n")
        length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
        while len(self.buffer) < length:
            self.buffer += self._recv()
        answer, self.buffer = self.buffer[:length], self.buffer[length:]
        if not head.startswith(b"HTTP/1.1 200"):
            raise RuntimeError(f"{method} {path}: {head.splitlines()[0]!r} {answer[:200]!r}")
        return answer

    def _recv(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the service closed the connection")
        return chunk


class LibHttp:
    """The same over http.client, a client library's cost included."""

    def __init__(self, url: str, token: str):
        import http.client

        host, port = url.split("//")[1].split(":")
        self.conn = http.client.HTTPConnection(host, int(port))
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def __call__(self, method: str, path: str, body: str | None = None) -> bytes:
        self.conn.request(method, path, body=body, headers=self.headers)
        return self.conn.getresponse().read()


def service_figures(n: int) -> dict:
    running = start_service_process()
    site = Site()
    try:
        client = running.client()
        client.start()
        tab = client.open(site.url("/index.html"))
        port = running.config.browser.profiles["clawd"].cdp_port
        ws, bare = bare_cdp_call(port, tab["targetId"])  # the very call POST /tabs/focus makes
        http = RawHttp(running.url, client.token)
        lib = LibHttp(running.url, client.token)
        focus_body = f'{{"targetId": "{tab["tabId"]}"}}'
        samples = interleaved(
            {
                "bare Target.activateTarget (websocket-client)": bare,
                "GET /tabs": lambda: http("GET", "/tabs"),
                "POST /tabs/focus (1 CDP call)": lambda: http("POST", "/tabs/focus", focus_body),
                "GET /tabs (http.client)": lambda: lib("GET", "/tabs"),
                "POST /tabs/focus (http.client)": lambda: lib("POST", "/tabs/focus", focus_body),
                "clawd.client GET /tabs (requests)": lambda: client.tabs(),
                "clawd.client focus (requests)": lambda: client.focus(tab["tabId"]),
            },
            n,
        )
        figures = {name: summary(values) for name, values in samples.items()}
        ws.close()
        figures["idleRssMB"] = idle_rss(running)
        return figures
    finally:
        running.close()
        site.close()


def effect_figures(n: int, against: str | None = None) -> dict:
    """POST /act round trips with `effect` on and off (browser.actEffects), two services side by
    side on the same fixture page, their calls interleaved: what watching an act costs. With
    `against` (another checkout, e.g. a git worktree of the commit before effects), a third
    service runs that checkout's code ("before")."""
    site = Site()
    services = {
        label: start_service_process({"browser": {"actEffects": on}})
        for label, on in (("on", True), ("off", False))
    }
    try:
        if against:
            services["before"] = _checkout_service(against)
        calls = {}
        for label, running in services.items():
            calls.update(_effect_calls(running, site, label))
        samples = interleaved(dict(sorted(calls.items())), n, rounds=max(10, n // 5))
        return {name: summary(values) for name, values in samples.items()}
    finally:
        for running in services.values():
            running.close()
        site.close()


def _checkout_service(checkout: str):
    """`serve` from another checkout: run in its folder (`python -m` finds its package first),
    with the config cut to the keys its schema knows."""
    schema = json.loads(pathlib.Path(checkout, "clawd/config/schema.json").read_text())
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-"))
    return ServeProcess(
        tmp,
        service_config(tmp / "home"),
        extra_args=("--log-level", "info"),
        prefix=("env", "-C", checkout),
        edit=lambda data: _known_keys(data, schema, schema),
    )


def _known_keys(data, schema: dict, root: dict) -> None:
    """Drop from `data` the keys a closed object of `schema` does not list (JSON Schema: $ref to
    $defs, properties, additionalProperties)."""
    if not isinstance(data, dict) or not isinstance(schema, dict):
        return
    if "$ref" in schema:
        schema = root.get("$defs", root.get("definitions", {})).get(schema["$ref"].split("/")[-1])
        schema = schema or {}
    properties = schema.get("properties") or {}
    extra = schema.get("additionalProperties")
    if extra is False:
        for key in [k for k in data if k not in properties]:
            del data[key]
    for key, value in data.items():
        sub = properties.get(key) or (extra if isinstance(extra, dict) else None)
        if sub:
            _known_keys(value, sub, root)


def _effect_calls(running, site, label: str) -> dict:
    """A click on inert text, a click that flips a state, typing and evaluate on one tab."""
    client = running.client()
    client.start()
    tab = client.open(site.url("/effects/page.html"))
    refs = {
        (i["role"], i["name"]): r
        for r, i in client.snapshot(target_id=tab["tabId"])["refs"].items()
    }
    http = RawHttp(running.url, client.token)
    query = f"/act?targetId={tab['tabId']}"

    def act(**body):
        payload = json.dumps(body)
        return lambda: http("POST", query, payload)

    return {
        f"click inert heading ({label})": act(kind="click", ref=refs[("heading", "Effects")]),
        f"click menu button ({label})": act(kind="click", ref=refs[("button", "Menu")]),
        f"type 3 chars ({label})": act(kind="type", ref=refs[("textbox", "Name")], text="abc"),
        f"evaluate () => 1 ({label})": act(kind="evaluate", fn="() => 1"),
    }


def effects_table(figures: dict) -> None:
    rows, before = [], any(name.endswith("(before)") for name in figures)
    for name, on in figures.items():
        if name.endswith("(on)"):
            act = name[: -len(" (on)")]
            off = figures[f"{act} (off)"]
            row = [act, off["p50"], on["p50"], _added(on, off), off["p99"], on["p99"]]
            if before:
                past = figures[f"{act} (before)"]
                row += [past["p50"], _added(on, past)]
            rows.append(row)
    header = ["act", "p50 off", "p50 on", "p50 added", "p99 off", "p99 on"]
    print_table(
        "act latency with effects off and on (ms, interleaved; browser.actEffects)",
        header + (["p50 before", "on vs before"] if before else []),
        rows,
    )


def _added(now: dict, then: dict) -> str:
    return f"{(now['p50'] - then['p50']) / then['p50'] * 100:+.1f} %"


def idle_rss(running) -> float:
    """RSS of the service's process, Chromium excluded (it runs in processes of its own)."""
    return round(psutil.Process(running.proc.pid).memory_info().rss / 2**20, 1)


def chromium_alone() -> float:
    """Chromium by itself, with a managed profile's flags on a fresh user-data-dir: ms from spawn
    to a Browser.getVersion answer on the websocket its "DevTools listening on" line names. What
    any tool that starts a browser waits for; clawd's cold start is this plus its own work."""
    import json
    import subprocess
    import tempfile

    from clawd.browser import launcher
    from tests.support.browser import ENV_FLAGS, chromium_path, free_ports

    spec = launcher.LaunchSpec(
        chromium_path(),
        free_ports(1)[0],
        pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-chromium-")),
        True,
        launcher.resolve_no_sandbox("auto"),
        tuple(ENV_FLAGS),
    )
    began = time.perf_counter()
    process = subprocess.Popen(
        launcher.build_args(spec),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    try:
        line = next((line for line in process.stderr if b"DevTools listening on" in line), None)
        if line is None:
            raise RuntimeError(f"Chromium exited ({process.wait()}) without its listening line")
        ws = websocket.create_connection(
            line.split(b" on ", 1)[1].strip().decode(), suppress_origin=True
        )
        ws.send(json.dumps({"id": 1, "method": "Browser.getVersion"}))
        ws.recv()
        took = (time.perf_counter() - began) * 1000
        ws.close()
        return took
    finally:
        process.kill()
        process.wait()


def cold_start(runs: int = 5) -> dict:
    """POST /start on a fresh `serve` process until the browser is ready (a tab attached), next
    to Chromium alone (chromium_alone), taken in turns."""
    times, alone = [], []
    for _ in range(runs):
        alone.append(chromium_alone())
        running = start_service_process()
        try:
            began = time.perf_counter()
            running.client().start()
            times.append((time.perf_counter() - began) * 1000)
        finally:
            running.close()
    return {
        "median": round(statistics.median(times), 1),
        "all": [round(t, 1) for t in times],
        "chromiumAlone": round(statistics.median(alone), 1),
        "chromiumAloneAll": [round(t, 1) for t in alone],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--json")
    parser.add_argument("--effects", action="store_true", help="only act latency, effects on/off")
    parser.add_argument(
        "--against", metavar="CHECKOUT", help="with --effects: also another checkout's service"
    )
    args = parser.parse_args()
    if args.effects:
        effects = effect_figures(args.n, args.against)
        effects_table(effects)
        write_json(args.json, {"effects": effects})
        return
    figures = service_figures(args.n)
    bare = figures["bare Target.activateTarget (websocket-client)"]["p50"]
    rows = [
        [name, v["p50"], v["p99"], f"{v['p50'] - bare:+.3f}"]
        for name, v in figures.items()
        if isinstance(v, dict)
    ]
    print_table(
        f"service latency, ms over {args.n} calls each with keep-alive, in 10 interleaved rounds "
        f"(added = p50 - bare p50)",
        ["call", "p50", "p99", "added"],
        rows,
    )
    start = cold_start()
    print_table(
        "cold start: POST /start until ready, next to Chromium alone until its websocket answers "
        "(ms, taken in turns)",
        ["", "median", "runs"],
        [
            ["clawd POST /start", start["median"], start["all"]],
            ["Chromium alone", start["chromiumAlone"], start["chromiumAloneAll"]],
            ["clawd - Chromium", round(start["median"] - start["chromiumAlone"], 1), ""],
        ],
    )
    print_table("idle service RSS (MB, Chromium excluded)", ["rss"], [[figures["idleRssMB"]]])
    results = {"service": figures, "coldStart": start}
    try:
        from act_latency import act_figures  # the act section (issue 4), when present

        results["act"] = act_figures(args.n)
    except ImportError:
        pass
    write_json(args.json, results)


if __name__ == "__main__":
    main()
