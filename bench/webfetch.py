"""web_fetch benchmark: clawd's POST /web/fetch end to end (HTTP, markdown mode, wrapped as an
agent gets it) next to bare trafilatura.extract on the same bytes, and next to Mozilla Readability
+ jsdom in Node (what OpenClaw's web_fetch runs), on the saved pages of shared/corpus/pages served
from 127.0.0.1. Not a test: prints a table (ratios, geomean), optionally writes JSON.

    .venv/bin/python bench/webfetch.py [--runs 7] [--only NAME] [--json OUT]

The service runs in this process (a thread) with the browser disabled and the fetch cache off, so
every timed fetch is a real one; otherwise its defaults (maxChars 50000). Characters are counted on
untimed fetches with maxChars 200000, whitespace runs collapsed. Readability is timed inside Node
(JSDOM parse + Readability.parse on the file's bytes, no fetch and no IPC): the peer gets the most
generous figure. The npm packages are installed once into ~/.cache/clawd-bench/readability
(CLAWD_BENCH_CACHE moves it), never into the repository. The pages are served by a `python -m
http.server` process, so none of the serving counts as clawd's. Overhead is clawd's time minus
trafilatura's with clawd's own options, run by run (wall clock, and CPU time of this process, which
a busy machine does not inflate). `own` is each fetch's end-to-end time minus the trafilatura call
made inside that same request (InsideTimer): the overhead without trafilatura's own run-to-run
swing. Targets (issue 17): clawd's overhead over bare trafilatura <= 15 ms p50 a page, clawd /
Readability <= 0.7 (geomean).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import pathlib
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import print_table, write_json  # noqa: E402  (bench/ is on the path)

from tests.support.browser import service_config  # noqa: E402
from tests.support.service import RunningService  # noqa: E402

PAGES = ROOT.parent / "shared" / "corpus" / "pages"
CACHE = (
    pathlib.Path(
        os.environ.get("CLAWD_BENCH_CACHE") or pathlib.Path.home() / ".cache" / "clawd-bench"
    )
    / "readability"
)
NPM_PACKAGES = ("@mozilla/readability", "jsdom")
NODE_RUNNER = r"""
const fs = require("fs");
const readline = require("readline");
const {JSDOM, VirtualConsole} = require("jsdom");
const {Readability} = require("@mozilla/readability");
const quiet = new VirtualConsole();
readline.createInterface({input: process.stdin}).on("line", line => {
  const {path, url} = JSON.parse(line);
  const bytes = fs.readFileSync(path);
  const began = process.hrtime.bigint();
  const dom = new JSDOM(bytes, {url, contentType: "text/html", virtualConsole: quiet});
  const article = new Readability(dom.window.document).parse();
  const ms = Number(process.hrtime.bigint() - began) / 1e6;
  dom.window.close();
  process.stdout.write(JSON.stringify({ms, text: article ? article.textContent : ""}) + "\n");
});
process.stdout.write(JSON.stringify({ready: true,
  jsdom: require("jsdom/package.json").version,
  readability: require("@mozilla/readability/package.json").version}) + "\n");
"""


# -- the peer: Readability + jsdom in a side process --------------------------------------------
def install_readability() -> pathlib.Path:
    CACHE.mkdir(parents=True, exist_ok=True)
    if (
        not (CACHE / "node_modules" / "@mozilla" / "readability").is_dir()
        or not (CACHE / "node_modules" / "jsdom").is_dir()
    ):
        (CACHE / "package.json").write_text('{"name": "clawd-bench-peer", "private": true}\n')
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--silent", *NPM_PACKAGES],
            cwd=CACHE,
            check=True,
            timeout=600,
        )
    runner = CACHE / "run.js"
    runner.write_text(NODE_RUNNER)
    return runner


class Readability:
    def __init__(self, runner: pathlib.Path):
        self.proc = subprocess.Popen(
            ["node", str(runner)],
            cwd=runner.parent,
            text=True,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.versions = json.loads(self.proc.stdout.readline())

    def parse(self, path: pathlib.Path, url: str) -> tuple[float, str]:
        self.proc.stdin.write(json.dumps({"path": str(path), "url": url}) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        return answer["ms"], answer["text"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(10)


# -- the pages, served by a process of their own ------------------------------------------------
class PageServer:
    """The corpus over HTTP from another process: a remote site does its serving elsewhere, so
    none of it may count as clawd's time (in this process it would share the interpreter)."""

    def __init__(self, root: pathlib.Path):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "http.server",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--directory",
                str(root),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        self._wait_ready()

    def _wait_ready(self, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("the page server did not start")

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


# -- the three contenders -------------------------------------------------------------------------
class InsideTimer:
    """Times trafilatura.extract where the service calls it (the service runs in this process),
    so each fetch's own cost is its end-to-end time minus the extraction inside that very
    request: trafilatura's run-to-run swing (20 ms and more on the large pages, garbage collection
    among it) then cancels out, where the paired difference of two separate runs keeps it."""

    def __init__(self):
        import trafilatura

        self.module, self.original, self.spent = trafilatura, trafilatura.extract, []
        trafilatura.extract = self._timed

    def _timed(self, *args, **kwargs):
        began = time.perf_counter()
        try:
            return self.original(*args, **kwargs)
        finally:
            self.spent.append((time.perf_counter() - began) * 1000)

    def close(self) -> None:
        self.module.extract = self.original


def clawd_fetch(client, url: str, **body) -> dict:
    return client.request("POST", "/web/fetch", json={"url": url, **body})


def bare(trafilatura, data: bytes, **options) -> str:
    return trafilatura.original(data, **options) or ""


def chars(text: str) -> int:
    """Characters with whitespace runs collapsed: the three format text differently."""
    return len(" ".join(text.split()))


def measure(name: str, site, client, peer, runs: int, extract_options: dict, timer) -> dict:
    trafilatura = timer  # bare calls go around the timer: .original
    path, url = PAGES / name, site.url("/" + name)
    data = path.read_bytes()
    own: list[float] = []

    def clawd() -> None:
        timer.spent.clear()
        began = time.perf_counter()
        clawd_fetch(client, url)
        own.append((time.perf_counter() - began) * 1000 - sum(timer.spent))

    calls = {
        "clawd": clawd,
        "bare": lambda: bare(trafilatura, data),
        "bare_md": lambda: bare(trafilatura, data, url=url, **extract_options),
        "readability": lambda: peer.parse(path, url)[0],
    }
    times = {key: [] for key in calls}
    cpu = {key: [] for key in calls}
    for call in calls.values():
        call()  # warm: imports, JIT, caches
    for _ in range(runs):
        for key, call in calls.items():  # interleaved: this VM's speed drifts
            began, began_cpu = time.perf_counter(), time.process_time()
            inside = call()
            cpu[key].append((time.process_time() - began_cpu) * 1000)
            times[key].append(
                inside if key == "readability" else (time.perf_counter() - began) * 1000
            )
    p50 = _medians(times, cpu)
    p50["own"] = statistics.median(own[1:])  # the first is the warm-up call
    return _row(name, p50, _texts(trafilatura, client, peer, path, url, data))


def _medians(times: dict, cpu: dict) -> dict:
    """Medians of the timings, and clawd's cost beyond trafilatura's run by run: the two calls
    of a run sit side by side, so the machine's drift between runs cancels out. CPU time (this
    process: client, service and site threads) does not count waiting for a busy machine."""
    p50 = {k: statistics.median(v) for k, v in times.items()}
    p50["overhead"] = _paired(times["clawd"], times["bare_md"])
    p50["overhead_default"] = _paired(times["clawd"], times["bare"])
    p50["overhead_cpu"] = _paired(cpu["clawd"], cpu["bare_md"])
    return p50


def _paired(ours: list[float], theirs: list[float]) -> float:
    return statistics.median(a - b for a, b in zip(ours, theirs, strict=True))


def _texts(trafilatura, client, peer, path, url, data) -> dict:
    whole = {"wrap": False, "maxChars": 200000}  # characters counted uncut
    return {
        "clawd": clawd_fetch(client, url, **whole)["text"],
        "clawd_text": clawd_fetch(client, url, extractMode="text", **whole)["text"],
        "bare": bare(trafilatura, data),
        "readability": peer.parse(path, url)[1],
    }


def _row(name: str, p50: dict, texts: dict) -> dict:
    return {
        "page": name.removeprefix("readability-").removesuffix(".html"),
        "clawd_ms": round(p50["clawd"], 1),
        "bare_ms": round(p50["bare"], 1),
        "bare_md_ms": round(p50["bare_md"], 1),
        "readability_ms": round(p50["readability"], 1),
        "overhead_ms": round(p50["overhead"], 1),
        "overhead_vs_default_ms": round(p50["overhead_default"], 1),
        "overhead_cpu_ms": round(p50["overhead_cpu"], 1),
        "own_ms": round(p50["own"], 1),
        "ratio_readability": round(p50["clawd"] / p50["readability"], 3),
        "clawd_chars": chars(texts["clawd"]),
        "clawd_text_chars": chars(texts["clawd_text"]),
        "bare_chars": chars(texts["bare"]),
        "readability_chars": chars(texts["readability"]),
    }


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def report(rows: list[dict], versions: dict) -> None:
    header = [
        "page",
        "clawd ms",
        "traf ms",
        "traf-md ms",
        "overhead",
        "ovh cpu",
        "own",
        "readab ms",
        "clawd/rd",
        "clawd ch",
        "clawd-txt ch",
        "traf ch",
        "readab ch",
    ]
    columns = (
        "page",
        "clawd_ms",
        "bare_ms",
        "bare_md_ms",
        "overhead_ms",
        "overhead_cpu_ms",
        "own_ms",
        "readability_ms",
        "ratio_readability",
        "clawd_chars",
        "clawd_text_chars",
        "bare_chars",
        "readability_chars",
    )
    print_table(
        "POST /web/fetch (markdown, end to end) vs trafilatura.extract vs Readability+jsdom",
        header,
        [[r[c] for c in columns] for r in rows],
    )
    overheads = [r["overhead_ms"] for r in rows]
    defaults = [r["overhead_vs_default_ms"] for r in rows]
    cpu = [r["overhead_cpu_ms"] for r in rows]
    print(
        f"\nclawd's overhead over trafilatura with the same options (median over pages of the "
        f"per-page p50): {statistics.median(overheads):.1f} ms wall, "
        f"{statistics.median(cpu):.1f} ms CPU (target <= 15); over trafilatura's defaults: "
        f"{statistics.median(defaults):.1f} ms wall"
    )
    own = [r["own_ms"] for r in rows]
    print(
        f"clawd's own time (end to end minus the trafilatura call inside the same request), "
        f"p50 a page: median {statistics.median(own):.1f} ms, largest {max(own):.1f} ms "
        f"({max(rows, key=lambda r: r['own_ms'])['page']}) (target <= 15 a page)"
    )
    print(
        f"clawd / Readability+jsdom, geomean over {len(rows)} pages: "
        f"{geomean([r['ratio_readability'] for r in rows]):.3f} (target <= 0.7)"
    )
    node = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    print(
        f"peer: @mozilla/readability {versions.get('readability')}, "
        f"jsdom {versions.get('jsdom')}, node {node}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--json", type=pathlib.Path)
    args = parser.parse_args()
    # wrapping logs pages that read like instructions: true of some articles, noise here
    logging.getLogger("clawd").setLevel(logging.ERROR)
    from clawd.web import extract

    inside = InsideTimer()
    names = sorted(
        p.name for p in PAGES.glob("*.html") if not args.only or any(o in p.name for o in args.only)
    )
    peer = Readability(install_readability())
    site = PageServer(PAGES)
    home = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-web-"))
    web = {"fetch": {"cacheTtlMinutes": 0}}  # timed as configured by default otherwise
    running = RunningService(
        service_config(home, extra={"browser": {"enabled": False}, "web": web})
    )
    client = running.client(timeout=120)
    rows = []
    try:
        for name in names:
            rows.append(
                measure(name, site, client, peer, args.runs, extract.options("markdown"), inside)
            )
            row = rows[-1]
            print(
                f"{row['page']:32s} clawd {row['clawd_ms']:7.1f} ms  trafilatura "
                f"{row['bare_md_ms']:7.1f} ms  readability {row['readability_ms']:7.1f} ms",
                flush=True,
            )
    finally:
        client.close()
        running.close()
        site.close()
        peer.close()
        inside.close()
    report(rows, peer.versions)
    write_json(str(args.json) if args.json else None, {"rows": rows, "peer": peer.versions})


if __name__ == "__main__":
    main()
