"""Continuity's restore of localStorage (browser/continuity.py) through the shared scratch tab
(page/state/scratch.py): every origin written, not one request reaching a site (not even the
favicon Chromium fetches itself once another clawd profile on the same Chromium attaches the
tab), and the tab gone before the restore returns."""

from __future__ import annotations

import contextlib
import time

import pytest

from clawd import errors
from clawd.browser.continuity import StateKeeper
from clawd.cdp.connection import Connection
from clawd.cdp.session import Session
from clawd.config.model import RemoteOptions
from tests.support.browser import BareChromium, require_chromium
from tests.support.site import Site, answer

pytestmark = pytest.mark.timeout(180)

# on the old code the favicon reached a site in about one restore of two or three; Chromium asks a
# failed icon URL once a session, so each round restores new origins
ROUNDS = 12
# the check's own page: its icon inline, so any /favicon.ico a site gets came from the scratch tab
CHECK_PAGE = '<!doctype html><link rel="icon" href="data:,"><title>check</title>'


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    require_chromium()
    chromium = BareChromium(tmp_path_factory.mktemp("continuity-bare"))
    yield chromium
    chromium.close()


@pytest.fixture
def peer(client, bare):
    """A remote profile of the shared service on the same Chromium, started: its browser
    auto-attaches every new tab, the scratch tab too, with its hooks and navigation guard."""
    name = "continuity-peer"
    client.create_profile(name, cdp_url=f"http://127.0.0.1:{bare.port}")
    try:
        client.start(profile=name)
        yield name
    finally:
        client.delete_profile(name)


@contextlib.contextmanager
def _sites(count: int = 3):
    """New origins on 127.0.0.1 (a port each), each counting the requests it gets."""
    made = [Site() for _ in range(count)]
    try:
        for site in made:
            site.route("/check", lambda handler: answer(handler, 200, CHECK_PAGE))
        yield made
    finally:
        for site in made:
            site.close()


@contextlib.contextmanager
def _connected(bare):
    connection = Connection(bare.ws_url, name="continuity-test")
    try:
        yield connection
    finally:
        connection.close()


def _origin(site: Site) -> str:
    return site.url("").rstrip("/")


def _keeper(storage: dict) -> StateKeeper:
    keeper = StateKeeper("continuity-test", RemoteOptions())
    keeper.storage = storage
    keeper.ended = "the pool ended the session"
    return keeper


def _note_at(connection: Connection, origin: str, deadline: float) -> str | None:
    """localStorage's "note" as a page of the origin reads it (a real load: one request)."""
    root = Session(connection)
    target = root.call("Target.createTarget", {"url": origin + "/check"})["targetId"]
    try:
        attached = root.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        session = Session(connection, attached["sessionId"], target)
        expression = "[location.origin, document.readyState, localStorage.getItem('note')]"
        while time.monotonic() < deadline:
            try:  # while the tab still shows about:blank or is between documents
                got = session.call(
                    "Runtime.evaluate", {"expression": expression, "returnByValue": True}
                )
                at, state, note = got["result"]["value"]
            except (errors.CdpError, KeyError, ValueError):
                at, state, note = None, "loading", None
            if at == origin and state != "loading":
                return note
            time.sleep(0.05)
        raise AssertionError(f"no page of {origin} loaded in time")
    finally:
        root.try_call("Target.closeTarget", {"targetId": target})


def _pages(connection: Connection) -> set[str]:
    targets = Session(connection).call("Target.getTargets")["targetInfos"]
    return {t["targetId"] for t in targets if t["type"] == "page"}


def test_restoring_local_storage_sends_no_request_to_the_sites(bare, peer):
    for round_no in range(ROUNDS):
        with _sites() as sites, _connected(bare) as connection:
            storage = {_origin(s): {"note": f"r{round_no}-{i}"} for i, s in enumerate(sites)}
            restored = _keeper(storage).restore_state(connection)
            assert restored["origins"] == list(storage), restored
            deadline = time.monotonic() + 20
            # each check loads a page of its site: what the scratch tab sent is in by then
            notes = [_note_at(connection, origin, deadline) for origin in storage]
            assert notes == [items["note"] for items in storage.values()]
            assert [s.hits for s in sites] == [["/check"]] * len(sites), f"round {round_no}"


def test_the_scratch_tab_is_gone_once_the_restore_returns(bare):
    with _sites() as sites, _connected(bare) as connection:
        storage = {_origin(s): {"note": "kept"} for s in sites}
        for round_no in range(5):
            before = _pages(connection)
            assert len(_keeper(storage).restore_state(connection)["origins"]) == len(sites)
            assert _pages(connection) == before, f"round {round_no}"


def test_a_non_http_origin_is_skipped_and_the_rest_restored(bare):
    with _sites(1) as (site,), _connected(bare) as connection:
        storage = {"file://": {"a": "b"}, _origin(site): {"note": "kept"}}
        restored = _keeper(storage).restore_state(connection)
        assert restored["origins"] == [_origin(site)], restored
        assert site.hits == []


def test_a_scratch_tab_on_a_closed_connection_is_a_clawd_error(bare):
    from clawd.page.state.scratch import ScratchTab  # here: the module is new, the rest is not

    with _connected(bare) as connection:
        connection.close()
        with pytest.raises(errors.BrowserGone):
            ScratchTab(connection)


def test_a_scratch_tab_s_own_session_gets_none_of_the_tab_hooks(service, client, site):
    """Chrome reports the scratch tab's own attach to the browser too: the browser keeps the tab
    it has (its session, its hooks) and leaves the second session alone, else the tab's guard
    would pause and continue the scratch tab's requests on that session."""
    from clawd.page.state.scratch import ScratchTab

    client.open(site.url("/index.html"))  # the browser is up
    browser = service.service.runtime(None).ensure()
    with ScratchTab(browser.connection, browser) as scratch:
        tab = browser.wait_for_tab(scratch.target_id, 5.0)
        assert tab.session.session_id != scratch.session.session_id
