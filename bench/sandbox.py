#!/usr/bin/env python3
"""Sandbox profiles (issue 19) next to a managed profile in the same run: cold start (container
create -> first snapshot), warm start (stopped container -> ready), evaluate and snapshot latency
through the service, and the image size. Targets: warm start <= 2 s, evaluate overhead <= 0.3 ms
p50 over managed, image <= 1.2 GB. Needs a Docker daemon and `clawd-browser sandbox build`.
Usage: bench/sandbox.py [--n 200] [--starts 5] [--json OUT]"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from common import Site, interleaved, print_table, start_service_process, summary, write_json
from latency import RawHttp

from clawd.sandbox import engine, images
from clawd.sandbox.container import _gateway, container_name, ensure_network
from tests.support.browser import free_port

PROFILE = "sbench"
NETWORK = "clawd-sandbox-bench"


def _remove(client, name: str) -> None:
    import docker.errors

    try:
        client.containers.get(name).remove(force=True)
    except docker.errors.NotFound:
        pass


def figures(n: int, starts: int) -> dict:
    client = engine.client()
    gateway = _gateway(ensure_network(client, NETWORK))
    site = Site(host=gateway)
    extra = {
        "browser": {
            "headless": True,
            "ssrfPolicy": {"allowedHostnames": ["127.0.0.1", gateway]},
            "profiles": {
                "clawd": {"cdpPort": free_port()},
                PROFILE: {"driver": "sandbox", "sandbox": {"network": NETWORK, "headless": True}},
            },
        }
    }
    _remove(client, container_name(PROFILE))
    running = start_service_process(extra)
    try:
        api = running.client()
        page = site.url("/index.html")
        began = time.perf_counter()
        api.start(profile=PROFILE)
        tab = api.open(page, profile=PROFILE)
        api.snapshot(profile=PROFILE, target_id=tab["tabId"])
        cold = time.perf_counter() - began

        warm = []
        for _ in range(starts):
            api.stop(profile=PROFILE)
            began = time.perf_counter()
            api.start(profile=PROFILE)
            warm.append(time.perf_counter() - began)
        sbx_tab = api.open(page, profile=PROFILE)
        api.start()
        managed_tab = api.open(page)

        http = RawHttp(running.url, api.token)
        evaluate = '{"kind": "evaluate", "fn": "() => 1", "targetId": "%s"}'
        samples = interleaved(
            {
                "evaluate managed": lambda: http("POST", "/act", evaluate % managed_tab["tabId"]),
                "evaluate sandbox": lambda: http(
                    "POST", f"/act?profile={PROFILE}", evaluate % sbx_tab["tabId"]
                ),
                "snapshot managed": lambda: http(
                    "GET", f"/snapshot?targetId={managed_tab['tabId']}"
                ),
                "snapshot sandbox": lambda: http(
                    "GET", f"/snapshot?profile={PROFILE}&targetId={sbx_tab['tabId']}"
                ),
            },
            n,
        )
        size = images.image_size(client, engine.IMAGE)
    finally:
        running.close()
        site.close()
        _remove(client, container_name(PROFILE))
    stats = {name: summary(s) for name, s in samples.items()}
    return {
        "coldStartS": cold,
        "warmStartS": {"median": statistics.median(warm), "max": max(warm), "all": warm},
        "latencyMs": stats,
        "evaluateOverheadP50Ms": stats["evaluate sandbox"]["p50"]
        - stats["evaluate managed"]["p50"],
        "snapshotRatioP50": stats["snapshot sandbox"]["p50"] / stats["snapshot managed"]["p50"],
        "imageBytes": size,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--starts", type=int, default=5)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    data = figures(args.n, args.starts)
    rows = [[name, f"{s['p50']:.2f}", f"{s['p99']:.2f}"] for name, s in data["latencyMs"].items()]
    print_table("service latency, ms (same run)", ["call", "p50", "p99"], rows)
    warm = data["warmStartS"]
    print_table(
        "sandbox figures",
        ["figure", "value", "target"],
        [
            ["cold start (create -> first snapshot)", f"{data['coldStartS']:.2f} s", ""],
            ["warm start (stopped -> ready), median", f"{warm['median']:.2f} s", "<= 2 s"],
            ["warm start, worst", f"{warm['max']:.2f} s", ""],
            ["evaluate overhead p50", f"{data['evaluateOverheadP50Ms']:+.3f} ms", "<= 0.3 ms"],
            ["snapshot sandbox/managed p50", f"{data['snapshotRatioP50']:.2f}x", ""],
            ["image size", f"{data['imageBytes'] / 1e9:.2f} GB", "<= 1.2 GB"],
        ],
    )
    write_json(args.json, data)
    if not args.json:
        print(json.dumps({k: v for k, v in data.items() if k != "latencyMs"}, default=str))


if __name__ == "__main__":
    main()
