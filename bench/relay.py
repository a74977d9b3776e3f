#!/usr/bin/env python3
"""What the extension relay costs: the same tab of one Chromium driven through profile chrome
(clawd -> relay -> extension -> chrome.debugger) and through a remote profile on that Chromium's
own DevTools port, in the same run. Usage: bench/relay.py [--n 200] [--json OUT]"""

from __future__ import annotations

import argparse
import pathlib
import tempfile

from common import Site, interleaved, print_table, start_service_process, summary, write_json

from tests.support.extension import ExtensionChromium


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=200)
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()

    site = Site()
    chrome = ExtensionChromium(pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-relay-")))
    service = start_service_process({"relay": {"enabled": True, "port": 0}})
    client = service.client()
    client.create_profile("direct", cdp_url=f"http://127.0.0.1:{chrome.port}")
    try:
        relay = client.status(profile="chrome")["relay"]
        chrome.pair(relay["port"], (service.home / "auth-token").read_text().strip())
        chrome.wait_until(lambda: client.status()["relay"]["connected"], "extension connected")
        tab_id = chrome.open_tab(site.url("/long.html"))
        chrome.toggle(tab_id)
        target = chrome.wait_until(
            lambda: client.tabs(profile="chrome")["tabs"], "shared tab listed"
        )[0]["targetId"]
        client.start(profile="direct")
        calls = {}
        for profile in ("chrome", "direct"):
            calls[f"evaluate {profile}"] = _call(client.evaluate, "() => 1", target, profile)
        for profile in ("chrome", "direct"):
            calls[f"snapshot {profile}"] = _call(client.snapshot, None, target, profile)
        timings = interleaved(calls, args.n, warmup=10)
        rows, report = [], {}
        for name, samples in timings.items():
            stats = summary(samples)
            report[name] = stats
            rows.append([name, f"{stats['p50']:.2f}", f"{stats['p99']:.2f}"])
        for kind in ("evaluate", "snapshot"):
            ratio = report[f"{kind} chrome"]["p50"] / report[f"{kind} direct"]["p50"]
            rows.append([f"{kind}: relay / direct (p50)", f"{ratio:.2f}x", ""])
        print_table(f"profile chrome vs direct CDP, n={args.n}", ["call", "p50 ms", "p99 ms"], rows)
        write_json(args.json, report)
    finally:
        client.close()
        service.close()
        chrome.close()
        site.close()


def _call(method, arg, target: str, profile: str):
    if arg is None:
        return lambda: method(target_id=target, profile=profile)
    return lambda: method(arg, target_id=target, profile=profile)


if __name__ == "__main__":
    main()
