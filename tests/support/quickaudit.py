"""The walker's quick-name audit (clawd/page/snapshot/js/quickname.js): each name computed the
short way is computed Playwright's general way beside it, in the page, and any difference kept.
Used by tests/integration/test_snapshot_quickname.py and bench/quickname_audit.py."""

from __future__ import annotations

import json

from clawd.page.snapshot import aria

AUDIT_ON = "__clawd.auditQuickNames = true, __clawd.quickAudit = {count: 0, general: 0, differ: []}"


def start(running, tab_id: str) -> tuple[object, int]:
    """Turn the audit on in the tab's document (a snapshot has made the walker's world there):
    the session and the world, for `result`."""
    session = running.live_tab(tab_id).session
    context = aria.world(session, session.target_id, 10)
    aria.evaluate(session, context, AUDIT_ON, 10)
    return session, context


def result(session, context: int) -> dict:
    """What the audit saw since it was turned on: {count, general, differ}."""
    return json.loads(aria.evaluate(session, context, "JSON.stringify(__clawd.quickAudit)", 10))


def audited_snapshot(client, running, tab_id: str, url: str) -> dict:
    """A cold snapshot of `url` with the audit on: {count, general, differ}."""
    client.navigate(url, target_id=tab_id)
    client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    session, context = start(running, tab_id)
    client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    return result(session, context)
