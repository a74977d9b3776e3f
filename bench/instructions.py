#!/usr/bin/env python3
"""What a request costs the service in instructions, counted by valgrind's callgrind: a figure
that does not drift with the machine's load (issue 16). On this shared 2-core VM the same code's
CPU time a request moved 0.22-0.35 ms between runs, its latency more; the instruction count of a
route moves under 3 %, so a change of a few percent to the request path shows here and nowhere
else. User-space instructions only: the system calls' own time (two socket writes and two reads a
request, for clawd as for any relay) is not in it.

The service runs as deployed (`python -m clawd serve`, access log at info) under callgrind; each
route is called N times over one keep-alive connection after a warm-up, between a zeroing and a
dump of the counters, and the count of every thread of the process is divided by N. Next to it,
under callgrind too: bench/least_relay.py answering the same evaluate (the least a Python service
does: no http.server, one CDP call), the same relay on http.server (--stdlib: the least a service
built as clawd is can do), and http.server's own BaseHTTPRequestHandler answering a fixed body
with no CDP call at all (--fixed: what the stdlib server clawd is built on costs by itself).
Under valgrind everything runs about 40 times slower, so timers that depend on the pace (the
DevTools watcher's 5 ms) fire more often than at full speed: compare counts with each other, not
with time.

    .venv/bin/python bench/instructions.py [--n 300] [--json OUT]      (needs valgrind)
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from act_latency import EVALUATE, least_relay, relay_process
from common import Site, print_table, start_service_process, write_json
from latency import RawHttp


def callgrind(out: str) -> tuple[str, ...]:
    return ("valgrind", "--tool=callgrind", f"--callgrind-out-file={out}.%p", "--dump-instr=no")


def counted(pid: int, out: str, call, n: int, warmup: int = 30) -> float:
    """Thousands of instructions a call of `call` costs process `pid` (run under callgrind)."""
    for _ in range(warmup):
        call()
    subprocess.run(["callgrind_control", "--zero", str(pid)], check=True, capture_output=True)
    for _ in range(n):
        call()
    before = set(glob.glob(f"{out}.{pid}*"))
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True)
    (dump,) = set(glob.glob(f"{out}.{pid}*")) - before
    with open(dump, encoding="utf-8") as text:
        total = re.search(r"^(?:totals|summary): (\d+)", text.read(), re.M)
    if total is None:
        raise RuntimeError(f"no totals in {dump}")
    return round(int(total.group(1)) / n / 1000, 1)


def figures(n: int) -> dict:
    workdir = tempfile.mkdtemp(prefix="clawd-callgrind-")
    out = os.path.join(workdir, "callgrind.out")
    site = Site()
    running = start_service_process(prefix=callgrind(out), ready_timeout=300)
    relay = relayed = stdlib = None
    try:
        client = running.client(timeout=120)
        client.start()
        tab = client.open(site.url("/index.html"))
        http = RawHttp(running.url, client.token)
        query = f"?targetId={tab['tabId']}"
        focus = json.dumps({"targetId": tab["tabId"]})
        pid = running.proc.pid
        result = {
            "GET /tabs": counted(pid, out, lambda: http("GET", "/tabs"), n),
            "POST /tabs/focus (1 CDP call)": counted(
                pid, out, lambda: http("POST", "/tabs/focus", focus), n
            ),
            "POST /act evaluate": counted(
                pid, out, lambda: http("POST", "/act" + query, EVALUATE), n
            ),
        }
        port = running.config.browser.profiles["clawd"].cdp_port
        relay, relay_url = least_relay(port, tab["targetId"], prefix=callgrind(out))
        least = RawHttp(relay_url, "")
        result["least relay evaluate"] = counted(
            relay.pid, out, lambda: least("POST", "/", EVALUATE), n
        )
        relayed, relayed_url = least_relay(
            port, tab["targetId"], prefix=callgrind(out), stdlib=True
        )
        on_stdlib = RawHttp(relayed_url, "")
        result["least relay on http.server evaluate"] = counted(
            relayed.pid, out, lambda: on_stdlib("POST", "/", EVALUATE), n
        )
        stdlib, stdlib_url = relay_process("--fixed", prefix=callgrind(out))
        fixed = RawHttp(stdlib_url, "")
        result["http.server, fixed answer, no CDP"] = counted(
            stdlib.pid, out, lambda: fixed("POST", "/", EVALUATE), n
        )
        return result
    finally:
        for process in (relay, relayed, stdlib):
            if process is not None:
                process.kill()
                process.wait()
        running.close()
        site.close()
        shutil.rmtree(workdir, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--json")
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        sys.exit("bench/instructions.py needs valgrind (Debian: apt-get install valgrind)")
    result = figures(args.n)
    least = result["least relay evaluate"]
    print_table(
        f"user-space instructions a request (thousands; callgrind, {args.n} calls each over one "
        "keep-alive connection, every thread of the process counted)",
        ["request", "k instructions", "x least relay"],
        [[name, value, round(value / least, 2)] for name, value in result.items()],
    )
    write_json(args.json, result)


if __name__ == "__main__":
    main()
