"""What the service process loads before its first request: the libraries only some routes need
(HTTP clients, extraction, Docker, the relay's websockets server) load at that route's first
call, so the idle service stays small (issue 16: `requests` alone is 9 MB of its RSS)."""

from __future__ import annotations

import json
import subprocess
import sys

# what `clawd-browser serve` imports: the CLI, the daemon and the whole route table
SERVE_IMPORTS = (
    "import clawd.cli.main, clawd.cli.commands.serve, clawd.daemon, clawd.server.app, "
    "clawd.server.service, clawd.browser.runtime, clawd.browser.launcher"
)
LOADED_ON_DEMAND = (
    "requests",
    "urllib3",
    "trafilatura",
    "lxml",
    "docker",
    "websockets",
    "icu",
    "re2",
)


def test_the_service_process_imports_no_library_that_only_some_routes_need():
    probe = (
        f"import json, sys; {SERVE_IMPORTS}; "
        f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}})))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert "clawd" in loaded and "psutil" in loaded  # the probe imported the service for real
    assert loaded.isdisjoint(LOADED_ON_DEMAND), sorted(loaded & set(LOADED_ON_DEMAND))
