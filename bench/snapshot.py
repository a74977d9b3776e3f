"""Snapshot benchmark: clawd's GET /snapshot (through HTTP, maxChars=0) against Playwright's
page.aria_snapshot(mode="ai") on the same pages in the same Chromium, cold (each timed snapshot
follows a reload), median of N each. Not a test: prints a table, optionally writes JSON.

    .venv/bin/python bench/snapshot.py [--corpus DIR] [--runs 5] [--only NAME] [--json OUT]
        [--no-agent-browser]

Pages: shared/corpus/pages/*.html plus big.html/small.html from make_synthetic.py, served from
127.0.0.1; Chromium resolves every other host to nothing (--host-resolver-rules).

The `walk` column is the part of clawd's time spent in the main document's walker (clawd/page/
snapshot/js: scan, walker.js's tree, render.js's distill, refs and text,
from the walker's performance.now() clock, read after each timed snapshot): the work both
contenders do. `walk/pw` is that over Playwright's whole snapshot, a floor for the ratio no work
outside the walker can go under. Iframes are walked too (each its own document, its own walker
injected), and their time is in `clawd`, not in `walk`.

agent-browser's `snapshot -i` (npm agent-browser, bench/agent_browser.py; left out with
--no-agent-browser or when it cannot be installed) runs in a browser of its own (the same
Chromium binary, the same flags for outside hosts): `ab` is the wall time of one
`agent-browser snapshot -i` call, the CLI process an agent runs, after an `open` of the page (which
waits for its load), median of N; `abchars` what it printed. `clawd/ab` is clawd's time over it,
`chars/ab` and `eff/ab` clawd's default and efficient snapshots' characters over its. The
efficient snapshot stops at 10000 characters (page/snapshot/build.py's EFFICIENT) and
`snapshot -i` has no limit: on a big page `eff/ab` is mostly that cap.

`pwsame` compares the texts themselves, clawd's default snapshot (refs=true) against Playwright's
ai mode: the share of Playwright's lines that clawd's has too, each line stripped of its indent
and its ref (the numbering differs), counted as multisets. `--diff PAGE` prints the lines of that
page each has and the other lacks.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import json
import logging
import math
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import agent_browser

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
AB_SESSION = "clawd-bench-snapshot"


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
    parser.add_argument("--diff", action="append", default=[], help="print PAGE's line diff")
    parser.add_argument(
        "--no-agent-browser",
        action="store_true",
        help="leave out agent-browser's snapshot -i (npm agent-browser)",
    )
    args = parser.parse_args()
    ab = None if args.no_agent_browser else agent_browser_cli()

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
        print(HEADER, flush=True)
        try:
            for name in pages:
                url = site.url("/" + name)
                before = blocked.count
                rows.append(measure(client, running, tab, pw_page, url, name, args.runs))
                rows[-1]["blocked"] = blocked.count - before
                texts = rows[-1].pop("_texts")
                if name in args.diff:
                    print_diff(name, *texts)
                if ab:
                    rows[-1].update(measure_agent_browser(ab, url, args.runs, rows[-1]))
                print_row(rows[-1])
        finally:
            if ab:
                agent_browser.say(ab, "close")
        browser.close()
    summary(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


def agent_browser_cli() -> list[str] | None:
    """agent-browser's argv for this benchmark's session (its browser resolving 127.0.0.1 only,
    as clawd's), or None, said, when npm or the install is not there."""
    try:
        cli = agent_browser.command(AB_SESSION, ["--disable-quic", RESOLVER])
    except (OSError, subprocess.CalledProcessError) as exc:
        print(f"agent-browser unavailable ({exc}): its columns are left out", flush=True)
        return None
    agent_browser.say(cli, "close")  # a daemon left over would keep its old launch flags
    return cli


def measure_agent_browser(cli: list[str], url: str, runs: int, row: dict) -> dict:
    """agent-browser's `snapshot -i` on the page: wall time of the CLI call after an `open` of the
    page, median of `runs`; its characters; clawd's row over them."""
    times, text = [], ""
    for _ in range(runs):
        agent_browser.say(cli, "open", url)
        seconds, text = timed(lambda: agent_browser.say(cli, "snapshot", "-i"))
        times.append(seconds)
    if not text:
        print(f"  {row['page']}: agent-browser printed no snapshot", flush=True)
        return {}
    ab_ms = statistics.median(times) * 1000
    return {
        "agent_browser_ms": round(ab_ms, 1),
        "agent_browser_ratio": round(row["clawd_ms"] / ab_ms, 3),
        "agent_browser_chars": len(text),
        "chars_ratio": round(row["clawd_chars"] / len(text), 3),
        "efficient_ratio": round(row["efficient_chars"] / len(text), 3),
    }


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
        "pw_same": round(same_lines(text["snapshot"], peer)[0], 3),
        "_texts": (text["snapshot"], peer),
    }


_REF = re.compile(r" ?\[ref=[^\]]*\]")


def comparable(text: str) -> collections.Counter:
    """A snapshot's lines as a multiset, without indent or ref."""
    return collections.Counter(
        _REF.sub("", line).strip() for line in text.splitlines() if line.strip()
    )


def same_lines(ours: str, peer: str) -> tuple[float, collections.Counter, collections.Counter]:
    """The share of `peer`'s lines `ours` has too; the lines only ours has, only peer's has."""
    mine, theirs = comparable(ours), comparable(peer)
    shared = sum((mine & theirs).values())
    return shared / max(1, sum(theirs.values())), mine - theirs, theirs - mine


def print_diff(name: str, ours: str, peer: str, most: int = 40) -> None:
    """The lines of page `name` only clawd's snapshot has, and only Playwright's ai mode has."""
    share, only_ours, only_peer = same_lines(ours, peer)
    for title, only in (("only clawd", only_ours), ("only playwright ai", only_peer)):
        print(f"\n{name}: {title} ({sum(only.values())} lines; pwsame {share:.3f})")
        for line, count in only.most_common(most):
            print(f"  {count:3d} x {line[:150]}")


# (key, title, format) of each column after the page's name; agent-browser's last five
COLUMNS = (
    ("clawd_ms", "clawd", "8.1f"),
    ("playwright_ms", "pw", "8.1f"),
    ("ratio", "ratio", "6.2f"),
    ("walk_ms", "walk", "7.1f"),
    ("walk_ratio", "walk/pw", "7.2f"),
    ("clawd_chars", "chars", "8.0f"),
    ("playwright_chars", "pwchars", "8.0f"),
    ("efficient_chars", "eff", "6.0f"),
    ("chrome_names", "chrome", "6.0f"),
    ("pw_same", "pwsame", "6.2f"),
    ("blocked", "blocked", "7.0f"),
    ("agent_browser_ms", "ab", "8.1f"),
    ("agent_browser_ratio", "clawd/ab", "8.2f"),
    ("agent_browser_chars", "abchars", "8.0f"),
    ("chars_ratio", "chars/ab", "8.2f"),
    ("efficient_ratio", "eff/ab", "6.2f"),
)
HEADER = f"{'page':46s} " + " ".join(
    f"{title:>{spec.split('.')[0]}s}" for _, title, spec in COLUMNS
)


def print_row(row: dict) -> None:
    """One page's line; `-` in a column the row lacks (agent-browser's, when left out)."""
    cells = (
        f"{row[key]:{spec}}" if key in row else f"{'-':>{spec.split('.')[0]}s}"
        for key, _, spec in COLUMNS
    )
    print(f"{row['page']:46s} " + " ".join(cells), flush=True)


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def summary(rows: list[dict]) -> None:
    """The header again, a geometric-mean row (ratios and sizes alike; chrome and blocked
    summed), then the headline figures."""
    print(f"\n{HEADER}")
    mean = {"page": f"geomean ({len(rows)} pages)"}
    for key, _, _ in COLUMNS:
        values = [r[key] for r in rows if r.get(key)]
        if len(values) == len(rows):  # a column some pages lack (agent-browser's) stays `-`
            mean[key] = geomean(values)
    mean["chrome_names"] = sum(r["chrome_names"] for r in rows)
    mean["blocked"] = sum(r["blocked"] for r in rows)
    print_row(mean)
    print(
        f"requests refused by the navigation policy (outside hosts; logged at debug): "
        f"{mean['blocked']}"
    )
    print(f"geometric-mean ratio clawd/playwright over {len(rows)} pages: {mean['ratio']:.3f}")
    print(f"geometric-mean walk/playwright (the in-page walker alone): {mean['walk_ratio']:.3f}")
    same = statistics.mean(r["pw_same"] for r in rows)
    print(f"mean share of Playwright's ai-mode lines clawd's snapshot has too: {same:.3f}")
    if "agent_browser_ratio" in mean:
        print(
            f"geometric-mean clawd/agent-browser snapshot -i: time "
            f"{mean['agent_browser_ratio']:.3f}, characters default "
            f"{mean['chars_ratio']:.3f}, efficient {mean['efficient_ratio']:.3f}"
        )


if __name__ == "__main__":
    main()
