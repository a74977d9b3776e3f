"""The agent's one-line effect for a window a relay-shared tab opened that the relay does not
share (`openedUnshared`, docs/actions.md)."""

from __future__ import annotations

from clawd.agent import render


def test_a_window_the_relay_does_not_share_is_named_by_its_url():
    found = {"openedUnshared": [{"url": "http://a/next"}]}
    assert render.effect(found) == "effect: opened unshared tab http://a/next"


def test_an_unshared_window_whose_url_is_unknown_still_shows():
    found = {"openedTabs": ["t3"], "openedUnshared": [{}]}
    assert render.effect(found) == "effect: opened tab t3; opened unshared tab (url unknown)"
