#!/usr/bin/env python3
"""Scale-out on a browser pool (issue 18). Against a real Browserless from npm on loopback
(tests/support/browserless.py; `make browserless` installs it):

1. 8 agents at once (threads, each its own remote profile) x 50 mixed calls (open, snapshot, click,
   evaluate, screenshot: 10 each) against one pool with CONCURRENT=4, QUEUED=8: errors, p50/p99
   per call kind, total time; then the same work on 8 managed profiles. An agent's browser comes
   from the pool at its first call (`start`, timed apart: it includes the wait in the pool's queue)
   and goes back at its POST /stop, which lets a queued agent in.
2. Evaluate round trip, remote (through the pool) vs managed, interleaved on one idle agent:
   p50 overhead of the pool (target: <= 0.3 ms).
3. Restore after the pool ends a session (its timeout): the first call after the session ended,
   with remote.restore state and tabs, next to restore none; and the keeper's own restore time.

Usage: bench/pool.py [--agents 8] [--calls 50] [--evals 400] [--json OUT]"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile
import threading
import time

from common import ROOT, Site, interleaved, print_table, summary, write_json  # noqa: F401

from clawd import errors  # noqa: E402
from tests.support.browser import service_config  # noqa: E402
from tests.support.browserless import Browserless, cache_dir, install  # noqa: E402
from tests.support.service import RunningService  # noqa: E402

KINDS = ("open", "snapshot", "click", "evaluate", "screenshot")
TOKEN = "bench-pool-token"
SESSION_END_MS = 6000


def service(profiles: dict, tmp: pathlib.Path) -> RunningService:
    config = service_config(
        tmp,
        extra={
            "browser": {
                "profiles": profiles,
                "defaultProfile": next(iter(profiles)),
                "remoteCdpHandshakeTimeoutMs": 120000,  # a queued agent waits for a slot
                "remoteCdpTimeoutMs": 30000,
                "maxTabs": 4,
            }
        },
    )
    return RunningService(config)


def agent(client, profile: str, site: Site, calls: int, out: dict, errs: list, start_ms: list):
    try:
        began = time.perf_counter()
        client.start(profile=profile)
        start_ms.append((time.perf_counter() - began) * 1000)
        tab = None
        for i in range(calls):
            kind = KINDS[i % len(KINDS)]
            began = time.perf_counter()
            try:
                if kind == "open":
                    if tab is not None:
                        client.close_tab(tab, profile=profile)
                    tab = client.open(site.url("/act/forms.html"), profile=profile)["tabId"]
                elif kind == "snapshot":
                    client.snapshot(target_id=tab, profile=profile)
                elif kind == "click":
                    ref = _ref(client.snapshot(target_id=tab, profile=profile), "Count")
                    began = time.perf_counter()  # the click alone
                    client.act("click", ref=ref, target_id=tab, profile=profile)
                elif kind == "evaluate":
                    client.act(
                        "evaluate", fn="() => window.count || 0", target_id=tab, profile=profile
                    )
                else:
                    client.screenshot(target_id=tab, profile=profile)
            except errors.ClawdError as exc:
                errs.append(f"{profile} {kind}: {exc.code}: {exc.message[:200]}")
                continue
            out[kind].append((time.perf_counter() - began) * 1000)
    except errors.ClawdError as exc:
        errs.append(f"{profile} start: {exc.code}: {exc.message[:200]}")
    finally:
        try:
            client.stop(profile=profile)
        except errors.ClawdError as exc:
            errs.append(f"{profile} stop: {exc.code}")


def _ref(snapshot: dict, name: str) -> str:
    for line in snapshot["snapshot"].splitlines():
        if f'button "{name}"' in line and "[ref=" in line:
            return line.split("[ref=", 1)[1].split("]", 1)[0]
    raise AssertionError(f"no button {name!r} in the snapshot")


def run_agents(running: RunningService, names: list[str], site: Site, calls: int) -> dict:
    out = {k: [] for k in KINDS}
    errs: list[str] = []
    start_ms: list[float] = []
    clients = [running.client(timeout=600) for _ in names]
    threads = [
        threading.Thread(target=agent, args=(c, n, site, calls, out, errs, start_ms))
        for c, n in zip(clients, names)
    ]
    began = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - began
    for c in clients:
        c.close()
    return {
        "agents": len(names),
        "callsPerAgent": calls,
        "errors": len(errs),
        "errorSamples": errs[:5],
        "seconds": round(seconds, 2),
        "start": summary(start_ms) if start_ms else None,
        "kinds": {k: summary(v) for k, v in out.items() if v},
    }


def evaluate_overhead(running: RunningService, site: Site, n: int) -> dict:
    client = running.client(timeout=60)
    tabs = {
        p: client.open(site.url("/index.html"), profile=p)["tabId"] for p in ("remote", "managed")
    }

    def call(profile):
        return lambda: client.act(
            "evaluate", fn="() => 1", target_id=tabs[profile], profile=profile
        )

    got = interleaved({"remote": call("remote"), "managed": call("managed")}, n)
    for profile in tabs:
        client.stop(profile=profile)
    client.close()
    remote, managed = summary(got["remote"]), summary(got["managed"])
    return {
        "remote": remote,
        "managed": managed,
        "overheadP50Ms": round(remote["p50"] - managed["p50"], 3),
    }


def restore_time(running: RunningService, site: Site) -> dict:
    client = running.client(timeout=120)
    results = {}
    for profile in ("end-none", "end-state", "end-tabs"):
        tab = client.open(site.url("/index.html"), profile=profile)["tabId"]
        client.act(
            "evaluate",
            fn="() => { document.cookie = 'a=1; path=/; max-age=600'; "
            "localStorage.setItem('k', 'v'); return 1; }",
            target_id=tab,
            profile=profile,
        )
        if profile != "end-none":
            _wait(lambda p=profile: client.status(profile=p)["stateSaved"]["cookies"] >= 1, 20)
        _wait(lambda p=profile: not client.status(profile=p)["running"], SESSION_END_MS / 1000 + 30)
        began = time.perf_counter()  # connect + restore + open a tab
        client.open(site.url("/index.html"), profile=profile)
        first = (time.perf_counter() - began) * 1000
        status = client.status(profile=profile)
        results[profile] = {
            "firstCallMs": round(first, 1),
            "restored": status.get("restored"),
        }
        client.stop(profile=profile)
    client.close()
    return results


def _wait(check, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise RuntimeError("condition not met in time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agents", type=int, default=8)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--evals", type=int, default=400)
    parser.add_argument("--parts", default="agents,evaluate,restore", help="what to measure")
    parser.add_argument("--json")
    args = parser.parse_args()
    try:
        root = install(cache_dir())
    except RuntimeError as exc:
        sys.exit(f"bench/pool.py needs the Browserless pool (make browserless): {exc}")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clawd-pool-bench-"))
    site = Site()
    pool = Browserless(
        tmp / "pool", token=TOKEN, timeout_ms=600000, concurrent=4, queued=8, root=root
    )
    report: dict = {}
    try:
        parts = set(args.parts.split(","))
        names = [f"agent-{i}" for i in range(args.agents)]
        if "agents" in parts:
            remote = {n: {"cdpUrl": pool.ws()} for n in names}
            running = service(remote, tmp / "remote-home")
            try:
                report["pool"] = run_agents(running, names, site, args.calls)
            finally:
                running.close()
            managed = {n: {} for n in names}
            running = service(managed, tmp / "managed-home")
            try:
                report["managed"] = run_agents(running, names, site, args.calls)
            finally:
                running.close()
        if "evaluate" in parts:
            running = service({"remote": {"cdpUrl": pool.ws()}, "managed": {}}, tmp / "eval-home")
            try:
                report["evaluate"] = evaluate_overhead(running, site, args.evals)
            finally:
                running.close()
        ended = (
            {}
            if "restore" not in parts
            else {
                f"end-{mode}": {
                    "cdpUrl": pool.ws(timeout=SESSION_END_MS),
                    "remote": {"restore": mode, "stateIntervalSeconds": 1},
                }
                for mode in ("none", "state", "tabs")
            }
        )
        if ended:
            running = service(ended, tmp / "restore-home")
            try:
                report["restore"] = restore_time(running, site)
            finally:
                running.close()
    finally:
        pool.stop()
        site.close()
    show(report)
    write_json(args.json, report)


def show(report: dict) -> None:
    for side in ("pool", "managed"):
        if side not in report:
            continue
        r = report[side]
        rows = [[k, v["p50"], v["p99"], v["n"]] for k, v in r["kinds"].items()]
        if r["start"]:
            rows.insert(0, ["start", r["start"]["p50"], r["start"]["p99"], r["start"]["n"]])
        print_table(
            f"{side}: {r['agents']} agents x {r['callsPerAgent']} calls in {r['seconds']} s, "
            f"{r['errors']} errors {r['errorSamples']}",
            ["kind", "p50 ms", "p99 ms", "n"],
            rows,
        )
    ev = report.get("evaluate")
    if ev:
        print_table(
            f"evaluate, one idle agent: pool overhead p50 {ev['overheadP50Ms']} ms",
            ["profile", "p50 ms", "p99 ms", "n"],
            [[k, ev[k]["p50"], ev[k]["p99"], ev[k]["n"]] for k in ("remote", "managed")],
        )
    if "restore" in report:
        print_table(
            "after the pool ended the session: the first call",
            ["restore", "first call ms", "restored"],
            [[k, v["firstCallMs"], v["restored"]] for k, v in report["restore"].items()],
        )


if __name__ == "__main__":
    sys.exit(main())
