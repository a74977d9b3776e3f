"""What masking credentials costs: the log filter on the service's access line (with and without
it), and each pattern of clawd/security/redact.py on its adversarial input at two sizes (8x the
characters: a linear pattern takes about 8x the time). Not a test: prints a table.

    .venv/bin/python bench/log_secrets.py [--runs 5] [--json OUT]

Times are CPU time of this thread (time.thread_time), the best of --runs.
"""

from __future__ import annotations

import argparse
import io
import logging
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import print_table, write_json  # noqa: E402  (bench/ is on the path)

from clawd import log as clawd_log  # noqa: E402
from clawd.security import redact  # noqa: E402

SMALL, LARGE = 64 * 1024, 512 * 1024
KEY = "sk-" + "a" * 45  # a key whose every prefix repeats: the most work for the prefix scan
# inputs built to make each pattern try, and fail, at as many places as possible
ADVERSARIAL = {
    "header line": lambda n: "cookie:" + "x-api-key" * (n // 9),
    "bearer": lambda n: "bearer " * (n // 7),
    "userinfo": lambda n: "://" + "a" * n,
    "query param": lambda n: "?" + "a" * n + "&a" * (n // 2),
    "quoted field": lambda n: '"a": "' * (n // 6),
    "quoted field, unclosed value": lambda n: '"token": "' + "x" * n,
    "devtools path": lambda n: "/devtools/browser/" * (n // 18),
    "known key, cut copies": lambda n: KEY[:20] * (n // 20),
    "known key, its letter": lambda n: "a" * n,
}


def best_time(fn, runs: int, repeat: int = 1) -> float:
    """CPU seconds of one fn(), the best of `runs` rounds of `repeat` calls."""
    times = []
    for _ in range(runs):
        start = time.thread_time()
        for _ in range(repeat):
            fn()
        times.append((time.thread_time() - start) / repeat)
    return min(times)


def scrubbed(text: str) -> str:
    return redact.scrub_credentials(redact.scrub(text, (KEY,)))


def pattern_rows(runs: int) -> list[list]:
    rows = []
    for name, make in ADVERSARIAL.items():
        small, large = make(SMALL), make(LARGE)
        t_small = best_time(lambda s=small: scrubbed(s), runs)
        t_large = best_time(lambda s=large: scrubbed(s), runs)
        rows.append(
            [name, f"{t_small * 1e3:.2f}", f"{t_large * 1e3:.2f}", f"{t_large / t_small:.1f}"]
        )
    return rows


def access_line_rows(runs: int) -> list[list]:
    """µs a record of the access line costs, through the handler configure() attaches."""
    handler = clawd_log.configure("info", None, env={}, stream=io.StringIO())
    logger = logging.getLogger("clawd.access")

    def line() -> None:
        logger.info("%s %s %d %.1fms profile=%s tab=%s", "GET", "/tabs", 200, 1.2, "clawd", "t1")

    with_filter = best_time(line, runs, repeat=20000)
    handler.filters.clear()
    without = best_time(line, runs, repeat=20000)
    return [["access line", f"{without * 1e6:.2f}", f"{with_filter * 1e6:.2f}"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    lines = access_line_rows(args.runs)
    print_table("one log record (µs)", ["record", "no filter", "SecretFilter"], lines)
    patterns = pattern_rows(args.runs)
    print_table(
        f"adversarial inputs (ms), {SMALL // 1024} KiB and {LARGE // 1024} KiB",
        ["input", "small", "large", "large/small"],
        patterns,
    )
    write_json(args.json, {"record": lines, "patterns": patterns})


if __name__ == "__main__":
    main()
