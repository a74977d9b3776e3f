#!/usr/bin/env python3
"""What web_fetch's render costs: POST /web/fetch {render: always} of a small page from the test
site (tests/site/web/spa.html, a page that builds its text with a script), end to end over HTTP,
the fetch cache off so every call renders. Not a test: prints the median, p90 and spread of the
wall-clock time and of the answer's own tookMs, optionally writes JSON.

    .venv/bin/python bench/web_render.py [--runs 10] [--page /web/spa.html] [--json OUT]

Run it in another checkout (PYTHONPATH=<tree> <tree>/.venv... bench/web_render.py from that
tree) to compare two versions on the same machine: the browser, the site and the client are the
same; only the service's code differs.
"""

from __future__ import annotations

import argparse
import statistics
import time

from common import Site, print_table, start_service, write_json


def render_once(client, url: str) -> tuple[float, float]:
    """(wall ms, the answer's tookMs) of one render."""
    began = time.perf_counter()
    answer = client.request(
        "POST", "/web/fetch", json={"url": url, "render": "always", "wrap": False}
    )
    wall = (time.perf_counter() - began) * 1000
    if answer.get("extractor") != "browser":
        raise SystemExit(f"not rendered: {answer}")
    return wall, float(answer["tookMs"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--page", default="/web/spa.html")
    parser.add_argument("--json")
    args = parser.parse_args()
    site = Site()
    running = start_service({"web": {"fetch": {"cacheTtlMinutes": 0}}})
    client = running.client()
    try:
        client.start()
        url = site.url(args.page)
        for _ in range(args.warmup):
            render_once(client, url)
        walls, took = zip(*(render_once(client, url) for _ in range(args.runs)), strict=True)
    finally:
        client.close()
        running.close()
        site.close()
    rows = [
        [
            name,
            f"{statistics.median(s):.1f}",
            f"{sorted(s)[int(0.9 * (len(s) - 1))]:.1f}",
            f"{min(s):.1f}",
            f"{max(s):.1f}",
        ]
        for name, s in (("wall ms", walls), ("tookMs", took))
    ]
    print_table(
        f"render: always of {args.page}, {args.runs} runs",
        ["", "median", "p90", "min", "max"],
        rows,
    )
    write_json(args.json, {"page": args.page, "wall_ms": list(walls), "took_ms": list(took)})


if __name__ == "__main__":
    main()
