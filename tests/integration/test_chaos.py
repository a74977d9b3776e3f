"""Chaos: a renderer process SIGKILLed, the browser closing our websocket itself (Browser.close
from another client; a remote Chromium killed and restarted), each followed by successful work.
SIGKILL of Chromium mid-request is in test_recovery.py."""

from __future__ import annotations

import json
import os
import signal
import time

import psutil
import pytest
import requests
import websocket

from clawd import errors
from tests.support.browser import BareChromium, require_chromium, service_config
from tests.support.service import RunningService

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def own_service(tmp_path):
    require_chromium()
    running = RunningService(service_config(tmp_path / "home"))
    yield running
    running.close()


def eventually(
    call, *, timeout: float = 20.0, expected=(errors.BrowserGone, errors.BrowserNotRunning)
):
    """call() once the service has caught up;
    only the errors of a browser going away are retried."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            return call()
        except expected:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


def do_work(client, site, profile=None) -> None:
    """Real work in a new tab: open, snapshot, act, screenshot."""
    tab = client.open(site.url("/index.html"), profile=profile)
    assert tab["title"] == "clawd test site"
    assert "heading" in client.snapshot(target_id=tab["tabId"], profile=profile)["snapshot"]
    assert client.evaluate("() => 6 * 7", target_id=tab["tabId"], profile=profile)["result"] == 42
    assert client.screenshot(target_id=tab["tabId"], profile=profile)["path"]


def renderers(browser_pid: int) -> list[psutil.Process]:
    found = []
    for child in psutil.Process(browser_pid).children(recursive=True):
        try:
            if any(arg.startswith("--type=renderer") for arg in child.cmdline()):
                found.append(child)
        except psutil.Error:
            pass
    return found


def test_sigkill_of_the_renderers_crashes_their_tabs_and_new_tabs_work(own_service, site):
    client = own_service.client()
    client.start()
    victim = client.open(site.url("/index.html"))
    pid = client.status()["pid"]
    killed = renderers(pid)
    assert killed, "no renderer process under the managed Chromium"
    for process in killed:
        os.kill(process.pid, signal.SIGKILL)
    deadline = time.monotonic() + 15
    while True:  # the old tab learns of its crash: 409 TAB_CRASHED, never a hang or a 500
        try:
            client.evaluate("() => 1", target_id=victim["tabId"], timeout_ms=2000)
        except errors.TabCrashed:
            break
        except errors.ClawdError as exc:
            assert exc.http_status < 500 or isinstance(exc, errors.CdpTimeout), exc
        assert time.monotonic() < deadline, "the killed renderer's tab never answered TAB_CRASHED"
        time.sleep(0.05)
    assert client.status()["pid"] == pid  # the browser itself lives on
    do_work(client, site)
    client.close_tab(victim["tabId"])


def test_browser_close_from_another_client_then_the_next_request_relaunches(own_service, site):
    client = own_service.client()
    client.start()
    client.open(site.url("/index.html"))
    old_pid = client.status()["pid"]
    port = own_service.config.browser.profiles["clawd"].cdp_port
    ws_url = requests.get(f"http://127.0.0.1:{port}/json/version", timeout=5).json()[
        "webSocketDebuggerUrl"
    ]
    other = websocket.create_connection(ws_url, suppress_origin=True, timeout=5)
    try:
        other.send(json.dumps({"id": 1, "method": "Browser.close"}))
    finally:
        other.close()
    psutil.Process(old_pid).wait(15)  # the browser really went away, on its own terms
    eventually(lambda: do_work(client, site))
    status = client.status()
    assert status["running"] is True and status["pid"] not in (None, old_pid)


def test_a_remote_chromium_killed_and_restarted_is_reconnected(own_service, site, tmp_path):
    client = own_service.client()
    bare = BareChromium(tmp_path / "first")
    port = bare.port
    client.create_profile("far", cdp_url=f"http://127.0.0.1:{port}")
    try:
        do_work(client, site, profile="far")
        bare.proc.kill()  # the websocket dies from the browser's side
        bare.proc.wait(10)
        with pytest.raises(errors.ClawdError) as gone:
            eventually(
                lambda: client.open(site.url("/index.html"), profile="far"),
                timeout=5,
                expected=(errors.BrowserGone,),
            )
        assert gone.value.http_status in (502, 503), gone.value
        bare = BareChromium(tmp_path / "second", port=port)
        eventually(
            lambda: do_work(client, site, profile="far"),
            expected=(errors.BrowserGone, errors.CdpUnreachable),
        )
        assert bare.proc.poll() is None  # a remote browser is never ours to stop
    finally:
        client.delete_profile("far")
        bare.close()


def test_a_new_tab_born_on_a_dead_renderer_is_replaced_by_a_live_one(
    own_service, site, monkeypatch
):
    """After renderers are killed, Chromium can give a new tab its spare renderer process before
    it notices that process died (run 7 of the suite loop, load 12: the new tab answered
    TAB_CRASHED). The first tab made here is crashed for real (Page.crash) to stand for it."""
    from clawd.browser.browser import Browser

    client = own_service.client()
    client.start()
    made = Browser._created
    crashed = []

    def born_dead(self):
        tab = made(self)
        if not crashed:
            crashed.append(tab.tab_id)
            tab.session.send("Page.crash")
            deadline = time.monotonic() + 15
            while not tab.crashed:
                assert time.monotonic() < deadline, "Page.crash did not crash the tab"
                time.sleep(0.02)
        return tab

    monkeypatch.setattr(Browser, "_created", born_dead)
    opened = client.open(site.url("/index.html"))
    assert crashed and opened["tabId"] != crashed[0], (crashed, opened)
    assert client.evaluate("() => 1 + 1", target_id=opened["tabId"])["result"] == 2
    assert crashed[0] not in [t["tabId"] for t in client.tabs()["tabs"]]
