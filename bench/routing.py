#!/usr/bin/env python3
"""Routing's cost per request (issue 39): the time of one fetch() as the page measures it
(performance.now() around each await, sequential), on a loopback page, with no route, with a route
that matches nothing the page asks (Chromium pauses nothing), and with a continue or a fulfill route
that answers every request; next to Playwright's page.route on the same page and Chromium in the
same run. Conditions alternate in rounds: this VM's speed drifts between seconds.
Usage: bench/routing.py [--n 1000] [--rounds 10] [--json OUT]"""

from __future__ import annotations

import argparse
import json

from common import Site, print_table, start_service, summary, write_json

FETCHES = """async () => {{
  const times = [];
  for (let i = 0; i < {n}; i++) {{
    const began = performance.now();
    await (await fetch('/net/api/items.json?' + i)).text();
    times.push(performance.now() - began);
  }}
  return times;
}}"""
ITEMS = '{"items": ["real"]}'
MOCK = '{"items": ["mock"]}'


def clawd_conditions(client, tab_id: str) -> dict:
    """Each condition: (set up, tear down) of the profile's routes."""

    def with_route(url: str, action: str, **kw):
        held = {}

        def setup():
            held["id"] = client.add_route(url, action, **kw)["routeId"]

        return setup, lambda: client.remove_route(held["id"])

    none = (lambda: None, lambda: None)
    return {
        "clawd, no route": none,
        "clawd, route matching nothing": with_route("**/elsewhere/*", "fulfill", body=MOCK),
        "clawd, continue route": with_route("**/net/api/*", "continue"),
        "clawd, fulfill route": with_route("**/net/api/*", "fulfill", body=MOCK),
    }


def playwright_conditions(page) -> dict:
    def with_route(handler):
        return (
            lambda: page.route("**/net/api/*", handler),
            lambda: page.unroute("**/net/api/*"),
        )

    return {
        "playwright, no route": (lambda: None, lambda: None),
        "playwright, continue route": with_route(lambda route: route.continue_()),
        "playwright, fulfill route": with_route(lambda route: route.fulfill(body=MOCK)),
    }


def measure(n: int, rounds: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    site = Site()
    site.route("/net/api/items.json", _answer)
    running = start_service()
    client = running.client()
    client.start()
    tab = client.open(site.url("/net/app.html"))
    script = FETCHES.format(n=-(-n // rounds))
    samples: dict[str, list[float]] = {}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path="/usr/bin/chromium",
                args=["--no-sandbox", "--disable-gpu", "--disable-quic"],
            )
            page = browser.new_page()
            page.goto(site.url("/net/app.html"))
            runs = {
                **{
                    name: (setup, teardown, lambda: client.evaluate(script, target_id=tab["tabId"]))
                    for name, (setup, teardown) in clawd_conditions(client, tab["tabId"]).items()
                },
                **{
                    name: (setup, teardown, lambda: {"result": page.evaluate(script)})
                    for name, (setup, teardown) in playwright_conditions(page).items()
                },
            }
            for round_ in range(rounds + 1):  # round 0 warms up and is not kept
                for name, (setup, teardown, run) in runs.items():
                    setup()
                    try:
                        times = run()["result"]
                    finally:
                        teardown()
                    if round_:
                        samples.setdefault(name, []).extend(times)
            browser.close()
    finally:
        client.close()
        running.close()
        site.close()
    return samples


def _answer(handler) -> None:
    """Head and body in one write: in two, Nagle and the delayed ACK add 40 ms to each fetch."""
    data = ITEMS.encode()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nCache-Control: no-store\r\n"
        f"Content-Length: {len(data)}\r\n\r\n"
    )
    handler.wfile.write(head.encode() + data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000, help="fetches per condition")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--json", metavar="OUT", help="write the figures as JSON")
    args = parser.parse_args()
    samples = measure(args.n, args.rounds)
    figures = {name: summary(times) for name, times in samples.items()}
    base = {
        "clawd": figures["clawd, no route"]["p50"],
        "playwright": figures["playwright, no route"]["p50"],
    }
    rows = [
        [
            name,
            f"{f['p50']:.3f}",
            f"{f['p99']:.3f}",
            f"{f['p50'] - base[name.split(',')[0]]:+.3f}",
            f["n"],
        ]
        for name, f in figures.items()
    ]
    print_table(
        "one fetch() on a loopback page, as the page times it (ms)",
        ["condition", "p50", "p99", "p50 over its no-route", "n"],
        rows,
    )
    write_json(args.json, figures)
    if not args.json:
        print(json.dumps(figures))


if __name__ == "__main__":
    main()
