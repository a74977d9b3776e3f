"""Which execution contexts hold clawd's snapshot script (page/snapshot/inject.py Injected): a new
document's context gets the script without being asked first; a known one, or any of a session
whose new documents Chrome gives the script (preload), is asked."""

from __future__ import annotations

import gc

from clawd.page.snapshot.inject import Injected


class FakeSession:
    """Stands for a cdp Session: only its identity matters here."""


def test_a_context_is_known_after_it_is_added_and_only_in_its_own_session():
    injected, one, other = Injected(), FakeSession(), FakeSession()
    assert not injected.known(one, 3)
    injected.add(one, 3)
    assert injected.known(one, 3)
    assert not injected.known(other, 3)  # context ids are per renderer process


def test_only_the_last_contexts_are_kept():
    injected, session = Injected(), FakeSession()
    for context in range(Injected.KEEP + 10):
        injected.add(session, context)
    assert not injected.known(session, 9)
    assert injected.known(session, 10) and injected.known(session, Injected.KEEP + 9)
    injected.add(session, 10)  # used again: kept over older ones
    injected.add(session, Injected.KEEP + 10)
    assert injected.known(session, 10) and not injected.known(session, 11)


def test_a_session_that_is_gone_takes_its_contexts_with_it():
    injected, session = Injected(), FakeSession()
    injected.add(session, 1)
    del session
    gc.collect()
    assert len(injected._contexts) == 0


def test_a_preloaded_sessions_contexts_are_asked_first_and_it_is_preloaded_once():
    injected, preloaded, other = Injected(), FakeSession(), FakeSession()
    assert injected.first_preload(preloaded)
    assert not injected.first_preload(preloaded)  # Chrome is sent the script once a session
    assert injected.known(preloaded, 7) and injected.known(preloaded, 8)
    assert not injected.known(other, 7)


def test_a_preloaded_session_that_is_gone_is_forgotten():
    injected, session = Injected(), FakeSession()
    injected.first_preload(session)
    del session
    gc.collect()
    assert len(injected._preloaded) == 0
