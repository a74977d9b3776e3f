"""Profiles: created at run time, remote cdpUrl in its three shapes against a second Chromium,
attach-only, existing-session, and a Chromium that fails to start."""

from __future__ import annotations

import pathlib
import urllib.parse

import psutil
import pytest

from clawd import errors
from tests.support.browser import BareChromium, require_chromium


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    require_chromium()
    chromium = BareChromium(tmp_path_factory.mktemp("bare"))
    yield chromium
    chromium.close()


def _remote_shapes(bare):
    path = urllib.parse.urlsplit(bare.ws_url).path
    return {
        "http": f"http://127.0.0.1:{bare.port}",
        "devtools": f"ws://127.0.0.1:{bare.port}{path}",
        "bare-ws": f"ws://127.0.0.1:{bare.port}",
    }


@pytest.mark.parametrize("shape", ["http", "devtools", "bare-ws"])
def test_remote_profile_drives_a_second_chromium(client, site, bare, shape):
    name = f"remote-{shape}"
    created = client.create_profile(name, cdp_url=_remote_shapes(bare)[shape])
    assert created["driver"] == "remote"
    try:
        opened = client.open(site.url("/index.html"), profile=name)
        assert opened["title"] == "clawd test site"
        assert client.status(profile=name)["driver"] == "remote"
        assert opened["tabId"] in {t["tabId"] for t in client.tabs(profile=name)["tabs"]}
        client.close_tab(opened["tabId"], profile=name)
        client.stop(profile=name)
        assert bare.proc.poll() is None, "stopping a remote profile must never close the browser"
    finally:
        client.delete_profile(name)


def test_start_headless_on_a_remote_profile_is_400_with_the_reason(client, bare):
    client.create_profile("remote-headless", cdp_url=_remote_shapes(bare)["http"])
    try:
        for headless in (True, False):
            with pytest.raises(errors.InvalidRequest) as caught:
                client.start(headless=headless, profile="remote-headless")
            assert "headless" in caught.value.message and "remote" in caught.value.message
        assert client.start(profile="remote-headless")["running"] is True  # without it: fine
    finally:
        client.delete_profile("remote-headless")


def test_existing_session_reads_devtools_active_port(client, site, tmp_path):
    bare = BareChromium(tmp_path, port=0)
    client.request(
        "POST",
        "/profiles/create",
        json={"name": "existing", "driver": "existing-session", "userDataDir": str(bare.user_data)},
    )
    try:
        opened = client.open(site.url("/index.html"), profile="existing")
        assert opened["title"] == "clawd test site"
        client.stop(profile="existing")
        assert bare.proc.poll() is None
    finally:
        client.delete_profile("existing")
        bare.close()


def test_unreachable_remote_is_502_and_service_keeps_serving(client):
    from tests.support.browser import free_port

    client.create_profile("gone", cdp_url=f"http://127.0.0.1:{free_port()}")
    try:
        with pytest.raises(errors.CdpUnreachable):
            client.tabs(profile="gone") and client.open("http://127.0.0.1:1/", profile="gone")
        assert client.status()["running"] is True
    finally:
        client.delete_profile("gone")


def test_profile_allocation_and_validation(client):
    created = client.create_profile("alloc-a")
    try:
        assert 18850 <= created["cdpPort"] <= 18949 and created["color"].startswith("#")
        names = [p["name"] for p in client.profiles()["profiles"]]
        assert "alloc-a" in names
        with pytest.raises(errors.ProfileExists):
            client.create_profile("alloc-a")
        for bad in ("Bad Name", "-x", "a" * 65):
            with pytest.raises(errors.InvalidRequest):
                client.create_profile(bad)
    finally:
        client.delete_profile("alloc-a")
    with pytest.raises(errors.ProfileNotFound):
        client.delete_profile("alloc-a")


def test_attach_only_profile_not_running_is_409(clawd_home, site):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "attach", extra={}))
    object.__setattr__(running.config.browser, "attach_only", True)
    try:
        with pytest.raises(errors.BrowserNotRunning) as caught:
            running.client().open(site.url("/index.html"))
        assert "remote-debugging-port" in str(caught.value)
    finally:
        running.close()


def test_chromium_that_fails_to_start_reports_why_and_leaks_nothing(clawd_home, tmp_path):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    fake = tmp_path / "fake-chromium"
    fake.write_text(
        "#!/bin/sh\necho 'Running as root without --no-sandbox is not supported' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    running = RunningService(service_config(clawd_home / "broken", extra={}))
    object.__setattr__(running.config.browser, "executable_path", str(fake))
    try:
        before = {p.pid for p in psutil.process_iter()}
        with pytest.raises(errors.BrowserLaunchFailed) as caught:
            running.client().start()
        message = str(caught.value)
        assert "browser.noSandbox" in message or "executablePath" in message
        assert "without --no-sandbox" in message
        leaked = [
            p
            for p in psutil.process_iter(["cmdline"])
            if p.pid not in before and str(fake) in " ".join(p.info["cmdline"] or [])
        ]
        assert leaked == []
        assert running.client().status()["running"] is False
    finally:
        running.close()


def test_chromium_that_dies_after_its_listening_line_reports_why(clawd_home, tmp_path):
    """The websocket of the "DevTools listening on" line is connected to at once; a browser
    that exits then fails the start with its stderr, like one that exits before the line."""
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    fake = tmp_path / "fake-chromium"
    fake.write_text(
        "#!/bin/sh\n"
        'for a in "$@"; do case $a in --remote-debugging-port=*) port=${a#*=};; esac; done\n'
        'echo "DevTools listening on ws://127.0.0.1:$port/devtools/browser/fake" >&2\n'
        "sleep 0.3\n"
        "echo 'Running as root without --no-sandbox is not supported' >&2\n"
        "exit 1\n"
    )
    fake.chmod(0o755)
    running = RunningService(service_config(clawd_home / "dies", extra={}))
    object.__setattr__(running.config.browser, "executable_path", str(fake))
    try:
        with pytest.raises(errors.BrowserLaunchFailed) as caught:
            running.client().start()
        message = str(caught.value)
        assert "exited with status 1 while starting" in message, message
        assert "without --no-sandbox" in message, message
        assert running.client().status()["running"] is False
    finally:
        running.close()


def test_disabled_browser_is_503(clawd_home):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "disabled", extra={}))
    object.__setattr__(running.config.browser, "enabled", False)
    try:
        with pytest.raises(errors.BrowserDisabled):
            running.client().start()
    finally:
        running.close()


def test_stop_and_start_keep_profile_data(clawd_home, site):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "persist", extra={}))
    try:
        c = running.client()
        c.start()
        c.open(site.url("/index.html"))
        browser = running.service.runtime(None).browser
        tab = browser.resolve(None)
        tab.session.call("Runtime.evaluate", {"expression": "localStorage.setItem('k', 'kept')"})
        c.stop()
        assert running.service.runtime(None).process is None
        c.start()
        c.open(site.url("/index.html"))
        tab = running.service.runtime(None).browser.resolve(None)
        value = tab.session.call(
            "Runtime.evaluate", {"expression": "localStorage.getItem('k')", "returnByValue": True}
        )["result"]["value"]
        assert value == "kept"
    finally:
        running.close()


def test_remote_endpoint_that_points_elsewhere_is_refused(client, site):
    import json as _json

    from tests.support.site import answer

    site.route(
        "/json/version",
        lambda h: answer(
            h,
            200,
            _json.dumps({"webSocketDebuggerUrl": "ws://192.0.2.10:9222/devtools/browser/x"}),
            "application/json",
        ),
    )
    client.create_profile("steered", cdp_url=site.url(""))
    try:
        with pytest.raises(errors.CdpEndpointRefused) as caught:
            client.open(site.url("/index.html"), profile="steered")
        assert "192.0.2.10" in str(caught.value)
    finally:
        client.delete_profile("steered")


def test_reset_profile_moves_the_user_data_to_the_trash_and_purge_erases(clawd_home, site):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "trash-reset"))
    layout = running.service.layout
    try:
        c = running.client()
        c.open(site.url("/index.html"))
        c.act("evaluate", fn="() => localStorage.setItem('k', 'kept')")
        reset = c.reset_profile()
        assert reset["removedData"] is True and reset["wasRunning"] is True
        trashed = pathlib.Path(reset["trashedTo"])
        assert trashed.parent == layout.trash and trashed.name.startswith("clawd-")
        assert (trashed / "Default").is_dir() and not layout.user_data_dir("clawd").exists()
        c.open(site.url("/index.html"))  # a fresh profile: the key is gone
        assert c.act("evaluate", fn="() => localStorage.getItem('k')")["result"] is None
        purged = c.reset_profile(purge=True)
        assert purged["purged"] is True and "trashedTo" not in purged
        assert [p.name for p in layout.trash.iterdir()] == [trashed.name]
        doctor = {check["name"]: check for check in c.doctor()["checks"]}
        assert trashed.name in doctor["trash"]["detail"]
    finally:
        running.close()


def test_deleting_a_profile_keeps_its_data_in_the_trash(clawd_home, site):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "trash-delete"))
    layout = running.service.layout
    try:
        c = running.client()
        for name, purge in (("work", False), ("scratch", True)):
            c.create_profile(name)
            c.open(site.url("/index.html"), profile=name)
            deleted = c.delete_profile(name, purge=purge or None)
            assert deleted["removedData"] is True
            assert not (layout.home / "browser" / name).exists()
        [kept] = layout.trash.iterdir()
        assert kept.name.startswith("work-") and (kept / "user-data" / "Default").is_dir()
    finally:
        running.close()


def test_the_built_in_user_profile_attaches_to_the_users_own_running_browser(
    client, site, tmp_path, monkeypatch
):
    config_home = tmp_path / "config"
    config_home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    with pytest.raises(errors.BrowserNotRunning) as caught:  # nothing there yet
        client.start(profile="user")
    assert "userDataDir" in caught.value.message
    (config_home / "chromium").mkdir()  # a Chromium without remote debugging
    with pytest.raises(errors.BrowserNotRunning) as caught:
        client.start(profile="user")
    assert "chrome://inspect/#remote-debugging" in caught.value.message
    (config_home / "chromium").rmdir()
    # one with it on, where Linux keeps it
    # (linked first: Chromium writes to $XDG_CONFIG_HOME/chromium)
    (config_home / "chromium").symlink_to(tmp_path / "bare-chromium")
    bare = BareChromium(tmp_path, port=0)
    try:
        listed = {p["name"]: p for p in client.profiles()["profiles"]}
        assert listed["user"]["builtin"] is True and listed["user"]["driver"] == "existing-session"
        client.start(
            profile="user"
        )  # an explicit start: the failed ones above back off automatic ones
        opened = client.open(site.url("/index.html"), profile="user")
        assert opened["title"] == "clawd test site"
        assert client.status(profile="user")["userDataDir"] == str(config_home / "chromium")
        client.stop(profile="user")
        assert bare.proc.poll() is None  # never closed: it is the user's
    finally:
        client.stop(profile="user")
        bare.close()


def test_openclaw_names_the_default_managed_profile(client, site):
    assert client.status(profile="openclaw")["profile"] == "clawd"
    opened = client.open(site.url("/index.html"), profile="openclaw")
    try:
        assert opened["tabId"] in {t["tabId"] for t in client.tabs()["tabs"]}  # the same browser
        listed = {p["name"]: p for p in client.profiles()["profiles"]}
        assert listed["clawd"]["aliases"] == ["openclaw"] and "openclaw" not in listed
    finally:
        client.close_tab(opened["tabId"])
