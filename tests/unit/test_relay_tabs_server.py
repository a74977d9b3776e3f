"""The relay passes on a window a shared tab opened (the extension's tabOpened) as its own event
Relay.tabOpened on the browser session, naming the opener's target; a report of a tab that is not
shared, or of an odd shape, is dropped and the relay carries on."""

from __future__ import annotations

import logging

from clawd.browser.browser import RELAY_TAB_OPENED
from clawd.cdp.connection import Connection
from tests.unit.test_relay_server import ScriptedExtension, _wait, relay  # noqa: F401

TABS = [{"tabId": 1, "targetId": "T1"}, {"tabId": 2, "targetId": "T2"}]


def _opened(relay_server):  # noqa: F811
    """A DevTools client of the relay and the Relay.tabOpened events it hears."""
    cdp = Connection(relay_server.browser_ws_url)
    heard: list[dict] = []
    cdp.events.subscribe(RELAY_TAB_OPENED, heard.append, None)
    return cdp, heard


def test_a_window_a_shared_tab_opened_is_told_with_its_opener_and_url(relay):  # noqa: F811
    ext = ScriptedExtension(relay, tabs=TABS)
    cdp, heard = _opened(relay)
    try:
        cdp.call("Target.getTargets")  # the client is connected before the report
        ext.send({"type": "tabOpened", "openerTabId": 2, "url": "https://a/next"})
        _wait(lambda: heard, "Relay.tabOpened")
        assert heard == [{"openerId": "T2", "url": "https://a/next"}]
    finally:
        cdp.close()


def test_a_report_of_an_unshared_or_odd_opener_is_dropped(relay, caplog):  # noqa: F811
    ext = ScriptedExtension(relay, tabs=TABS)
    cdp, heard = _opened(relay)
    try:
        cdp.call("Target.getTargets")
        with caplog.at_level(logging.WARNING, logger="clawd.relay"):
            for opener in (9, "1", None, True):
                ext.send({"type": "tabOpened", "openerTabId": opener, "url": "https://a/"})
            ext.send({"type": "tabOpened", "openerTabId": 1, "url": ["not", "a", "url"]})
            _wait(lambda: heard, "the one well-formed report")
        assert heard == [{"openerId": "T1", "url": ""}]
        dropped = [
            r for r in caplog.records if "tabOpened of a tab that is not shared" in r.message
        ]
        assert len(dropped) == 4, dropped
        assert cdp.call("Target.getTargets")["targetInfos"]  # the relay carries on
    finally:
        cdp.close()
