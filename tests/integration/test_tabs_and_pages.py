"""Tabs, navigation, screenshots and PDFs through the real service and a real Chromium."""

from __future__ import annotations

import struct

import pytest

from clawd import errors
from tests.support.site import answer


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_status_reports_the_running_managed_browser(client, service):
    status = client.status()
    assert status["running"] is True and status["driver"] == "managed"
    assert status["pid"] and status["headless"] is True
    assert status["cdpPort"] == service.config.browser.profiles["clawd"].cdp_port
    assert status["userDataDir"].endswith("browser/clawd/user-data")


def test_open_returns_a_stable_tab_id_and_the_loaded_page(client, site):
    opened = client.open(site.url("/index.html"), label="home-test")
    try:
        assert opened["tabId"].startswith("t") and opened["title"] == "clawd test site"
        listed = {t["tabId"]: t for t in client.tabs()["tabs"]}
        assert listed[opened["tabId"]]["label"] == "home-test"
        assert listed[opened["tabId"]]["active"] is True
        for key in ("home-test", opened["targetId"], opened["targetId"][:10].lower()):
            assert (
                client.navigate(site.url("/long.html"), target_id=key)["tabId"] == opened["tabId"]
            )
    finally:
        client.close_tab(opened["tabId"])
    assert opened["tabId"] not in {t["tabId"] for t in client.tabs()["tabs"]}


def test_tab_ids_are_never_reused(client, site):
    first = client.open(site.url("/index.html"))
    client.close_tab(first["tabId"])
    second = client.open(site.url("/index.html"))
    client.close_tab(second["tabId"])
    assert int(second["tabId"][1:]) > int(first["tabId"][1:])


def test_unknown_and_closed_tabs_are_404(client, site):
    with pytest.raises(errors.TabNotFound):
        client.navigate(site.url("/index.html"), target_id="t9999")
    opened = client.open(site.url("/index.html"))
    client.close_tab(opened["tabId"])
    with pytest.raises(errors.TabNotFound):
        client.focus(opened["tabId"])


def test_duplicate_label_is_409(client, site, tab):
    other = client.open(site.url("/index.html"), label="dup-label")
    try:
        with pytest.raises(errors.Conflict):
            client.open(site.url("/index.html"), label="dup-label")
    finally:
        client.close_tab(other["tabId"])


def test_omitted_target_uses_the_last_tab_used(client, site, tab):
    client.focus(tab["tabId"])
    assert client.navigate(site.url("/long.html"))["tabId"] == tab["tabId"]


def test_tab_actions_by_index(client, site, tab):
    tabs = client.tab_action("list")["tabs"]
    index = [t["tabId"] for t in tabs].index(tab["tabId"])
    assert client.tab_action("select", index=index)["tabId"] == tab["tabId"]
    with pytest.raises(errors.TabNotFound):
        client.tab_action("select", index=999)


def test_navigate_waits_for_load_and_reports_final_url(client, site, tab):
    site.route("/hop", lambda h: answer(h, 302, headers={"Location": "/long.html"}))
    state = client.navigate(site.url("/hop"), target_id=tab["tabId"])
    assert state["url"] == site.url("/long.html") and state["title"] == "Long page"
    assert state["loaded"] is True


def test_redirect_to_a_blocked_host_is_refused_before_it_is_requested(client, site, tab):
    site.route(
        "/to-private", lambda h: answer(h, 302, headers={"Location": "http://10.1.2.3/secret"})
    )
    site.route(
        "/to-localhost",
        lambda h: answer(h, 302, headers={"Location": f"http://localhost:{site.port}/index.html"}),
    )
    for path in ("/to-private", "/to-localhost"):
        with pytest.raises(errors.NavigationBlocked):
            client.navigate(site.url(path), target_id=tab["tabId"])
    assert "/index.html" not in [h for h in site.hits if h.startswith("/index.html?via=localhost")]


def test_blocked_urls_are_400_without_opening_a_tab(client):
    before = len(client.tabs()["tabs"])
    for url in (
        "http://169.254.169.254/latest/meta-data",
        "file:///etc/passwd",
        "http://localhost/",
        "javascript:alert(1)",
        "http://0x7f000001/",
    ):
        with pytest.raises(errors.NavigationBlocked):
            client.open(url)
    assert len(client.tabs()["tabs"]) == before


def test_navigation_failure_is_502_with_error_text(client, tab):
    with pytest.raises(errors.NavigationFailed) as caught:
        client.navigate("http://127.0.0.1:9/", target_id=tab["tabId"])
    assert "net::" in str(caught.value)


def test_full_page_screenshot_is_the_whole_page_and_fetchable(client, tab, site, tmp_path):
    client.navigate(site.url("/long.html"), target_id=tab["tabId"])
    shot = client.screenshot(target_id=tab["tabId"], full_page=True)
    out = client.fetch_media(shot["mediaUrl"], tmp_path / "shot.png")
    width, height = png_size(out.read_bytes())
    assert height > 3000 * min(1.0, 2000 / height) - 1 or height == 2000
    assert max(width, height) <= 2000
    viewport = png_size(
        client.fetch_media(
            client.screenshot(target_id=tab["tabId"])["mediaUrl"], tmp_path / "view.png"
        ).read_bytes()
    )
    assert viewport[1] < height


def test_screenshot_of_an_element_by_css_and_jpeg(client, tab, site, tmp_path):
    client.navigate(site.url("/long.html"), target_id=tab["tabId"])
    shot = client.screenshot(target_id=tab["tabId"], element="#end", type="jpeg")
    data = client.fetch_media(shot["mediaUrl"], tmp_path / "el.jpg").read_bytes()
    assert shot["type"] == "jpeg" and data[:3] == b"\xff\xd8\xff"
    with pytest.raises(errors.SelectorNotFound):
        client.screenshot(target_id=tab["tabId"], element="#nope")


def test_pdf_is_a_pdf(client, tab, tmp_path):
    result = client.pdf(target_id=tab["tabId"])
    data = client.fetch_media(result["mediaUrl"], tmp_path / "p.pdf").read_bytes()
    assert data.startswith(b"%PDF-") and result["bytes"] == len(data)


def test_media_names_cannot_escape(service):
    import http.client
    import urllib.parse

    host, port = urllib.parse.urlsplit(service.url).netloc.split(":")
    for name in ("..%2Fauth-token", "..", "%2e%2e%2fauth-token", "..%5Cauth-token", ".auth"):
        conn = http.client.HTTPConnection(host, int(port), timeout=5)
        conn.request("GET", f"/media/{name}", headers={"Authorization": f"Bearer {service.token}"})
        reply = conn.getresponse()
        body = reply.read()
        conn.close()
        assert reply.status == 404, (name, body)


def test_max_tabs_closes_the_oldest(service, site, clawd_home):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    running = RunningService(service_config(clawd_home / "maxtabs", extra={}))
    object.__setattr__(running.config.browser, "max_tabs", 3)  # frozen dataclass: a test-only tweak
    try:
        c = running.client()
        c.start()
        opened = [c.open(site.url("/index.html"))["tabId"] for _ in range(4)]
        ids = [t["tabId"] for t in c.tabs()["tabs"]]
        assert len(ids) == 3 and opened[-1] in ids and opened[0] not in ids
    finally:
        running.close()


def test_a_label_with_a_space_closes_by_its_percent_encoded_path(client, site):
    tab = client.open(site.url("/index.html"), label="my notes")
    closed = client.close_tab("my notes")  # DELETE /tabs/my%20notes
    assert closed["closed"] == tab["tabId"]
