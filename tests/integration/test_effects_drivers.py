"""An act's `effect`, snapshot deltas and screenshot `ifChanged` (DESIGN §20) on every driver that
has a page besides the managed one (tests/integration/test_effects.py and its siblings): a
Chromium attached to, a real Browserless pool, a user's running Chromium, the sandbox container,
and a tab shared through the extension relay. Each backend is real; one runs at a time."""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator

import pytest

from clawd.config.loader import config_from_data
from clawd.page.act import settle
from tests.support.act import Page
from tests.support.browser import BareChromium, require_chromium, service_config
from tests.support.service import RunningService
from tests.support.site import Site, answer

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(300)]

PROFILE = f"fx{os.getpid() % 100000}"  # also its sandbox container's name
PAGE = "/effects/page.html"


class Backend:
    """A service whose profile PROFILE is one driver's browser, the site its browser reaches, and
    how a tab on a site page comes into that profile (and goes again)."""

    def __init__(self, running: RunningService, site: Site, *, profile: str = PROFILE):
        self.running = running
        self.site = site
        self.client = running.client(profile=profile, timeout=60)
        self.opened: list[Page] = []
        self.name = ""  # the driver's, once the fixture made it

    def open(self, path: str) -> Page:
        page = Page(self.client, self.client.open(self.site.url(path)))
        self.opened.append(page)
        return page

    def close_pages(self) -> None:
        while self.opened:
            self.opened.pop().close()

    def close(self) -> None:
        self.close_pages()
        self.client.close()
        self.running.close()


def _service(home, site: Site, profile: dict, **browser) -> RunningService:
    """A service on port 0 whose default profile PROFILE is `profile`, allowed to reach `site`."""
    config = service_config(home)
    data = {
        "server": {"host": "127.0.0.1", "port": config.server.port},
        "browser": {
            "headless": True,
            "executablePath": config.browser.executable_path,
            "extraArgs": list(config.browser.extra_args),
            "defaultProfile": PROFILE,
            "ssrfPolicy": {"allowedHostnames": [site.host]},
            "profiles": {PROFILE: profile},
            **browser,
        },
    }
    return RunningService(config_from_data(data, env={"CLAWD_HOME": str(home)}))


def attach_only(tmp, site: Site) -> contextlib.AbstractContextManager[Backend]:
    require_chromium()
    bare = BareChromium(tmp)
    return _on_bare(tmp, site, bare, {"cdpPort": bare.port, "attachOnly": True})


def existing_session(tmp, site: Site) -> contextlib.AbstractContextManager[Backend]:
    require_chromium()
    bare = BareChromium(tmp, port=0)  # found through its DevToolsActivePort, as a user's Chrome
    return _on_bare(
        tmp, site, bare, {"driver": "existing-session", "userDataDir": str(bare.user_data)}
    )


@contextlib.contextmanager
def _on_bare(tmp, site: Site, bare: BareChromium, profile: dict) -> Iterator[Backend]:
    """A backend whose profile reaches `bare`, a Chromium of the test's own; both closed after."""
    try:
        backend = Backend(_service(tmp / "home", site, profile), site)
        try:
            yield backend
        finally:
            backend.close()
    finally:
        bare.close()


@contextlib.contextmanager
def remote(tmp, site: Site) -> Iterator[Backend]:
    from tests.support.browserless import Browserless, require_browserless

    root = require_browserless()
    pool = Browserless(tmp / "pool", token="effects-pool-token", timeout_ms=120000, root=root)
    profile = {"cdpUrl": pool.ws(), "remote": {"restore": "none"}}
    running = _service(tmp / "home", site, profile, remoteCdpHandshakeTimeoutMs=30000)
    backend = Backend(running, site)
    try:
        yield backend
    finally:
        backend.close()
        pool.stop()


@contextlib.contextmanager
def sandbox(tmp, site: Site) -> Iterator[Backend]:
    from clawd.sandbox import container
    from tests.support.docker import gateway_of, require_docker

    network = "clawd-sandbox-test"
    docker_client = require_docker()
    reachable = Site(host=gateway_of(docker_client, network))  # the container's way to us
    settings = {"network": network, "headless": True, "autoStartTimeoutMs": 30000}
    running = _service(tmp / "home", reachable, {"driver": "sandbox", "sandbox": settings})
    backend = Backend(running, reachable)
    try:
        yield backend
    finally:
        backend.close()
        reachable.close()
        _remove(docker_client, container.container_name(PROFILE))


def _remove(docker_client, name: str) -> None:
    import docker.errors

    try:
        docker_client.containers.get(name).remove(force=True)
    except docker.errors.NotFound:
        pass


class RelayBackend(Backend):
    """Tabs the user opens in their own Chromium and shares with the toolbar button."""

    def __init__(self, running: RunningService, site: Site, chrome):
        super().__init__(running, site, profile="chrome")
        self.chrome = chrome
        self.shared: dict[str, int] = {}  # clawd tab id -> chrome tab id

    def open(self, path: str) -> Page:
        from tests.support.page_eval import wait_until

        url = self.site.url(path)
        chrome_tab = self.chrome.open_tab(url)
        assert self.chrome.toggle(chrome_tab)["shared"] is True
        tab = wait_until(
            lambda: next((t for t in self.client.tabs()["tabs"] if t["url"] == url), None),
            message="the shared tab listed in profile chrome",
        )
        page = Page(self.client, tab)
        self.shared[page.id] = chrome_tab
        self.opened.append(page)
        return page

    def close_opened_by(self, page: Page) -> None:
        """Close the windows the user's Chromium opened from `page`'s tab (not shared)."""
        self.chrome.evaluate(
            "chrome.tabs.query({}).then((tabs) => Promise.all(tabs"
            f".filter((t) => t.openerTabId === {self.shared[page.id]})"
            ".map((t) => chrome.tabs.remove(t.id))))"
        )

    def close_pages(self) -> None:
        for chrome_tab in self.shared.values():
            if self.chrome.evaluate(f"shared.has({chrome_tab})"):
                self.chrome.toggle(chrome_tab)
            self.chrome.evaluate(f"chrome.tabs.remove({chrome_tab})")
        self.shared.clear()
        self.opened.clear()


@contextlib.contextmanager
def extension(tmp, site: Site) -> Iterator[Backend]:
    from tests.support.extension import ExtensionChromium

    require_chromium()
    config = service_config(tmp / "home", extra={"relay": {"enabled": True, "port": 0}})
    running = RunningService(config)
    chrome = backend = None
    try:
        chrome = ExtensionChromium(tmp / "users-chrome")
        # the user's own download folder, so what the tests download lands in their tmp
        saved = {"behavior": "allow", "downloadPath": str(tmp / "users-downloads")}
        chrome.browser.call("Browser.setDownloadBehavior", saved)
        relay = running.service.relay
        chrome.pair(relay.port, relay.token)
        chrome.wait_until(lambda: relay.connected, "the extension connected to the relay")
        backend = RelayBackend(running, site, chrome)
        yield backend
    finally:
        if backend is not None:
            backend.close()  # its shared tabs first, while the user's Chromium is there
        else:
            running.close()
        if chrome is not None:
            chrome.close()


BACKENDS: dict[str, Callable] = {
    "attach-only": attach_only,
    "remote": remote,
    "existing-session": existing_session,
    "sandbox": sandbox,
    "extension": extension,
}


@pytest.fixture(scope="module", params=list(BACKENDS))
def backend(request, tmp_path_factory, site) -> Iterator[Backend]:
    """One driver's backend for all of its tests, stopped before the next driver's starts."""
    tmp = tmp_path_factory.mktemp(request.param)
    with BACKENDS[request.param](tmp, site) as running:
        running.name = request.param
        assert running.client.status()["driver"] == running.name  # the driver meant, not managed
        yield running


@pytest.fixture
def opened(backend) -> Iterator[Callable[[str], Page]]:
    """open(path) -> a tab of the driver's profile on a site page; all closed after the test."""
    yield backend.open
    backend.close_pages()


@pytest.fixture
def fx(opened) -> Page:
    """The effects page, after a first snapshot."""
    page = opened(PAGE)
    page.snapshot()
    return page


def click(page: Page, role: str, name: str) -> dict:
    return page.act("click", ref=page.ref(role, name))["effect"]


def _ref_of_line(page: Page, role: str, text: str) -> str:
    """The ref of the snapshot line of a `role` that shows `text` (a paragraph has no name)."""
    lines = page.snapshot().split("\n")
    found = next(line for line in lines if f"- {role} " in line and text in line)
    return found.split("[ref=")[1].split("]")[0]


def test_an_item_added_is_one_added_listitem_line(fx):
    assert click(fx, "button", "Add item") == {
        "changed": {"added": 1, "lines": ['+ listitem "Item 201"']}
    }


def test_a_click_on_inert_text_has_no_effect(fx):
    assert click(fx, "heading", "Effects") == {"none": True}
    plain = _ref_of_line(fx, "paragraph", "Plain words")
    assert fx.act("click", ref=plain)["effect"] == {"none": True}


def test_typed_text_is_the_value_before_and_after(fx):
    ref = fx.ref("textbox", "Name")
    effect = fx.act("type", ref=ref, text="hello")["effect"]
    assert effect == {"value": {"ref": ref, "before": "", "after": "hello"}}


def test_a_delta_after_an_added_item_is_its_line_then_unchanged(fx):
    fx.act("click", ref=fx.ref("button", "Add item"))
    body = fx.client.snapshot(target_id=fx.id, delta=True)
    assert body.get("delta") is True and "full" not in body, body
    (added,) = body["added"]
    assert added["line"].startswith("- listitem [ref=") and added["line"].endswith(": Item 201")
    assert (body["removed"], body["changed"]) == ([], [])
    assert fx.client.snapshot(target_id=fx.id, delta=True)["unchanged"] is True


def test_a_screenshot_if_changed_is_unchanged_until_the_pixels_change(fx):
    def shot() -> dict:
        return fx.client.screenshot(target_id=fx.id, if_changed=True)

    assert shot()["path"]
    again = shot()
    assert again.get("unchanged") is True and "path" not in again, again
    fx.act("click", ref=fx.ref("button", "Save"))  # "Draft" becomes "Saved" near the top
    changed = shot()
    assert "unchanged" not in changed and changed["path"]


def test_a_followed_link_is_a_navigation_with_its_status(fx, backend):
    assert click(fx, "link", "Next page") == {
        "navigated": {
            "from": backend.site.url(PAGE),
            "to": backend.site.url("/effects/next.html"),
            "status": 200,
        }
    }


def test_a_tab_key_press_names_the_ref_now_focused(fx):
    fx.act("click", ref=fx.ref("textbox", "Name"))
    assert fx.act("press", key="Tab")["effect"] == {"focus": fx.ref("checkbox", "Agree")}


def test_checking_a_box_is_its_checked_state_before_and_after(fx):
    ref = fx.ref("checkbox", "Agree")
    effect = fx.act("click", ref=ref)["effect"]
    assert effect == {"value": {"ref": ref, "before": False, "after": True}}


def test_an_alert_is_the_dialog_it_opened(fx):
    effect = click(fx, "button", "Alert")
    fx.client.dialog(True, target_id=fx.id)
    assert effect == {"dialog": {"type": "alert", "message": "Hello there"}}


def test_a_window_opened_is_the_new_tab(fx, backend):
    if backend.name == "extension":
        pytest.skip("the relay shares only the tabs the user shares: see the next test")
    effect = click(fx, "button", "Open tab")
    for opened in effect.get("openedTabs", []):
        fx.client.close_tab(opened)
    assert list(effect) == ["openedTabs"] and len(effect["openedTabs"]) == 1, effect


def test_a_window_a_shared_tab_opens_is_an_unshared_tab_with_its_url(fx, backend):
    if backend.name != "extension":
        pytest.skip("only the relay leaves a window a tab opens to the user")
    try:
        effect = click(fx, "button", "Open tab")
    finally:
        backend.close_opened_by(fx)
    assert effect == {"openedUnshared": [{"url": backend.site.url("/effects/next.html")}]}


def test_the_relay_tells_which_shared_tab_opened_an_unshared_window(fx, backend):
    if backend.name != "extension":
        pytest.skip("only the relay leaves a window a tab opens to the user")
    from tests.support.page_eval import wait_until

    browser = backend.running.service.runtime("chrome").browser
    opener, began = backend.running.live_tab(fx.id, "chrome"), time.monotonic()
    try:
        click(fx, "button", "Open tab")
        opened = wait_until(
            lambda: browser.unshared_opened_since(began, opener), message="the relay's report"
        )
    finally:
        backend.close_opened_by(fx)
    assert opened == [{"url": backend.site.url("/effects/next.html")}]
    other = backend.open("/effects/frame.html")  # a tab that opened nothing hears of none
    assert browser.unshared_opened_since(began, backend.running.live_tab(other.id, "chrome")) == []


def test_an_act_never_waits_for_a_window_that_will_not_be_a_tab(fx, backend):
    if backend.name != "extension":
        pytest.skip("only the relay leaves a window a tab opens to the user")
    began = time.monotonic()
    click(fx, "button", "Open tab")
    # the bug waited settle.SETTLE_LIMIT for a tab the relay never attaches
    assert time.monotonic() - began < settle.SETTLE_LIMIT


def test_changed_text_inside_a_same_origin_iframe_is_seen(fx):
    effect = click(fx, "button", "Increment")
    assert effect == {"changed": {"text": 1, "lines": ['~ paragraph "Count 1"']}}


def test_a_delta_after_a_navigation_is_the_full_snapshot(fx):
    fx.act("click", ref=fx.ref("link", "Next page"))
    body = fx.client.snapshot(target_id=fx.id, delta=True)
    assert body.get("full") is True and "The second page." in body["snapshot"], body


def test_a_click_on_an_attachment_link_names_its_download(backend, opened):
    backend.site.route("/effects/report.bin", _report)
    page = opened("/effects/download.html")
    assert click(page, "link", "Get report").get("download") == "q3 report.bin"


def test_the_relay_names_a_download_the_users_chrome_saves(backend, opened):
    """No browser session through the relay: the tab's Page.downloadWillBegin names the file,
    and the user's Chrome saves it in its own folder, so the answer has no path."""
    if backend.name != "extension":
        pytest.skip("only the relay leaves a download to the user's Chrome")
    backend.site.route("/effects/report.bin", _report)
    page = opened("/effects/download.html")
    done = page.act("click", ref=page.ref("link", "Get report"))
    assert done["effect"].get("download") == "q3 report.bin", done
    (item,) = done["downloads"]
    assert item["url"] == backend.site.url("/effects/report.bin"), item
    assert item["suggestedFilename"] == "q3 report.bin" and "path" not in item, item
    assert item["tabId"] == page.id, item


def _report(handler) -> None:
    """A file the server asks the browser to save (the page stays where it is)."""
    disposition = {"Content-Disposition": 'attachment; filename="q3 report.bin"'}
    answer(
        handler,
        body=b"figures\n" * 100,
        content_type="application/octet-stream",
        headers=disposition,
    )
