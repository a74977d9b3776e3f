#!/usr/bin/env python3
"""WebMCP (issue 37): one task done through the page's own tool against the same task done by
reading the page and acting on it, as a model does it through the agent tool (clawd/agent/tool.py):
search flights AMS -> LIS on tests/site/webmcp/flights.html (a travel site's front page: its
navigation, the search form that is also a declarative tool, popular routes, a footer), ending on
the results page.

- webmcp: list the page's tools, then call search_flights (2 calls);
- webmcp, tool known: the call alone (the snapshot's [tool=...] marker or an earlier listing
  named it);
- snapshot + acts: a snapshot, type into From, type into To, click Search (4 calls).

Per way: tool calls, characters the model reads (the tool results' text) and wall time of the
whole task (p50 over --n runs, ways alternating, a fresh tab each run, opening it not timed).
Usage: bench/webmcp.py [--n 20] [--json OUT]"""

from __future__ import annotations

import argparse
import re
import statistics
import time

from common import Site, print_table, start_service, write_json

from clawd.agent.tool import BrowserTool

PAGE = "/webmcp/flights.html"
DONE = "results.html?from=AMS&to=LIS"


def by_webmcp(tool: BrowserTool, tab: str, *, listed: bool = True) -> list[str]:
    texts = [tool.run({"action": "webmcp", "targetId": tab}).text] if listed else []
    call = {"tool": "search_flights", "input": {"from": "AMS", "to": "LIS"}}
    texts.append(tool.run({"action": "webmcp", "targetId": tab, **call}).text)
    return texts


def by_acts(tool: BrowserTool, tab: str) -> list[str]:
    snapshot = tool.run({"action": "snapshot", "targetId": tab}).text
    wanted = (("textbox", "From"), ("textbox", "To"), ("button", "Search"))
    ref = {name: re.search(rf'{role} "{name}" \[ref=(\w+)\]', snapshot)[1] for role, name in wanted}
    acts = [
        {"kind": "type", "ref": ref["From"], "text": "AMS"},
        {"kind": "type", "ref": ref["To"], "text": "LIS"},
        {"kind": "click", "ref": ref["Search"]},
    ]
    return [snapshot] + [tool.run({"action": "act", "targetId": tab, **a}).text for a in acts]


WAYS = {
    "webmcp (list + call)": by_webmcp,
    "webmcp (call, tool known)": lambda tool, tab: by_webmcp(tool, tab, listed=False),
    "snapshot + acts": by_acts,
}


def run_once(client, tool: BrowserTool, site: Site, way) -> tuple[float, list[str]]:
    tab = client.open(site.url(PAGE))["tabId"]
    deadline = time.monotonic() + 10
    while "search_flights" not in {t["name"] for t in client.webmcp_tools(tab)["tools"]}:
        if time.monotonic() > deadline:
            raise RuntimeError("the page's tools were never listed")
    try:
        began = time.perf_counter()
        texts = way(tool, tab)
        elapsed = (time.perf_counter() - began) * 1000
        if DONE not in texts[-1]:
            raise RuntimeError(f"the task did not end on the results page:\n{texts[-1]}")
        return elapsed, texts
    finally:
        client.close_tab(tab)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=20)
    parser.add_argument("--json")
    args = parser.parse_args()
    site, service = Site(), start_service()
    client = service.client()
    try:
        client.start()
        tool = BrowserTool(client)
        times = {name: [] for name in WAYS}
        texts: dict[str, list[str]] = {}
        for _ in range(args.n):
            for name, way in WAYS.items():
                elapsed, texts[name] = run_once(client, tool, site, way)
                times[name].append(elapsed)
        rows, data = [], {}
        for name in WAYS:
            chars = sum(len(t) for t in texts[name])
            p50 = round(statistics.median(times[name]), 1)
            rows.append([name, len(texts[name]), chars, p50])
            data[name] = {"calls": len(texts[name]), "chars": chars, "p50Ms": p50, "n": args.n}
        print_table(
            f"search flights AMS -> LIS through the agent tool (p50 of {args.n} runs)",
            ["way", "calls", "chars read", "time ms"],
            rows,
        )
        write_json(args.json, data)
    finally:
        client.close()
        service.close()
        site.close()


if __name__ == "__main__":
    main()
