#!/usr/bin/env python3
"""A sandbox profile's start (issue 40, item 16), run after run: a config-defined `driver:
sandbox` profile whose container is new (even runs) or stopped (odd runs), started as POST
/start starts it (SandboxContainer.ensure). Per run: the Docker start, the wait for /json/version,
the host's load average, and whether it fitted autoStartTimeoutMs; then the container's CPU time
to that answer (cgroup v1, when readable). `--image` names another image (an older build) to
compare in the same conditions; `--cpus` caps the container's CPU (Docker's NanoCpus) to see in
isolation what a busy host leaves it.
Usage: bench/sandbox_first_start.py [--runs 8] [--image TAG] [--timeout-ms 10000] [--cpus N]
       [--json OUT]"""

from __future__ import annotations

import argparse
import logging
import os
import pathlib
import re
import statistics
import tempfile
import time

from common import print_table, write_json

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import StateLayout
from clawd.sandbox import container as sbx
from clawd.sandbox import engine

PROFILE = "sbfirst"
NETWORK = "clawd-sandbox-bench"
_PHASES = re.compile(r"Docker start ([\d.]+) s, browser ready ([\d.]+) s later")


class _Phases(logging.Handler):
    """The start's own log line: Docker start, then browser ready."""

    def __init__(self):
        super().__init__()
        self.last: tuple[float, float] | None = None

    def emit(self, record):
        found = _PHASES.search(record.getMessage())
        if found:
            self.last = (float(found[1]), float(found[2]))


def _box(home: pathlib.Path, image: str | None, timeout_ms: int) -> sbx.SandboxContainer:
    sandbox = {"network": NETWORK, "autoStartTimeoutMs": timeout_ms}
    if image:
        sandbox["image"] = image
    data = {
        "browser": {
            "profiles": {
                "clawd": {"cdpPort": 18891},
                PROFILE: {"driver": "sandbox", "sandbox": sandbox},
            }
        }
    }
    config = config_from_data(data, env={"CLAWD_HOME": str(home)})
    return sbx.SandboxContainer(config.browser.profiles[PROFILE], StateLayout(home))


def _cpu_seconds(container_id: str) -> float | None:
    try:
        usage = pathlib.Path(f"/sys/fs/cgroup/cpuacct/docker/{container_id}/cpuacct.usage")
        return int(usage.read_text()) / 1e9
    except (OSError, ValueError):
        return None


def one_run(box: sbx.SandboxContainer, phases: _Phases, mode: str) -> dict:
    client = engine.client()
    if mode == "new":
        box.remove()
    phases.last = None
    began = time.monotonic()
    error = None
    try:
        box.ensure()
    except errors.ClawdError as exc:
        error = exc.message
    total = time.monotonic() - began
    container = client.containers.get(box.name)
    row = {
        "mode": mode,
        "totalS": round(total, 2),
        "dockerStartS": phases.last[0] if phases.last else None,
        "readyS": phases.last[1] if phases.last else None,
        "cpuS": _cpu_seconds(container.id),
        "load1": round(os.getloadavg()[0], 1),
        "ok": error is None,
        "error": error,
    }
    container.stop(timeout=5)
    return row


def figures(runs: int, image: str | None, timeout_ms: int) -> dict:
    phases = _Phases()
    logging.getLogger("clawd.sandbox").addHandler(phases)
    logging.getLogger("clawd.sandbox").setLevel(logging.INFO)
    with tempfile.TemporaryDirectory(prefix="sbfirst-") as home:
        box = _box(pathlib.Path(home), image, timeout_ms)
        try:
            rows = [one_run(box, phases, "new" if i % 2 == 0 else "stopped") for i in range(runs)]
        finally:
            box.remove()
    ready = [r["readyS"] for r in rows if r["readyS"] is not None]
    return {
        "image": image or engine.IMAGE,
        "timeoutMs": timeout_ms,
        "runs": rows,
        "failed": sum(not r["ok"] for r in rows),
        "readyMedianS": statistics.median(ready) if ready else None,
        "readyMaxS": max(ready) if ready else None,
    }


def cap_cpus(cpus: float) -> None:
    """Every container this process creates gets `cpus` CPUs (the SDK's create, wrapped: the
    profile has no such key)."""
    from docker.models.containers import ContainerCollection

    create = ContainerCollection.create
    ContainerCollection.create = lambda self, *a, **kw: create(
        self, *a, nano_cpus=int(cpus * 1e9), **kw
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--image", help="the image to start (default: this version's)")
    parser.add_argument("--timeout-ms", type=int, default=10000)
    parser.add_argument("--cpus", type=float, help="cap each container at this many CPUs")
    parser.add_argument("--json", metavar="OUT")
    args = parser.parse_args()
    if args.cpus:
        cap_cpus(args.cpus)
    data = figures(args.runs, args.image, args.timeout_ms)
    data["cpus"] = args.cpus
    cell = lambda v, f="{:.2f}": "-" if v is None else f.format(v)  # noqa: E731
    rows = [
        [
            r["mode"],
            cell(r["dockerStartS"]),
            cell(r["readyS"]),
            cell(r["totalS"]),
            cell(r["cpuS"]),
            r["load1"],
            "ok" if r["ok"] else "FAILED",
        ]
        for r in data["runs"]
    ]
    print_table(
        f"sandbox starts, {data['image']}, autoStartTimeoutMs {data['timeoutMs']}"
        + (f", capped at {args.cpus:g} CPU" if args.cpus else ""),
        ["container", "Docker start s", "ready s", "total s", "CPU s", "load", "result"],
        rows,
    )
    print(
        f"\n{data['failed']} of {len(rows)} failed; ready median {cell(data['readyMedianS'])} s, "
        f"max {cell(data['readyMaxS'])} s"
    )
    write_json(args.json, data)


if __name__ == "__main__":
    main()
