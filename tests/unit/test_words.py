"""The API's closed word lists (clawd/words.py) are the tiers' own: what the request declarations
offer is exactly what the web tier acts on, and the declarations import no tier."""

from __future__ import annotations

import json
import subprocess
import sys

from clawd import words
from clawd.web.search import PROVIDERS


def test_the_search_tier_has_exactly_the_providers_the_api_offers():
    assert tuple(PROVIDERS) == words.SEARCH_PROVIDERS


TIERS = ("web", "page", "server", "browser", "cdp", "sandbox", "relay", "agent")


def test_the_request_declarations_load_no_tier_page_or_server():
    probe = (
        "import json, sys; import clawd.route_fields, clawd.acts; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('clawd'))))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout)
    assert "clawd.route_fields" in loaded and "clawd.fields" in loaded  # it did import them
    tiers = [m for m in loaded if m.count(".") and m.split(".")[1] in TIERS]
    assert tiers == []
