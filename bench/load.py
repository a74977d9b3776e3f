#!/usr/bin/env python3
"""Load (issue 6): 8 client threads x 100 mixed requests (GET /tabs, GET /snapshot, POST /act
evaluate, POST /screenshot) on loopback against one profile with 4 tabs of the fixture site, with
the service as a subprocess (`python -m clawd serve`) so its memory is measured alone: RSS after a
warm-up and after 5,000 more requests. Usage: bench/load.py [--threads 8] [--per-thread 100]
[--soak 5000] [--json OUT]"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

from common import ROOT, Site, print_table, summary, write_json  # noqa: F401  (ROOT: sys.path)

from tests.e2e.daemon_process import ServeProcess  # noqa: E402
from tests.support.browser import require_chromium, service_config  # noqa: E402
from tests.support.load import KINDS, open_tabs, rss_mb, run_load  # noqa: E402


def start(tmp: pathlib.Path) -> ServeProcess:
    require_chromium()
    return ServeProcess(tmp, service_config(tmp / "home"), extra_args=("--log-level", "warning"))


def measure(threads: int, per_thread: int, soak: int) -> dict:
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clawd-load-"))
    site, serve = Site(), start(tmp)
    try:
        client = serve.client()
        client.start()
        tabs = open_tabs(client, site)
        token = (serve.home / "auth-token").read_text().strip()
        run_load(serve.url, token, tabs, threads=threads, per_thread=25)  # warm-up
        main = run_load(serve.url, token, tabs, threads=threads, per_thread=per_thread)
        rss_before = rss_mb(serve.proc.pid)
        soaked = run_load(
            serve.url, token, tabs, threads=threads, per_thread=max(1, soak // threads)
        )
        rss_after = rss_mb(serve.proc.pid)
        return {
            "threads": threads,
            "perThread": per_thread,
            "requests": main.requests,
            "errors": len(main.errors),
            "errorSamples": main.errors[:5],
            "seconds": round(main.seconds, 2),
            "throughputPerS": round(main.requests / main.seconds, 1),
            "kinds": {k: summary(main.timings[k]) for k in KINDS if main.timings[k]},
            "soak": {
                "requests": soaked.requests,
                "errors": len(soaked.errors),
                "seconds": round(soaked.seconds, 1),
                "errorSamples": soaked.errors[:5],
            },
            "rssBeforeMB": round(rss_before, 1),
            "rssAfterMB": round(rss_after, 1),
            "rssGrowthPct": round((rss_after - rss_before) / rss_before * 100, 1),
        }
    finally:
        serve.close()
        site.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=8)
    parser.add_argument("--per-thread", type=int, default=100)
    parser.add_argument(
        "--soak", type=int, default=5000, help="requests between the two RSS readings"
    )
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args(argv)
    figures = measure(args.threads, args.per_thread, args.soak)
    rows = [
        [kind, s["n"], f"{s['p50']:.1f}", f"{s['p99']:.1f}"] for kind, s in figures["kinds"].items()
    ]
    print_table(
        f"{figures['threads']} threads x {figures['perThread']} mixed requests, 1 profile, 4 tabs: "
        f"{figures['errors']} errors, {figures['throughputPerS']} req/s",
        ["kind", "n", "p50 ms", "p99 ms"],
        rows,
    )
    print_table(
        f"service RSS around {figures['soak']['requests']} more requests "
        f"({figures['soak']['errors']} errors, {figures['soak']['seconds']} s)",
        ["before MB", "after MB", "growth %"],
        [[figures["rssBeforeMB"], figures["rssAfterMB"], figures["rssGrowthPct"]]],
    )
    for sample in figures["errorSamples"] + figures["soak"]["errorSamples"]:
        print("error:", sample, file=sys.stderr)
    write_json(args.json, figures)
    ok = figures["errors"] == 0 and figures["soak"]["errors"] == 0 and figures["rssGrowthPct"] < 10
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
