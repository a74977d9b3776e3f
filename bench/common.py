"""Shared pieces of the benchmarks: a clawd service (in this process, or as a `serve` process of
its own) on a temporary home, percentiles, and printing a table. Benchmarks are not tests: they
print figures and can write JSON. CLAWD_BENCH_LOG_LEVEL sets the serve process's log level
(default info, as deployed: one access line a request)."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.e2e.daemon_process import ServeProcess  # noqa: E402
from tests.support.browser import CHROMIUM_FLAGS as BROWSER_FLAGS  # noqa: E402
from tests.support.browser import service_config  # noqa: E402
from tests.support.service import RunningService  # noqa: E402
from tests.support.site import Site  # noqa: E402, F401

CHROMIUM_FLAGS = list(BROWSER_FLAGS)


def start_service(extra: dict | None = None) -> RunningService:
    """The service in this process (a thread): for figures where the client's own work does not
    compete with the service for the interpreter."""
    home = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-"))
    return RunningService(service_config(home, extra=extra))


def start_service_process(extra: dict | None = None, **kw) -> ServeProcess:
    """`python -m clawd serve` as it is deployed: a process of its own (`kw`: ServeProcess's
    prefix and ready_timeout)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="clawd-bench-"))
    return ServeProcess(
        tmp,
        service_config(tmp / "home", extra=extra),
        extra_args=("--log-level", os.environ.get("CLAWD_BENCH_LOG_LEVEL", "info")),
        **kw,
    )


def percentile(samples: list[float], p: float) -> float:
    ordered = sorted(samples)
    index = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[index]


def timed(fn, n: int, warmup: int = 20) -> list[float]:
    """n timings of fn() in milliseconds, after `warmup` untimed calls."""
    for _ in range(warmup):
        fn()
    out = []
    for _ in range(n):
        began = time.perf_counter()
        fn()
        out.append((time.perf_counter() - began) * 1000)
    return out


def interleaved(calls: dict, n: int, rounds: int = 10, warmup: int = 20) -> dict[str, list[float]]:
    """n timings (ms) of each named call, taken in `rounds` alternating batches: every call sees
    the same machine. This VM's speed drifts by up to 2x between seconds, so calls timed one
    after the other compared conditions as much as code."""
    for fn in calls.values():
        for _ in range(warmup):
            fn()
    out: dict[str, list[float]] = {name: [] for name in calls}
    per_round = -(-n // rounds)
    for _ in range(rounds):
        for name, fn in calls.items():
            left = min(per_round, n - len(out[name]))
            for _ in range(left):
                began = time.perf_counter()
                fn()
                out[name].append((time.perf_counter() - began) * 1000)
    return out


def summary(samples: list[float]) -> dict:
    return {
        "p50": round(statistics.median(samples), 3),
        "p99": round(percentile(samples, 99), 3),
        "n": len(samples),
    }


def print_table(title: str, header: list[str], rows: list[list]) -> None:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    print(f"\n{title}")
    print("  ".join(str(h).ljust(w) for h, w in zip(header, widths)))
    print("  ".join("-" * w for w in widths))
    for row in rows:
        print("  ".join(str(x).ljust(w) for x, w in zip(row, widths)))


def write_json(path: str | None, data: dict) -> None:
    if path:
        pathlib.Path(path).write_text(json.dumps(data, indent=2))
