"""The closed word lists the API names (its modes and providers), declared apart from the tiers
that act on them, so the request declarations (clawd/route_fields.py) import no tier. Each tier
takes its list from here; tests/unit/test_words.py checks that each tier still agrees."""

from __future__ import annotations

EXTRACT_MODES = ("markdown", "text")  # web_fetch's extractMode (clawd/web/extract.py)
RENDER_MODES = ("auto", "never", "always")  # web_fetch's render: when a page is rendered
SEARCH_PROVIDERS = ("brave", "gemini", "kimi", "perplexity", "grok")  # clawd/web/search/
