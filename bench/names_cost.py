"""What Chrome's names cost a cold snapshot (issue 16): two tabs of one service take the corpus
pages in turns, one as clawd runs, the other with no name asked of Chrome (its walker's own
names kept, so its text may differ where a name was pending); the tabs swap roles every run (a
tab's place among the others alone moved its times by 10 % here). The ratio of the two is how
far the snapshot could go by vouching for every name in the page, Chrome's accessibility tree
being built for the first question most of what the names cost. Not a test: prints a table.

    .venv/bin/python bench/names_cost.py [--runs 7] [--only NAME]
"""

from __future__ import annotations

import argparse
import math
import pathlib
import statistics
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from snapshot import CORPUS, corpus_session  # noqa: E402

from clawd.page.snapshot import aria  # noqa: E402


class NoNames:
    """aria.chrome_names, except for the sessions listed: those ask Chrome nothing."""

    def __init__(self):
        self.sessions: set = set()
        self._asked = aria.chrome_names
        aria.chrome_names = self

    def __call__(self, walk, context, pending=None):
        if walk.session in self.sessions:
            if pending is not None:
                pending.discard()
            return []
        return self._asked(walk, context, pending)


def snapshot_ms(client, tab_id: str, url: str) -> float:
    client.navigate(url, target_id=tab_id)
    start = time.perf_counter()
    client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", action="append", default=[])
    args = parser.parse_args()

    no_names = NoNames()
    ratios = []
    with corpus_session(args.corpus, args.only) as (pages, site, running, client):
        tabs = [client.open("about:blank")["tabId"] for _ in range(2)]
        for tab_id in tabs:  # each tab's first snapshot preloads its walker
            client.request("GET", "/snapshot", params={"targetId": tab_id})
        sessions = [running.live_tab(tab_id).session for tab_id in tabs]
        print(f"{'page':46s} {'names':>8s} {'none':>8s} {'ratio':>6s}")
        for name in pages:
            url = site.url("/" + name)
            times: dict[bool, list[float]] = {True: [], False: []}
            for run in range(args.runs):
                no_names.sessions = {sessions[run % 2]}  # the tab asking none, in turns
                for index in (run % 2, 1 - run % 2):
                    asks = index != run % 2
                    times[asks].append(snapshot_ms(client, tabs[index], url))
            with_names, without = (statistics.median(times[asks]) for asks in (True, False))
            ratios.append(without / with_names)
            print(f"{name:46s} {with_names:8.1f} {without:8.1f} {ratios[-1]:6.3f}", flush=True)
    geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    print(f"\ngeometric mean of (no names asked) / (as clawd runs), {len(ratios)} pages: {geo:.3f}")


if __name__ == "__main__":
    main()
