#!/usr/bin/env python3
"""Act latency (issues 4, 16): POST /act evaluate "() => 1" next to Playwright's in-process
page.evaluate("() => 1") in the same run, and a click by ref on a settled page, timed in
alternating rounds. "raw" is the same request over a hand-written keep-alive socket
(latency.RawHttp): the service's figure without http.client's own parsing. "bare CDP" is one
Runtime.evaluate of the same function over a websocket of its own to the same tab: the floor any
evaluate through a service sits on (clawd - raw is what http.client itself costs). "least relay"
(bench/least_relay.py) is the least a Python HTTP service can do to answer the same request, in a
process of its own like clawd's: the floor of a Python service, hops included.
Usage: bench/act_latency.py [--n 500] [--json OUT]; bench/latency.py runs it too."""

from __future__ import annotations

import argparse
import http.client
import json
import pathlib
import subprocess
import sys
from itertools import count

import websocket
from common import Site, interleaved, print_table, start_service_process, summary, write_json
from latency import RawHttp

EVALUATE = json.dumps({"kind": "evaluate", "fn": "() => 1"})


class Http:
    """A keep-alive http.client connection, so the figures are the service's, not a library's."""

    def __init__(self, url: str, token: str):
        host, port = url.split("//")[1].split(":")
        self.conn = http.client.HTTPConnection(host, int(port))
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def post(self, path: str, body: str) -> dict:
        self.conn.request("POST", path, body=body, headers=self.headers)
        response = self.conn.getresponse()
        data = json.loads(response.read())
        if response.status != 200:
            raise RuntimeError(f"{path}: {response.status} {data}")
        return data


def bare_evaluate(port: int, target_id: str):
    """Runtime.evaluate "(() => 1)()" on the tab's own DevTools websocket: one CDP round trip."""
    url = f"ws://127.0.0.1:{port}/devtools/page/{target_id}"
    ws = websocket.create_connection(url, suppress_origin=True, skip_utf8_validation=True)
    ids = count(1)

    def call():
        i = next(ids)
        ws.send(
            f'{{"id": {i}, "method": "Runtime.evaluate", '
            f'"params": {{"expression": "(() => 1)()", "returnByValue": true}}}}'
        )
        while f'"id":{i},' not in ws.recv():
            pass

    return ws, call


def least_relay(
    port: int, target_id: str, prefix=(), *, stdlib: bool = False
) -> tuple[subprocess.Popen, str]:
    """bench/least_relay.py started on the tab's own websocket: (process, its url). `prefix`
    goes before the interpreter (bench/instructions.py: valgrind); `stdlib`: the relay on
    http.server."""
    ws_url = f"ws://127.0.0.1:{port}/devtools/page/{target_id}"
    return relay_process(*(["--stdlib"] if stdlib else []), ws_url, prefix=prefix)


def relay_process(*args: str, prefix=()) -> tuple[subprocess.Popen, str]:
    """bench/least_relay.py with `args`: (process, its url)."""
    relay = subprocess.Popen(
        [
            *prefix,
            sys.executable,
            str(pathlib.Path(__file__).with_name("least_relay.py")),
            *args,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL if prefix else None,  # valgrind's banner
        text=True,
    )
    return relay, f"http://127.0.0.1:{int(relay.stdout.readline())}"


def act_figures(n: int) -> dict:
    """clawd and Playwright set up side by side, then timed in alternating rounds (common.py
    `interleaved`), so both see the same machine: the ratio survives a loaded host."""
    from playwright.sync_api import sync_playwright

    site = Site()
    running = start_service_process()  # a process of its own, as Playwright's driver is
    try:
        client = running.client()
        client.start()
        tab = client.open(site.url("/act/forms.html"))
        http = Http(running.url, client.token)
        raw = RawHttp(running.url, client.token)
        query = f"?targetId={tab['tabId']}"
        refs = client.snapshot(target_id=tab["tabId"])["refs"]
        ref = next(r for r, v in refs.items() if v["role"] == "button" and v["name"] == "Count")
        click_body = json.dumps({"kind": "click", "ref": ref})
        port = running.config.browser.profiles["clawd"].cdp_port
        ws, bare = bare_evaluate(port, tab["targetId"])
        relay, relay_url = least_relay(port, tab["targetId"])
        least, least_raw = Http(relay_url, "-"), RawHttp(relay_url, "-")
        stdlib, stdlib_url = least_relay(port, tab["targetId"], stdlib=True)
        on_stdlib, on_stdlib_raw = Http(stdlib_url, "-"), RawHttp(stdlib_url, "-")
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-quic"],
            )
            page = browser.new_page()
            page.goto(site.url("/act/forms.html"))
            button = page.get_by_role("button", name="Count", exact=True)
            evaluate = interleaved(
                {
                    "clawd": lambda: http.post("/act" + query, EVALUATE),
                    "clawd raw": lambda: raw("POST", "/act" + query, EVALUATE),
                    "playwright": lambda: page.evaluate("() => 1"),
                    "bare CDP": bare,
                    "least relay": lambda: least.post("/", EVALUATE),
                    "least relay raw": lambda: least_raw("POST", "/", EVALUATE),
                    "stdlib relay": lambda: on_stdlib.post("/", EVALUATE),
                    "stdlib relay raw": lambda: on_stdlib_raw("POST", "/", EVALUATE),
                },
                n,
            )
            ws.close()
            least.conn.close()
            least_raw.sock.close()
            on_stdlib.conn.close()
            on_stdlib_raw.sock.close()
            for process in (relay, stdlib):
                process.kill()
                process.wait(10)
            clicks = min(n, 200)
            click = interleaved(
                {
                    "clawd": lambda: http.post("/act" + query, click_body),
                    "clawd raw": lambda: raw("POST", "/act" + query, click_body),
                    "playwright": lambda: button.click(),
                },
                clicks,
                warmup=10,
            )
            browser.close()
    finally:
        running.close()
        site.close()
    figures = {
        who: {"evaluate": summary(evaluate[who]), "click": summary(click[who])}
        for who in ("clawd", "clawd raw", "playwright")
    }
    floor = summary(evaluate["bare CDP"])
    rows = []
    for name, label in (
        ("evaluate", 'evaluate "() => 1"'),
        ("click", "click by ref, settled page"),
    ):
        ours, raw_, theirs = (figures[w][name] for w in ("clawd", "clawd raw", "playwright"))
        rows.append(
            [
                label,
                ours["p50"],
                ours["p99"],
                raw_["p50"],
                theirs["p50"],
                theirs["p99"],
                f"{ours['p50'] / theirs['p50']:.2f}",
                f"{raw_['p50'] / theirs['p50']:.2f}",
            ]
        )
    print_table(
        f"act latency, ms (clawd POST /act over one keep-alive HTTP connection, http.client and "
        f"a raw socket, vs Playwright in-process; {n} evaluates, {clicks} clicks each, "
        f"10 interleaved rounds)",
        [
            "call",
            "clawd p50",
            "clawd p99",
            "raw p50",
            "playwright p50",
            "playwright p99",
            "p50 ratio",
            "raw ratio",
        ],
        rows,
    )
    library = figures["clawd"]["evaluate"]["p50"] - figures["clawd raw"]["evaluate"]["p50"]
    print_table(
        "the evaluate floor, ms p50: one CDP round trip, and what http.client adds by itself",
        ["bare CDP evaluate", "http.client's own (clawd - raw)", "floor via http.client", "ratio"],
        [
            [
                floor["p50"],
                round(library, 3),
                round(floor["p50"] + library, 3),
                f"{(floor['p50'] + library) / figures['playwright']['evaluate']['p50']:.2f}",
            ]
        ],
    )
    theirs = figures["playwright"]["evaluate"]["p50"]
    relay_rows = []
    for label, who in (
        ("least relay, http.client", "least relay"),
        ("least relay, raw socket", "least relay raw"),
        ("least relay on http.server, http.client", "stdlib relay"),
        ("least relay on http.server, raw socket", "stdlib relay raw"),
        ("clawd, http.client", "clawd"),
        ("clawd, raw socket", "clawd raw"),
    ):
        p50 = summary(evaluate[who])["p50"]
        relay_rows.append([label, p50, round(p50 - floor["p50"], 3), f"{p50 / theirs:.2f}"])
    print_table(
        "the floor of a Python service (bench/least_relay.py: parse, one CDP call, answer; no "
        "routing, auth or page state; --stdlib: the same on http.server, as clawd is), ms p50",
        ["evaluate through", "p50", "over bare CDP", "ratio to playwright"],
        relay_rows,
    )
    return {
        "bareCdpEvaluate": floor,
        "leastRelay": summary(evaluate["least relay"]),
        "leastRelayRaw": summary(evaluate["least relay raw"]),
        "leastRelayStdlib": summary(evaluate["stdlib relay"]),
        "leastRelayStdlibRaw": summary(evaluate["stdlib relay raw"]),
        "clawd": figures["clawd"],
        "clawdRaw": figures["clawd raw"],
        "playwright": figures["playwright"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, act_figures(args.n))


if __name__ == "__main__":
    main()
