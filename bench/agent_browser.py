"""agent-browser (npm `agent-browser`, a CLI that drives Chromium for agents) for the benchmarks
that compare with it (agent_steps.py, snapshot.py): installed once from the npm registry into a
cache outside the tree, run on this machine's Chromium (it cannot download its own browser here).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
from collections.abc import Sequence

VERSION = "agent-browser@0.41.2"


def command(session: str, launch_args: Sequence[str] = ()) -> list[str]:
    """The CLI's argv for `session` (its own daemon and browser), installed first if it is not
    (as tests/support/widgets.py does); `launch_args`: Chromium flags beyond --no-sandbox, used
    when the session's browser starts. Raises OSError or CalledProcessError without npm."""
    root = pathlib.Path(
        os.environ.get("CLAWD_AGENT_BROWSER_DIR")
        or pathlib.Path.home() / ".cache" / "clawd-test" / "agent-browser"
    )
    binary = root / "node_modules" / ".bin" / "agent-browser"
    if not binary.exists():
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(root), VERSION],
            check=True,
        )
    chromium = shutil.which("chromium") or shutil.which("chromium-browser") or "chromium"
    os.environ.setdefault("AGENT_BROWSER_EXECUTABLE_PATH", chromium)
    os.environ.setdefault("AGENT_BROWSER_ARGS", "--no-sandbox")  # run as root here
    # newline-separated: a flag's value may hold commas (--host-resolver-rules)
    have = os.environ["AGENT_BROWSER_ARGS"].split("\n")
    os.environ["AGENT_BROWSER_ARGS"] = "\n".join(
        [*have, *(a for a in launch_args if a not in have)]
    )
    return [str(binary), "--session", session]


def say(cli: Sequence[str], *args: str, timeout: float = 60) -> str:
    """What the CLI printed for one command (its stdout: what an agent reads)."""
    done = subprocess.run([*cli, *args], capture_output=True, text=True, timeout=timeout)
    return done.stdout
