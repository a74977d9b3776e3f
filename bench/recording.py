#!/usr/bin/env python3
"""What recording a tab costs: CPU of the service process, of its ffmpeg encoder and of Chromium
while a page animates, with and without POST /record/start, at each frame rate asked, in one run.
Usage: bench/recording.py [--seconds 10] [--fps 10 5 30] [--json OUT]"""

from __future__ import annotations

import argparse
import time

import psutil
from common import Site, print_table, start_service_process, write_json

from tests.support.site import answer

# a moving square and a ticking counter: Chrome paints every frame, as a busy page does
ANIMATED = """<!doctype html><title>moving</title><body style="margin:0;font:40px sans-serif">
<div id="box" style="position:absolute;top:80px;width:120px;height:120px;background:#c33"></div>
<p id="n"></p><script>
let x = 0, n = 0;
(function step() {
  x = (x + 5) % 600; box.style.left = x + 'px'; n.textContent = ++n;
  requestAnimationFrame(step);
})();
</script>"""


def cpu_seconds(processes: list[psutil.Process]) -> float:
    total = 0.0
    for p in processes:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def groups(service: psutil.Process) -> dict[str, list[psutil.Process]]:
    """The service itself, its ffmpeg children, and the rest of its tree (Chromium's)."""
    children = service.children(recursive=True)
    encoders = [p for p in children if "ffmpeg" in p.name()]
    return {
        "service": [service],
        "encoder": encoders,
        "chromium": [p for p in children if p not in encoders],
    }


def measure(client, service: psutil.Process, tab_id: str, seconds: float, fps: int | None):
    """CPU % (of one core) of each group over `seconds`, recording at `fps` (None: not)."""
    if fps is not None:
        client.record_start(target_id=tab_id, fps=fps, max_seconds=seconds + 30)
        time.sleep(0.5)  # the encoder is started at the first frame
    procs = groups(service)
    before = {name: cpu_seconds(ps) for name, ps in procs.items()}
    began = time.monotonic()
    time.sleep(seconds)
    wall = time.monotonic() - began
    used = {name: cpu_seconds(ps) - before[name] for name, ps in procs.items()}
    done = client.record_stop(target_id=tab_id) if fps is not None else {}
    row = {name: round(100 * used[name] / wall, 1) for name in used}
    row.update(
        frames=done.get("frames", "-"),
        screencastFrames=done.get("screencastFrames", "-"),
        bytes=done.get("bytes", "-"),
    )
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--fps", type=int, nargs="+", default=[10, 5, 30])
    ap.add_argument("--json")
    args = ap.parse_args()
    site = Site()
    site.route("/bench/animated.html", lambda h: answer(h, 200, ANIMATED))
    running = start_service_process()
    try:
        client = running.client()
        client.start()
        tab = client.open(site.url("/bench/animated.html"))
        service = psutil.Process(running.proc.pid)
        rows = {"off": measure(client, service, tab["tabId"], args.seconds, None)}
        for fps in args.fps:
            rows[f"{fps} fps"] = measure(client, service, tab["tabId"], args.seconds, fps)
        header = [
            "recording",
            "service %",
            "encoder %",
            "chromium %",
            "frames",
            "screencast",
            "bytes",
        ]
        table = [
            [
                name,
                r["service"],
                r["encoder"],
                r["chromium"],
                r["frames"],
                r["screencastFrames"],
                r["bytes"],
            ]
            for name, r in rows.items()
        ]
        print_table(
            f"CPU (% of one core) over {args.seconds:g} s of an animating page", header, table
        )
        write_json(args.json, rows)
    finally:
        running.close()
        site.close()


if __name__ == "__main__":
    main()
