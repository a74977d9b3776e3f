"""Snapshot benchmark: clawd's GET /snapshot (through HTTP, maxChars=0) against Playwright's
page.aria_snapshot(mode="ai") on the same pages in the same Chromium, cold (each timed snapshot
follows a reload), median of N each. Not a test: prints a table, optionally writes JSON.

    .venv/bin/python bench/snapshot.py [--pages DIR] [--runs 5] [--only NAME] [--json OUT]

Pages: shared/corpus/pages/*.html plus big.html/small.html from make_synthetic.py, served from
127.0.0.1; Chromium resolves every other host to nothing (--host-resolver-rules).

The `walk` column is the part of clawd's time spent in the main document's walker (clawd/page/
snapshot/js: scan, Playwright's generateAriaTree with clawd's patches, distill, refs and text,
from the walker's performance.now() clock, read after each timed snapshot): the work both
contenders do. `walk/pw` is that over Playwright's whole snapshot, a floor for the ratio no work
outside the walker can go under. Iframes are walked too (each its own document, its own walker
injected), and their time is in `clawd`, not in `walk`.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import math
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.support.browser import service_config  # noqa: E402
from tests.support.service import RunningService  # noqa: E402
from tests.support.site import Site  # noqa: E402

# the shared documents sit next to the checkout (/work/main) or above a worktree (/work/wt/x)
CORPUS = next(
    (
        c
        for c in (ROOT.parent / "shared" / "corpus", ROOT.parent.parent / "shared" / "corpus")
        if c.is_dir()
    ),
    ROOT.parent / "shared" / "corpus",
)
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"


class BlockedCount(logging.Handler):
    """Counts the requests the navigation policy refused (logged at debug by
    page/observe/interception.py: a corpus page's outside hosts), so the table can say how many
    there were without printing one line each."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("blocked "):
            self.count += 1

    @classmethod
    def install(cls) -> BlockedCount:
        handler = cls()
        logger = logging.getLogger("clawd.security")
        logger.setLevel(logging.DEBUG)
        logger.addHandler(handler)
        return handler


def prepare_pages(source: pathlib.Path) -> pathlib.Path:
    out = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-"))
    for page in sorted((source / "pages").glob("*.html")):
        shutil.copy(page, out / page.name)
    subprocess.run([sys.executable, str(source / "make_synthetic.py"), str(out)], check=True)
    return out


def corpus_pages(corpus: pathlib.Path, only: list[str]) -> tuple[pathlib.Path, list[str]]:
    """The pages served (a temporary copy plus big.html) and the names benchmarked: all but
    small.html, or those with one of `only` in their name."""
    pages_dir = prepare_pages(corpus)
    pages = sorted(p.name for p in pages_dir.glob("*.html") if p.name != "small.html")
    return pages_dir, [p for p in pages if not only or any(o in p for o in only)]


def corpus_service() -> RunningService:
    """A service whose Chromium resolves 127.0.0.1 only: a corpus page's other requests fail."""
    home = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-home-"))
    return RunningService(
        service_config(home, extra={"browser": {"extraArgs": ["--disable-quic", RESOLVER]}})
    )


def corpus_parser(doc: str, show: int) -> argparse.ArgumentParser:
    """The corpus audits' command line (names_audit.py, quickname_audit.py): --corpus, --only
    (again for more pages), --show (differences printed per page, `show` by default)."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--show", type=int, default=show, help="differences printed per page")
    return parser


@contextlib.contextmanager
def corpus_session(corpus: pathlib.Path, only: list[str]):
    """(pages, site, running service, started client) for the corpus pages; all closed after."""
    pages_dir, pages = corpus_pages(corpus, only)
    site = Site(pages_dir)
    running = corpus_service()
    client = running.client(timeout=120)
    try:
        client.start()
        yield pages, site, running, client
    finally:
        client.close()
        running.close()
        site.close()


def timed(fn) -> tuple[float, object]:
    start = time.perf_counter()
    value = fn()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    rows = []
    blocked = BlockedCount.install()
    with (
        corpus_session(args.corpus, args.only) as (pages, site, running, client),
        sync_playwright() as pw,
    ):
        port = running.config.browser.profiles["clawd"].cdp_port
        browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        pw_page = browser.contexts[0].new_page()
        tab = client.open(site.url("/" + pages[0]))
        for name in pages:
            url = site.url("/" + name)
            before = blocked.count
            rows.append(measure(client, running, tab, pw_page, url, name, args.runs))
            rows[-1]["blocked"] = blocked.count - before
            print_row(rows[-1])
        browser.close()
    summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


def walker_ms(running, tab_id: str) -> float:
    """The in-page walker's own clock for the snapshot just taken (ms): build and render."""
    from clawd.page.snapshot import aria

    session = running.live_tab(tab_id).session
    context = aria.world(session, session.target_id, 10)
    timings = aria.evaluate(session, context, "JSON.stringify(__clawd.timings)", 10)
    return sum(json.loads(timings).values())


def measure(client, running, tab, pw_page, url: str, name: str, runs: int) -> dict:
    ours, theirs, walks = [], [], []
    text = peer = efficient = None
    for _ in range(runs):
        client.navigate(url, target_id=tab["tabId"])
        seconds, text = timed(
            lambda: client.request(
                "GET", "/snapshot", params={"targetId": tab["tabId"], "maxChars": 0}
            )
        )
        ours.append(seconds)
        walks.append(walker_ms(running, tab["tabId"]))
        pw_page.goto(url)
        seconds, peer = timed(lambda: pw_page.aria_snapshot(mode="ai"))
        theirs.append(seconds)
    client.navigate(url, target_id=tab["tabId"])
    efficient = client.request(
        "GET", "/snapshot", params={"targetId": tab["tabId"], "mode": "efficient"}
    )
    ours_ms, theirs_ms = statistics.median(ours) * 1000, statistics.median(theirs) * 1000
    walk_ms = statistics.median(walks)
    return {
        "page": name,
        "clawd_ms": round(ours_ms, 1),
        "playwright_ms": round(theirs_ms, 1),
        "ratio": round(ours_ms / theirs_ms, 3),
        "walk_ms": round(walk_ms, 1),
        "walk_ratio": round(walk_ms / theirs_ms, 3),
        "clawd_chars": len(text["snapshot"]),
        "playwright_chars": len(peer),
        "efficient_chars": len(efficient["snapshot"]),
        "chrome_names": text["stats"].get("chromeNames", 0),
    }


def print_row(row: dict) -> None:
    print(
        f"{row['page']:46s} {row['clawd_ms']:8.1f} {row['playwright_ms']:8.1f} {row['ratio']:6.2f} "
        f"{row['walk_ms']:7.1f} {row['walk_ratio']:7.2f} "
        f"{row['clawd_chars']:8d} {row['playwright_chars']:8d} {row['efficient_chars']:6d} "
        f"{row['chrome_names']:5d} {row['blocked']:7d}",
        flush=True,
    )


def summary(rows: list[dict]) -> None:
    geo = math.exp(sum(math.log(r["ratio"]) for r in rows) / len(rows))
    print(
        f"\n{'page':46s} {'clawd':>8s} {'pw':>8s} {'ratio':>6s} {'walk':>7s} {'walk/pw':>7s} "
        f"{'chars':>8s} "
        f"{'pwchars':>8s} {'eff':>6s} {'chrome':>5s} {'blocked':>7s}"
    )
    print(
        f"requests refused by the navigation policy (outside hosts; logged at debug): "
        f"{sum(r['blocked'] for r in rows)}"
    )
    print(f"geometric-mean ratio clawd/playwright over {len(rows)} pages: {geo:.3f}")
    floor = math.exp(sum(math.log(r["walk_ratio"]) for r in rows) / len(rows))
    print(f"geometric-mean walk/playwright (the in-page walker alone): {floor:.3f}")


if __name__ == "__main__":
    main()
