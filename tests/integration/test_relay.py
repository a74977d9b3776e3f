"""Profile chrome end to end (DESIGN.md §15): the clawd extension loaded into a second Chromium,
paired with the relay of an in-process service, a tab shared through the extension's own toolbar
code path, then driven through profile chrome with the code every other profile uses."""

from __future__ import annotations

import json
import logging
import pathlib
import time

import pytest

from clawd import errors
from tests.support.browser import require_chromium, service_config
from tests.support.extension import ExtensionChromium
from tests.support.service import RunningService

pytestmark = pytest.mark.chromium
CHROME = "chrome"


OTHER = "other.test"  # the fixture site under another site's name: its frames are out of process


@pytest.fixture(scope="module")
def relay_service(tmp_path_factory):
    require_chromium()
    home = tmp_path_factory.mktemp("relay-home")
    config = service_config(
        home,
        extra={
            "relay": {"enabled": True, "port": 0},
            "browser": {"ssrfPolicy": {"allowedHostnames": ["127.0.0.1", OTHER]}},
        },
    )
    running = RunningService(
        config, resolver=lambda host: ["127.0.0.1"] if host in (OTHER, "127.0.0.1") else []
    )
    yield running
    running.close()


@pytest.fixture(scope="module")
def users_chrome(tmp_path_factory, relay_service):
    chrome = ExtensionChromium(
        tmp_path_factory.mktemp("users-chrome"),
        extra_args=("--site-per-process", f"--host-resolver-rules=MAP {OTHER} 127.0.0.1"),
    )
    yield chrome
    chrome.close()


@pytest.fixture(scope="module")
def paired(relay_service, users_chrome):
    relay = relay_service.service.relay
    users_chrome.pair_in_options_page(relay.port, relay.token)
    users_chrome.wait_until(lambda: relay.connected, "the extension connected to the relay")
    return users_chrome


@pytest.fixture
def rc(relay_service):
    client = relay_service.client()
    yield client
    client.close()


@pytest.fixture
def shared(paired, rc, site):
    """A tab the user opened on the fixture page and shared with the toolbar button."""
    tab_id = paired.open_tab(site.url("/relay/shared.html"))
    answer = paired.toggle(tab_id)
    assert answer["shared"] is True, answer
    tab = _wait_tab(rc, lambda t: t["url"].endswith("/relay/shared.html"))
    yield tab_id, tab
    if paired.evaluate(f"shared.has({tab_id})"):
        paired.toggle(tab_id)
    paired.evaluate(f"chrome.tabs.remove({tab_id})")


def _wait_tab(rc, match, timeout: float = 10.0) -> dict:
    deadline = time.monotonic() + timeout
    tabs = None
    while time.monotonic() < deadline:
        tabs = rc.tabs(profile=CHROME)["tabs"]
        found = [t for t in tabs if match(t)]
        if found:
            return found[0]
        time.sleep(0.05)
    raise AssertionError(f"no such tab in profile chrome within {timeout:g} s; saw {tabs}")


def _ref(snapshot: dict, role: str, name: str) -> str:
    for ref, info in snapshot["refs"].items():
        if info["role"] == role and info.get("name") == name:
            return ref
    raise AssertionError(f"no {role} {name!r} in the snapshot:\n{snapshot['snapshot']}")


def test_profile_chrome_is_listed_with_driver_extension(rc, paired):
    profiles = {p["name"]: p for p in rc.profiles()["profiles"]}
    assert profiles[CHROME]["driver"] == "extension", profiles


def test_status_says_the_extension_is_connected_and_counts_shared_tabs(rc, paired, shared):
    for profile in (CHROME, None):  # the default profile's status says it too
        relay = rc.status(profile=profile)["relay"]
        assert relay["connected"] is True and relay["sharedTabs"] == 1, (profile, relay)


def test_doctor_reports_the_connected_extension_and_its_shared_tabs(rc, paired, shared):
    checks = {c["name"]: c for c in rc.doctor()["checks"]}
    assert "1 tab(s) shared" in checks["relay"]["detail"], checks["relay"]


def test_a_shared_tab_is_driven_through_profile_chrome(rc, paired, shared, site):
    tab_id, tab = shared
    assert paired.badge(tab_id) == "ON"
    listed = rc.tabs(profile=CHROME)["tabs"]
    assert [t["url"] for t in listed] == [site.url("/relay/shared.html")], listed

    snap = rc.snapshot(profile=CHROME, target_id=tab["tabId"])
    assert "Press me" in snap["snapshot"], snap["snapshot"]
    rc.click(_ref(snap, "button", "Press me"), target_id=tab["tabId"], profile=CHROME)
    rc.type(_ref(snap, "textbox", "Note"), "hello relay", target_id=tab["tabId"], profile=CHROME)
    after = rc.snapshot(profile=CHROME, target_id=tab["tabId"])["snapshot"]
    assert 'button "Clicked"' in after and "typed: hello relay" in after, after
    # what the page shows is what the user's own browser shows: read it there, not via the relay
    assert paired.page_call(tab_id, "document.getElementById('note').value") == "hello relay"

    shot = rc.screenshot(tab["tabId"], profile=CHROME)
    assert pathlib.Path(shot["path"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot

    texts = [m["text"] for m in rc.console(target_id=tab["tabId"], profile=CHROME)["messages"]]
    assert "clicked through the relay" in texts, texts

    rc.navigate(site.url("/relay/other.html"), target_id=tab["tabId"], profile=CHROME)
    moved = rc.snapshot(profile=CHROME, target_id=tab["tabId"])["snapshot"]
    assert "Somewhere else" in moved, moved
    assert paired.page_call(tab_id, "location.pathname") == "/relay/other.html"
    paired.wait_until(lambda: paired.badge(tab_id) == "ON", "the badge still ON after navigating")
    seen = rc.requests(filter="other.html", target_id=tab["tabId"], profile=CHROME)["requests"]
    assert [r["url"] for r in seen] == [site.url("/relay/other.html")], seen


def test_an_out_of_process_iframe_of_a_shared_tab_is_read_and_acted_on(
    relay_service, rc, paired, site
):
    """The tab's own child sessions (chrome.debugger's flattened sessions) come through."""
    tab_id = paired.open_tab(site.url("/snapshot/oopif.html"))
    try:
        paired.toggle(tab_id)
        tab = _wait_tab(rc, lambda t: t["url"].endswith("/snapshot/oopif.html"))
        live = relay_service.live_tab(tab["tabId"], CHROME)
        paired.wait_until(lambda: live.child_sessions(), "the cross-site frame's session")
        snap = paired.wait_until(
            lambda: (
                (s := rc.snapshot(profile=CHROME, target_id=tab["tabId"]))
                and 'button "Inside"' in s["snapshot"]
                and s
            ),
            "the frame's content in the snapshot",
        )
        inside = _ref(snap, "button", "Inside")
        assert inside.startswith("f"), snap["snapshot"]
        rc.click(inside, target_id=tab["tabId"], profile=CHROME)
    finally:
        paired.evaluate(f"chrome.tabs.remove({tab_id})")


def test_when_clawd_lets_go_the_tab_is_left_as_it_was(rc, paired, shared, site):
    """Stopping profile chrome clears what clawd switched on (emulation, request interception):
    the user's tab has its own size again and still loads pages."""
    tab_id, tab = shared
    width = paired.page_call(tab_id, "innerWidth")
    rc.set_viewport(411, 300, target_id=tab["tabId"], profile=CHROME)
    assert paired.page_call(tab_id, "innerWidth") == 411
    rc.focus(tab["tabId"], profile=CHROME)
    rc.stop(profile=CHROME)
    paired.wait_until(lambda: paired.page_call(tab_id, "innerWidth") == width, "own size again")
    paired.page_call(tab_id, "location.href = 'other.html'")
    paired.wait_until(
        lambda: (
            paired.page_call(tab_id, "document.readyState === 'complete' && document.title")
            == "Other page"
        ),
        "the user's tab loads a page with clawd gone",
    )
    assert paired.evaluate(f"shared.has({tab_id})")  # still shared: clawd may come back
    assert _wait_tab(rc, lambda t: t["url"].endswith("/relay/other.html"))


def test_a_tab_the_user_detaches_disappears_and_answers_tab_not_found(rc, paired, shared):
    tab_id, tab = shared
    assert paired.toggle(tab_id)["shared"] is False
    assert paired.badge(tab_id) == ""
    paired.wait_until(lambda: not rc.tabs(profile=CHROME)["tabs"], "the tab left profile chrome")
    with pytest.raises(errors.TabNotFound):
        rc.snapshot(profile=CHROME, target_id=tab["tabId"])


def test_no_shared_tab_answers_409_relay_no_tab_with_the_instruction(rc, paired):
    paired.wait_until(lambda: not rc.tabs(profile=CHROME)["tabs"], "no tab shared")
    with pytest.raises(errors.RelayNoTab) as caught:
        rc.snapshot(profile=CHROME)
    assert "click the clawd button" in caught.value.message


def test_a_method_chrome_debugger_cannot_run_answers_501_naming_it(rc, paired, shared, site):
    with pytest.raises(errors.RelayUnsupported) as caught:
        rc.grant_permissions(site.url("/"), ["geolocation"], profile=CHROME)
    assert "Browser.grantPermissions" in caught.value.message


def test_waiting_for_a_download_answers_501_at_once(rc, paired, shared):
    """Downloads need Browser.setDownloadBehavior, which chrome.debugger does not have: say so
    rather than wait out the timeout."""
    _, tab = shared
    began = time.monotonic()
    with pytest.raises(errors.RelayUnsupported) as caught:
        rc.wait_download(timeout_ms=20000, target_id=tab["tabId"], profile=CHROME)
    assert "Browser.setDownloadBehavior" in caught.value.message
    assert time.monotonic() - began < 10


def test_opening_a_tab_on_profile_chrome_opens_and_attaches_one(rc, paired, shared, site):
    opened = rc.open(site.url("/relay/other.html"), profile=CHROME)
    try:
        assert opened["url"].endswith("/relay/other.html"), opened
        shared_ids = paired.evaluate("[...shared.keys()]")
        assert len(shared_ids) == 2, shared_ids
    finally:
        rc.close_tab(opened["tabId"], profile=CHROME)
    paired.wait_until(lambda: len(paired.evaluate("[...shared.keys()]")) == 1, "the tab closed")


def test_cookies_of_the_users_profile_are_read_through_a_shared_tab(rc, paired, shared, site):
    _, tab = shared
    cookie = {"name": "relay", "value": "yes", "url": site.url("/")}
    rc.set_cookie(cookie, target_id=tab["tabId"], profile=CHROME)
    every = rc.cookies(target_id=tab["tabId"], all=True, profile=CHROME)["cookies"]
    assert any(c["name"] == "relay" and c["value"] == "yes" for c in every), every


def test_without_the_extension_profile_chrome_answers_503_relay_disconnected(tmp_path, site):
    running = RunningService(
        service_config(tmp_path, extra={"relay": {"enabled": True, "port": 0}})
    )
    try:
        client = running.client()
        with pytest.raises(errors.RelayDisconnected) as caught:
            client.snapshot(profile=CHROME)
        assert str(running.service.relay.port) in caught.value.message
        client.close()
    finally:
        running.close()


def test_the_extension_reconnects_when_the_relay_comes_back(tmp_path):
    """clawd restarts: the extension finds the relay again (back-off) and reports its tabs."""
    from clawd.relay.server import RelayServer

    chrome = ExtensionChromium(tmp_path)
    relay = RelayServer("r" * 32, port=0).start()
    port = relay.port
    try:
        chrome.pair(port, "r" * 32)
        chrome.wait_until(lambda: relay.connected, "first connection")
        tab_id = chrome.open_tab("about:blank")
        chrome.toggle(tab_id)
        chrome.wait_until(lambda: relay.shared_tabs(), "the shared tab reported")
        relay.stop()
        relay = RelayServer("r" * 32, port=port).start()
        chrome.wait_until(lambda: relay.connected, "reconnected after the restart", timeout=15)
        assert [t.tab_id for t in relay.shared_tabs()] == [tab_id]
    finally:
        relay.stop()
        chrome.close()


def test_a_worker_chrome_ended_comes_back_with_its_shared_tabs(tmp_path, site):
    """Chrome may end the extension's worker; the next event starts it again, and it finds the
    tabs it shared still attached and reports them to the relay."""
    from clawd.relay.server import RelayServer

    chrome = ExtensionChromium(tmp_path)
    relay = RelayServer("w" * 32, port=0).start()
    try:
        chrome.pair(relay.port, "w" * 32)
        chrome.wait_until(lambda: relay.connected, "first connection")
        tab_id = chrome.open_tab(site.url("/relay/shared.html"))
        chrome.toggle(tab_id)
        chrome.wait_until(lambda: relay.shared_tabs(), "the shared tab reported")
        chrome.stop_worker()
        chrome.wait_until(lambda: not relay.connected, "the worker's socket gone")
        chrome.navigate_as_user("/relay/shared.html", site.url("/relay/other.html"))
        chrome.wait_until(lambda: relay.connected, "the worker back and connected")
        assert [t.tab_id for t in relay.shared_tabs()] == [tab_id]
        chrome.reattach_worker()
        assert chrome.evaluate(f"shared.has({tab_id})")
        chrome.wait_until(lambda: chrome.badge(tab_id) == "ON", "the badge ON again")
    finally:
        relay.stop()
        chrome.close()


def test_a_web_page_in_the_users_chrome_cannot_reach_the_relay(
    relay_service, paired, rc, site, caplog
):
    """The threat: any page the user visits can open ws://127.0.0.1:<relayPort>/... . Its Origin
    (which a page cannot leave out or forge) is refused before a websocket exists."""
    relay = relay_service.service.relay
    caplog.set_level(logging.WARNING, logger="clawd.relay")
    tab_id = paired.open_tab(site.url("/relay/hostile.html"))
    devtools_path = relay.browser_ws_url.split(str(relay.port), 1)[1]
    try:
        for path in ("/extension", devtools_path):
            answer = paired.page_call(tab_id, f"probe({relay.port}, {json.dumps(path)})")
            assert answer.startswith("refused"), (path, answer)
        fetched = paired.page_call(
            tab_id,
            f"fetch('http://127.0.0.1:{relay.port}/json/version')"
            ".then(r => 'read ' + r.status, e => 'failed')",
        )
        assert fetched == "failed", fetched
        page_origin = site.url("/").rstrip("/")
        refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
        assert sum(page_origin in m for m in refusals) >= 2, refusals
        assert relay.connected  # the extension's own connection is untouched
    finally:
        paired.evaluate(f"chrome.tabs.remove({tab_id})")
