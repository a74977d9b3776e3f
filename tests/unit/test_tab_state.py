"""Typed per-tab state: the registry on the Tab (clawd/browser/tab.py) and the state objects the
page/ concerns declare next to their code."""

from __future__ import annotations

import threading
from types import SimpleNamespace

import pytest

from clawd import errors
from clawd.browser.tab import StateKey, Tab, TabState
from clawd.page.observe import interception, tracing
from clawd.page.state.emulation import EmulationState


class Counter:
    def __init__(self, tab):
        self.tab = tab


def test_state_is_made_once_per_tab_on_first_use_and_knows_its_tab():
    key = StateKey("counter", Counter)
    state = TabState(tab := SimpleNamespace(tab_id="t1"))
    assert state.peek(key) is None
    made = state[key]
    assert state[key] is made and made.tab is tab and state.peek(key) is made


def test_two_threads_asking_at_once_get_the_same_state():
    key = StateKey("slow", lambda tab: object())
    state = TabState(SimpleNamespace())
    seen, start = [], threading.Barrier(8)

    def ask():
        start.wait()
        seen.append(state[key])

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(s) for s in seen}) == 1


def test_a_freed_tab_keeps_nothing_made_after_it_closed():
    key = StateKey("counter", Counter)
    state = TabState(SimpleNamespace())
    state[key]
    state.clear()
    assert state.peek(key) is None
    state[key]  # a late event of the closed tab
    assert state.peek(key) is None


def test_a_tab_holds_its_state_and_the_browser_marks_it_instrumented():
    tab = Tab("t1", "ABC", session=None)
    assert isinstance(tab.state, TabState) and not tab.instrumented.is_set()
    assert interception.state(tab).watch.frame_id == "ABC"


def test_emulation_state_hands_out_copies_and_forgets_empty_values():
    held = EmulationState()
    held.remember("media", {"colorScheme": "dark"})
    held.snapshot()["media"]["colorScheme"] = "light"
    held.get("media")["colorScheme"] = "light"
    assert held.get("media") == {"colorScheme": "dark"}
    held.remember("offline", False)
    held.remember("media", {})
    assert held.snapshot() == {}
    held.update(device="iPhone 13", touch=True)
    assert held.forget("device", "viewport") == {"device": "iPhone 13"}
    assert held.take() == {"touch": True} and held.snapshot() == {}


def test_interception_state_takes_the_blocked_navigation_once():
    held = interception.Interception("F1")
    held.block({"url": "http://10.0.0.1/", "reason": "private", "code": "NAVIGATION_BLOCKED"})
    assert held.take_blocked()["url"] == "http://10.0.0.1/"
    assert held.take_blocked() is None
    assert held.set_credentials({"username": "u", "password": "p"}) is None
    assert held.credentials() == {"username": "u", "password": "p"}
    assert held.set_credentials(None) == {"username": "u", "password": "p"}


def test_only_one_of_two_trace_starts_of_a_tab_wins():
    tab = SimpleNamespace(tab_id="t1", calls=[])
    tab.state = TabState(tab)
    tab.session = SimpleNamespace(call=lambda method, params=None, **kw: tab.calls.append(method))
    tracing.start(tab)
    with pytest.raises(errors.TraceRunning):
        tracing.start(tab)
    assert tab.calls == ["Tracing.start"]


def test_a_trace_start_chromium_refuses_does_not_count_as_recording():
    def refuse(method, params=None, **kw):
        raise errors.CdpError("Tracing has already been started")

    tab = SimpleNamespace(tab_id="t1", session=SimpleNamespace(call=refuse))
    tab.state = TabState(tab)
    with pytest.raises(errors.CdpError):
        tracing.start(tab)
    assert not tab.state[tracing.TRACE].recording()
