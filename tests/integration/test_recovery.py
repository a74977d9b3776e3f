"""Recovery: Chromium killed mid-request, a renderer crash, a dead remote peer, idle tabs."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from clawd import errors
from tests.support.browser import service_config
from tests.support.service import RunningService
from tests.support.site import answer


@pytest.fixture
def own_service(tmp_path, site):
    running = RunningService(service_config(tmp_path / "home"))
    yield running
    running.close()


def _hanging_route(site, path):
    release = threading.Event()

    def hang(handler):
        release.wait(20)
        answer(handler, 200, "<title>late</title>")

    site.route(path, hang)
    return release


def test_chromium_killed_mid_request_fails_fast_then_relaunches(own_service, site):
    client = own_service.client()
    client.start()
    tab = client.open(site.url("/index.html"))
    release = _hanging_route(site, "/hang-kill")
    outcome = {}

    def slow_navigate():
        began = time.monotonic()
        try:
            client.navigate(site.url("/hang-kill"), target_id=tab["tabId"])
        except errors.ClawdError as exc:
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - began

    worker = threading.Thread(target=slow_navigate)
    worker.start()
    deadline = time.monotonic() + 10
    while "/hang-kill" not in site.hits and time.monotonic() < deadline:
        time.sleep(0.02)
    os.kill(client.status()["pid"], signal.SIGKILL)
    worker.join(15)
    release.set()
    assert isinstance(outcome.get("error"), errors.BrowserGone), outcome
    assert outcome["seconds"] < 10
    reopened = client.open(site.url("/index.html"))  # the next request relaunches
    assert reopened["title"] == "clawd test site"
    assert int(reopened["tabId"][1:]) > int(tab["tabId"][1:])
    assert client.status()["running"] is True


def test_renderer_crash_answers_tab_crashed_and_spares_other_tabs(own_service, site):
    client = own_service.client()
    client.start()
    doomed = client.open(site.url("/index.html"))
    healthy = client.open(site.url("/long.html"))
    session = own_service.live_tab(doomed["tabId"]).session
    with pytest.raises(errors.TabCrashed):  # the crashed renderer never answers: failed at once
        session.call("Page.crash", timeout=10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            client.navigate(site.url("/index.html"), target_id=doomed["tabId"])
        except errors.TabCrashed:
            break
        except errors.ClawdError:
            pass
        time.sleep(0.05)
    else:
        pytest.fail("the crashed tab never answered TAB_CRASHED")
    assert (
        client.navigate(site.url("/index.html"), target_id=healthy["tabId"])["title"]
        == "clawd test site"
    )
    crashed = [t for t in client.tabs()["tabs"] if t["tabId"] == doomed["tabId"]]
    assert crashed and crashed[0].get("crashed") is True
    client.close_tab(doomed["tabId"])


def test_relaunch_failures_back_off(own_service):
    runtime = own_service.service.runtime(None)
    object.__setattr__(runtime.config, "executable_path", "/nonexistent/chromium")
    with pytest.raises(errors.BrowserLaunchFailed):
        runtime.ensure()
    with pytest.raises(errors.BrowserGone) as caught:
        runtime.ensure()
    assert "next attempt" in str(caught.value)


def test_idle_tabs_are_swept(own_service, site):
    from clawd.browser.sweeper import TabSweeper

    client = own_service.client()
    client.start()
    kept = client.open(site.url("/index.html"))
    idle = client.open(site.url("/index.html"))
    browser = own_service.service.runtime(None).browser
    now = [time.monotonic()]
    sweeper = TabSweeper(browser, idle_seconds=60, interval=3600, clock=lambda: now[0])
    browser.resolve(idle["tabId"]).last_used = now[0] - 120
    for tab in browser.tabs():
        if tab.tab_id != idle["tabId"]:
            tab.last_used = now[0]
    assert sweeper.sweep() == [idle["tabId"]]
    assert {t["tabId"] for t in client.tabs()["tabs"]} >= {kept["tabId"]}
    assert idle["tabId"] not in {t["tabId"] for t in client.tabs()["tabs"]}


def test_a_failing_tab_hook_does_not_leave_new_tabs_paused(own_service, site):
    class Broken:
        def attach(self, tab, session, *, child):
            raise RuntimeError("a feature's bug")

        def detach(self, tab):
            pass

    own_service.service.hooks.insert(0, Broken())  # before the first request creates the runtime
    client = own_service.client()
    opened = client.open(site.url("/index.html"))
    assert opened["title"] == "clawd test site"
