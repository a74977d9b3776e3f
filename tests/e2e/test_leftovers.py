"""A process that launched Chromium and exits without stopping it leaves no Chromium behind."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import psutil

from tests.support.browser import require_chromium

SCRIPT = textwrap.dedent("""
    import pathlib, sys, tempfile
    from tests.support.browser import service_config
    from tests.support.service import RunningService
    running = RunningService(service_config(pathlib.Path(tempfile.mkdtemp())))
    running.client().start()
    print(running.client().status()["pid"], flush=True)
    # no running.close(): the interpreter just exits
""")


def test_chromium_does_not_outlive_the_process_that_launched_it(tmp_path):
    require_chromium()
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=str(__import__("pathlib").Path(__file__).resolve().parents[2]),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    pid = int(done.stdout.strip().splitlines()[-1])
    try:
        proc = psutil.Process(pid)
        gone = proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        gone = True
    assert gone, f"Chromium {pid} outlived the process that launched it"
