#!/usr/bin/env python3
"""The cost of strict mode on page loads: POST /navigate (waits for load) on corpus pages with
strict off and on, same Chromium build, same run. Usage: bench/strict.py [--runs 5] [--json OUT]"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time

from common import RunningService, Site, print_table, service_config, write_json

from clawd import errors

CORPUS = pathlib.Path(__file__).resolve().parent.parent.parent / "shared" / "corpus" / "pages"
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"
PAGES = [
    "readability-wikipedia.html",
    "readability-nytimes-1.html",
    "readability-guardian-1.html",
    "readability-engadget.html",
    "readability-yahoo-2.html",
]


def offline_resolver(host: str) -> list[str]:
    """clawd's side of RESOLVER: outside names fail at once, as they do for the Chromium of the
    default mode, so both modes meet the same (absent) DNS."""
    if host == "127.0.0.1":
        return ["127.0.0.1"]
    raise errors.HostUnresolved(f"{host} does not resolve")


def service(strict: bool) -> RunningService:
    home = pathlib.Path(tempfile.mkdtemp(prefix="clawd-strict-"))
    return RunningService(
        service_config(
            home,
            extra={
                "browser": {
                    "extraArgs": ["--disable-quic", RESOLVER],
                    "ssrfPolicy": {"allowedHostnames": ["127.0.0.1"], "strict": strict},
                }
            },
        ),
        resolver=offline_resolver,
    )


def load_times(client, tab_id: str, url: str, runs: int) -> list[float]:
    client.navigate(url, target_id=tab_id)  # warm the server side once
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        client.navigate(url, target_id=tab_id)
        times.append((time.perf_counter() - began) * 1000)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    site = Site(CORPUS)
    runs = {mode: service(mode == "strict") for mode in ("default", "strict")}
    clients = {mode: r.client(timeout=120) for mode, r in runs.items()}
    tabs = {mode: c.open(site.url("/" + PAGES[0]))["tabId"] for mode, c in clients.items()}
    rows, ratios = [], []
    try:
        for page in PAGES:
            medians = {
                m: statistics.median(
                    load_times(clients[m], tabs[m], site.url("/" + page), args.runs)
                )
                for m in runs
            }
            ratio = medians["strict"] / medians["default"]
            ratios.append(ratio)
            rows.append(
                [page, round(medians["default"], 1), round(medians["strict"], 1), round(ratio, 2)]
            )
    finally:
        for r in runs.values():
            r.close()
        site.close()
    geo = statistics.geometric_mean(ratios)
    rows.append(["geometric mean", "", "", round(geo, 2)])
    print_table(
        f"page load through POST /navigate, median of {args.runs} (ms)",
        ["page", "default", "strict", "strict/default"],
        rows,
    )
    write_json(args.json, {"rows": rows, "geomean": geo})


if __name__ == "__main__":
    main()
