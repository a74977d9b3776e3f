"""The shape of an answer about a tab: `{ok, targetId, tabId, ...}` (docs/api.md). Endpoints wrap
what the page layer returned in it; the page layer returns plain data."""

from __future__ import annotations


def tab_answer(tab, **fields) -> dict:
    """`{"ok": true, "targetId", "tabId"}` followed by `fields` (in their order)."""
    return {"ok": True, "targetId": tab.target_id, "tabId": tab.tab_id, **fields}
