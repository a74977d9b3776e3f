#!/usr/bin/env python3
"""Act latency (issue 4): POST /act evaluate "() => 1" next to Playwright's in-process
page.evaluate("() => 1") in the same run, and a click by ref on a settled page.
Usage: bench/act_latency.py [--n 500] [--json OUT]; bench/latency.py runs it too."""

from __future__ import annotations

import argparse
import http.client
import json

from common import Site, print_table, start_service_process, summary, timed, write_json

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


def clawd_figures(n: int, site: Site) -> dict:
    running = start_service_process()  # a process of its own, as Playwright's driver is
    try:
        client = running.client()
        client.start()
        tab = client.open(site.url("/act/forms.html"))
        http = Http(running.url, client.token)
        query = f"?targetId={tab['tabId']}"
        evaluate = summary(timed(lambda: http.post("/act" + query, EVALUATE), n))
        refs = client.snapshot(target_id=tab["tabId"])["refs"]
        ref = next(r for r, v in refs.items() if v["role"] == "button" and v["name"] == "Count")
        click_body = json.dumps({"kind": "click", "ref": ref})
        click = summary(timed(lambda: http.post("/act" + query, click_body), min(n, 200)))
        return {"evaluate": evaluate, "click": click}
    finally:
        running.close()


def playwright_figures(n: int, site: Site) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--no-sandbox", "--disable-gpu", "--disable-quic"],
        )
        page = browser.new_page()
        page.goto(site.url("/act/forms.html"))
        evaluate = summary(timed(lambda: page.evaluate("() => 1"), n))
        button = page.get_by_role("button", name="Count", exact=True)
        click = summary(timed(lambda: button.click(), min(n, 200)))
        browser.close()
        return {"evaluate": evaluate, "click": click}


def act_figures(n: int) -> dict:
    site = Site()
    try:
        clawd = clawd_figures(n, site)
        try:
            peer = playwright_figures(n, site)
        except ImportError:
            peer = None
    finally:
        site.close()
    rows = []
    for name, label in (
        ("evaluate", 'evaluate "() => 1"'),
        ("click", "click by ref, settled page"),
    ):
        ours = clawd[name]
        theirs = peer[name] if peer else None
        ratio = f"{ours['p50'] / theirs['p50']:.2f}" if theirs else "-"
        rows.append(
            [
                label,
                ours["p50"],
                ours["p99"],
                theirs["p50"] if theirs else "-",
                theirs["p99"] if theirs else "-",
                ratio,
            ]
        )
    print_table(
        f"act latency, ms (clawd POST /act over keep-alive HTTP vs Playwright in-process; "
        f"n={n}, clicks n={min(n, 200)})",
        ["call", "clawd p50", "clawd p99", "playwright p50", "playwright p99", "p50 ratio"],
        rows,
    )
    return {"clawd": clawd, "playwright": peer}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=500)
    parser.add_argument("--json")
    args = parser.parse_args()
    write_json(args.json, act_figures(args.n))


if __name__ == "__main__":
    main()
