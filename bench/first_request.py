#!/usr/bin/env python3
"""Is request capture armed before a page's first request? Each round starts a fresh service
(a newly launched Chromium), loads tests/site/debug/first-fetch.html (its first script fetches
first-fetch.json) in the tab the browser started with and in a new tab, and checks that GET
/requests lists the fetch; then the same for a popup with an opener, a noopener popup, and a new
tab after a browser restart (POST /stop, POST /start).
Prints the misses per case. Usage: bench/first_request.py [--rounds 50] [--json OUT]"""

from __future__ import annotations

import argparse
import time

from common import Site, start_service, write_json

from tests.support.page_eval import wait_until

DATA = "first-fetch.json"


def captured(client, tab_id: str) -> bool:
    """The page's fetch finished (its title says so); True when /requests lists it."""
    wait_until(
        lambda: client.evaluate("() => document.title", target_id=tab_id)["result"].startswith(
            "fetched"
        ),
        timeout=15.0,
        message=f"the fetch of {tab_id}",
    )
    return any(r["url"].endswith(DATA) for r in client.requests(target_id=tab_id)["requests"])


def popup_captured(client, opener_id: str, noopener: bool) -> bool:
    known = {t["tabId"] for t in client.tabs()["tabs"]}
    client.evaluate(f"() => openPopup({'true' if noopener else 'false'})", target_id=opener_id)
    popup = wait_until(
        lambda: [t for t in client.tabs()["tabs"] if t["tabId"] not in known],
        timeout=15.0,
        message="the popup",
    )[0]
    try:
        return captured(client, popup["tabId"])
    finally:
        client.close_tab(popup["tabId"])


def one_round(site: Site) -> dict[str, bool]:
    running = start_service()
    try:
        client = running.client()
        client.start()
        # the tab the browser started with (no targetId), then a new tab
        got = {
            "first tab": captured(
                client, client.navigate(site.url("/debug/first-fetch.html"))["tabId"]
            ),
            "new tab": captured(client, client.open(site.url("/debug/first-fetch.html"))["tabId"]),
        }
        opener = client.open(site.url("/debug/first-fetch-opener.html"))["tabId"]
        got["popup"] = popup_captured(client, opener, noopener=False)
        got["noopener popup"] = popup_captured(client, opener, noopener=True)
        client.stop()
        client.start()
        got["after restart"] = captured(
            client, client.open(site.url("/debug/first-fetch.html"))["tabId"]
        )
        client.close()
        return got
    finally:
        running.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--json")
    args = parser.parse_args()
    site = Site()
    misses: dict[str, int] = {}
    began = time.monotonic()
    for n in range(1, args.rounds + 1):
        got = one_round(site)
        for case, ok in got.items():
            misses[case] = misses.get(case, 0) + (not ok)
        missed = [case for case, ok in got.items() if not ok]
        print(f"round {n:3d}: {'missed ' + ', '.join(missed) if missed else 'ok'}", flush=True)
    site.close()
    print(
        f"\n{args.rounds} fresh starts in {time.monotonic() - began:.0f} s; "
        f"misses out of {args.rounds}:"
    )
    for case, count in misses.items():
        print(f"  {case:15s} {count}")
    if args.json:
        write_json(args.json, {"rounds": args.rounds, "misses": misses})


if __name__ == "__main__":
    main()
