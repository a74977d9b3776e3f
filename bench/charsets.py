"""Decoding a fetched body under each charset web_fetch accepts (every WHATWG encoding), on
hostile bytes, at two sizes: the time of the worst byte pattern for each encoding and how it
grows from 256 KiB to 2 MiB (8x the bytes: a linear decoder takes about 8x the time). Also the
<meta charset> and HTML-start patterns on their adversarial inputs. Not a test: prints a table.

    .venv/bin/python bench/charsets.py [--runs 3] [--json OUT]

Times are CPU time of this thread (time.thread_time), the best of --runs.
"""

from __future__ import annotations

import argparse
import os
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import print_table, write_json  # noqa: E402  (bench/ is on the path)
from webencodings.labels import LABELS  # noqa: E402

from clawd.web import decode  # noqa: E402

SMALL, LARGE = 256 * 1024, 2 * 1024 * 1024
# bytes a hostile site would pick: noise, lead bytes without trails, escapes that switch a
# stateful decoder back and forth, lone surrogates, cut-off UTF-8 sequences
PATTERNS = {
    "random": lambda n: os.urandom(n),
    "0xff": lambda n: b"\xff" * n,
    "leads": lambda n: b"\x81" * n,
    "lead+ascii": lambda n: b"\x81a" * (n // 2),
    "escapes": lambda n: b"\x1b$B\x1b(B" * (n // 6),
    "esc+junk": lambda n: b"\x1b$B\xff" * (n // 4),
    "surrogates": lambda n: b"\x00\xd8" * (n // 2),
    "cut utf-8": lambda n: b"\xf0\x90\x80" * (n // 3),
}


def best_time(fn, arg, runs: int, repeat: int = 1) -> float:
    """CPU seconds of one fn(arg), the best of `runs` rounds of `repeat` calls."""
    times = []
    for _ in range(runs):
        start = time.thread_time()
        for _ in range(repeat):
            fn(arg)
        times.append((time.thread_time() - start) / repeat)
    return min(times)


def encoding_rows(runs: int) -> list[list]:
    rows = []
    for name in sorted(set(LABELS.values()) - {decode.REPLACEMENT}):
        label = f"text/plain; charset={name}"

        def decoded(body: bytes, label: str = label) -> None:
            decode.decode(body, label, "text")

        worst = max(
            (best_time(decoded, make(LARGE), runs), best_time(decoded, make(SMALL), runs), pattern)
            for pattern, make in PATTERNS.items()
        )
        t_large, t_small, pattern = worst
        rows.append([name, pattern, _ms(t_small), _ms(t_large), f"{t_large / t_small:.1f}"])
    return rows


def pattern_rows(runs: int) -> list[list]:
    cases = [
        ("_HTML_START", "<!----> * k + x", b"<!---->", b"x", lambda b: decode.kind_of(None, b)),
        ("_META_CHARSET", "<meta * k", b"<meta ", b"", decode._meta_charset),
    ]
    rows = []
    for name, shape, unit, tail, call in cases:
        t_small = best_time(call, unit * 64 + tail, runs, 200)
        t_large = best_time(call, unit * 512 + tail, runs, 200)
        rows.append([name, shape, _us(t_small), _us(t_large), f"{t_large / t_small:.1f}"])
    return rows


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def _us(seconds: float) -> str:
    return f"{seconds * 1e6:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    rows = encoding_rows(args.runs)
    print_table(
        "decode.decode on hostile bytes (CPU ms; worst pattern per encoding)",
        ["encoding", "worst pattern", "256 KiB", "2 MiB", "x (8 = linear)"],
        rows,
    )
    patterns = pattern_rows(args.runs)
    print_table(
        "sniffing patterns (CPU us per call; k=64 vs k=512)",
        ["pattern", "input", "k=64", "k=512", "x (8 = linear)"],
        patterns,
    )
    write_json(args.json, {"encodings": rows, "patterns": patterns})


if __name__ == "__main__":
    main()
