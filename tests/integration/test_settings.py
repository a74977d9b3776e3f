"""Per-tab settings: each one checked in the page (navigator, Intl, matchMedia, geolocation) or at
the server (headers, Accept-Language, auth), reported by GET /, inherited by popups, and cleared."""

from __future__ import annotations

import base64

import pytest

from clawd import errors
from clawd.page.state import devices
from clawd.page.state.emulation import Emulation
from tests.support.cli import cli_of as cli
from tests.support.page_eval import evaluate, wait_until
from tests.support.site import answer
from tests.support.tabs import opened_tab


@pytest.fixture
def probe(client, site):
    with opened_tab(client, site.url("/debug/probe.html")) as tab:
        yield tab


def facts(service, client, tab_id: str) -> dict:
    return evaluate(service, client, tab_id, "facts()")


def reload(client, site, tab_id: str, path: str = "/debug/probe.html") -> None:
    client.navigate(site.url(path), target_id=tab_id)


def recorder(site, path: str, header: str) -> list:
    seen: list = []
    site.route(
        path, lambda h: (seen.append(h.headers.get(header)), answer(h, 200, "ok", "text/plain"))
    )
    return seen


# -- offline and headers ------------------------------------------------------------------------
def test_offline_cuts_the_page_off_and_back_on(client, service, site, probe):
    tab_id = probe["tabId"]
    result = client.set_offline(True, target_id=tab_id)
    assert result["settings"]["offline"] is True
    assert client.status()["emulation"][tab_id]["offline"] is True
    assert evaluate(service, client, tab_id, "navigator.onLine") is False
    failed = evaluate(
        service, client, tab_id, "fetch('/debug/pixel.png?offline').then(() => 'ok', e => 'failed')"
    )
    assert failed == "failed"
    row = client.requests(filter="offline", target_id=tab_id)["requests"][-1]
    assert row["failureText"] == "net::ERR_INTERNET_DISCONNECTED"
    client.set_offline(False, target_id=tab_id)
    assert evaluate(service, client, tab_id, "navigator.onLine") is True
    assert (
        evaluate(service, client, tab_id, "fetch('/debug/pixel.png?online').then(r => r.status)")
        == 200
    )
    assert "offline" not in client.status()["emulation"].get(tab_id, {})


def test_extra_headers_are_sent_until_cleared(client, service, site, probe):
    seen = recorder(site, "/debug/api/headers", "X-Team")
    tab_id = probe["tabId"]
    client.set_headers({"X-Team": "qa"}, target_id=tab_id)
    evaluate(service, client, tab_id, "fetch('/debug/api/headers').then(r => r.text())")
    assert seen[-1] == "qa"
    assert client.status()["emulation"][tab_id]["headers"] == {"X-Team": "qa"}
    client.request("POST", "/set/headers", json={"clear": True, "targetId": tab_id})
    evaluate(service, client, tab_id, "fetch('/debug/api/headers').then(r => r.text())")
    assert seen[-1] is None


@pytest.mark.parametrize(
    "headers, expected",
    [
        ("{not json", "headers is not JSON"),
        ("[1, 2]", "headers must be a JSON object"),
        ({"Bad Name": "x"}, "not a valid header name"),
        ({"X-Nested": {"a": 1}}, "headers.X-Nested"),
    ],
)
def test_bad_headers_are_400_naming_the_field(client, probe, headers, expected):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_headers(headers, target_id=probe["tabId"])
    assert caught.value.code == "INVALID_HEADERS" and expected in caught.value.message


def test_headers_as_json_text_are_accepted(client, service, site, probe):
    seen = recorder(site, "/debug/api/headers-text", "X-From")
    client.set_headers('{"X-From": "text"}', target_id=probe["tabId"])
    evaluate(
        service, client, probe["tabId"], "fetch('/debug/api/headers-text').then(r => r.text())"
    )
    assert seen[-1] == "text"


# -- credentials --------------------------------------------------------------------------------
def _protected(realm: str):
    def handle(handler):
        expected = "Basic " + base64.b64encode(b"ada:lovelace").decode()
        if handler.headers.get("Authorization") == expected:
            answer(handler, 200, "<title>secret</title><p>welcome ada</p>")
        else:
            answer(
                handler,
                401,
                "<title>locked</title>",
                headers={"WWW-Authenticate": f'Basic realm="{realm}"'},
            )

    return handle


def test_credentials_answer_http_auth_until_cleared(client, service, site, probe):
    site.route("/debug/api/secret", _protected("clawd"))
    site.route("/debug/vault/secret", _protected("vault"))
    tab_id = probe["tabId"]
    with pytest.raises(errors.NavigationFailed) as caught:  # headless Chromium has no login prompt
        client.navigate(site.url("/debug/api/secret"), target_id=tab_id)
    assert "ERR_INVALID_AUTH_CREDENTIALS" in caught.value.message
    result = client.set_credentials("ada", "lovelace", target_id=tab_id)
    assert result["settings"]["credentials"] == {"username": "ada"}
    assert "lovelace" not in str(client.status())
    page = client.navigate(site.url("/debug/api/secret"), target_id=tab_id)
    assert page["title"] == "secret"
    assert "welcome ada" in evaluate(service, client, tab_id, "document.body.innerText")
    client.set_credentials(clear=True, target_id=tab_id)
    assert "credentials" not in client.status()["emulation"].get(tab_id, {})
    # Chromium keeps what it learnt for /debug/api/ in its own auth cache;
    # a new realm is not answered
    with pytest.raises(errors.NavigationFailed):
        client.navigate(site.url("/debug/vault/secret"), target_id=tab_id)


def test_credentials_need_a_username_or_clear(client, probe):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.request(
            "POST", "/set/credentials", json={"password": "x", "targetId": probe["tabId"]}
        )
    assert "username" in caught.value.message


# -- geolocation --------------------------------------------------------------------------------
def test_geolocation_is_reported_to_the_page_with_permission_granted(client, service, site, probe):
    tab_id = probe["tabId"]
    result = client.set_geolocation(
        latitude=48.8584, longitude=2.2945, accuracy=5, target_id=tab_id
    )
    assert result["permissionOrigin"] == site.url("")
    position = evaluate(service, client, tab_id, "position()")
    assert position == {"latitude": 48.8584, "longitude": 2.2945, "accuracy": 5}
    assert client.status()["emulation"][tab_id]["geolocation"]["latitude"] == 48.8584
    client.set_geolocation(clear=True, target_id=tab_id)
    assert "geolocation" not in client.status()["emulation"].get(tab_id, {})
    assert evaluate(service, client, tab_id, "position()") != position


@pytest.mark.parametrize(
    "body, field",
    [
        ({"latitude": 91, "longitude": 0}, "latitude"),
        ({"latitude": 0, "longitude": -181}, "longitude"),
        ({"latitude": 0, "longitude": 0, "accuracy": -1}, "accuracy"),
        ({"latitude": 0}, "longitude"),
        ({"latitude": 0, "longitude": 0, "origin": "ftp://files"}, "origin"),
    ],
)
def test_bad_geolocation_is_400_naming_the_field(client, probe, body, field):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.request("POST", "/set/geolocation", json={**body, "targetId": probe["tabId"]})
    assert field in caught.value.message


# -- media, timezone, locale --------------------------------------------------------------------
def test_media_color_scheme_and_reduced_motion(client, service, probe):
    tab_id = probe["tabId"]
    client.set_media(color_scheme="dark", reduced_motion="reduce", target_id=tab_id)
    got = facts(service, client, tab_id)
    assert got["dark"] is True and got["reducedMotion"] is True
    assert (
        evaluate(service, client, tab_id, "getComputedStyle(document.body).backgroundColor")
        == "rgb(0, 0, 0)"
    )
    client.set_media(color_scheme="light", target_id=tab_id)
    assert facts(service, client, tab_id)["dark"] is False
    assert client.status()["emulation"][tab_id]["media"] == {
        "colorScheme": "light",
        "reducedMotion": "reduce",
    }
    client.set_media(color_scheme="none", reduced_motion="none", target_id=tab_id)
    assert "media" not in client.status()["emulation"].get(tab_id, {})
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_media(color_scheme="purple", target_id=probe["tabId"])
    assert "colorScheme" in caught.value.message


def test_timezone_changes_what_the_page_computes(client, service, probe):
    tab_id = probe["tabId"]
    client.set_timezone("Asia/Tokyo", target_id=tab_id)
    assert facts(service, client, tab_id)["timeZone"] == "Asia/Tokyo"
    assert evaluate(service, client, tab_id, "new Date(0).getHours()") == 9
    client.set_timezone("America/New_York", target_id=tab_id)
    assert facts(service, client, tab_id)["timeZone"] == "America/New_York"
    assert client.status()["emulation"][tab_id]["timezone"] == "America/New_York"


def test_invalid_timezone_is_400_naming_the_field(client, probe):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_timezone("Mars/Olympus_Mons", target_id=probe["tabId"])
    assert caught.value.code == "INVALID_TIMEZONE" and "timezone" in caught.value.message


def test_locale_sets_intl_navigator_language_and_accept_language(client, service, site, probe):
    seen = recorder(site, "/debug/api/language", "Accept-Language")
    tab_id = probe["tabId"]
    client.set_locale("de-DE", target_id=tab_id)
    reload(client, site, tab_id)
    got = facts(service, client, tab_id)
    assert got["intlLocale"] == "de-DE"
    assert got["language"] == "de-DE" and got["languages"][0] == "de-DE"
    assert evaluate(service, client, tab_id, "(1234.5).toLocaleString()") == "1.234,5"
    evaluate(service, client, tab_id, "fetch('/debug/api/language').then(r => r.text())")
    assert seen[-1].startswith("de-DE")
    assert client.status()["emulation"][tab_id]["locale"] == "de-DE"


@pytest.mark.parametrize(
    "locale, header",
    [
        ("fr-FR", "fr-FR,fr;q=0.9"),
        ("de", "de"),
        ("pt_BR", "pt-BR,pt;q=0.9"),
        ("zh-Hant-TW", "zh-Hant-TW,zh;q=0.9"),
    ],
)
def test_locale_sends_a_well_formed_accept_language(client, service, site, probe, locale, header):
    """Chromium adds the q-values itself: clawd hands it the bare list (it once sent
    `fr-FR,fr;q=0.9;q=0.9`)."""
    seen = recorder(site, "/debug/api/language-exact", "Accept-Language")
    tab_id = probe["tabId"]
    try:
        client.set_locale(locale, target_id=tab_id)
        evaluate(service, client, tab_id, "fetch('/debug/api/language-exact').then(r => r.text())")
        assert seen == [header]
        reload(client, site, tab_id, "/debug/api/language-exact")  # the navigation request too
        assert seen == [header, header]
    finally:
        client.set_locale(clear=True, target_id=tab_id)


@pytest.mark.parametrize("value", ["not a locale!", "x", "de-DE; rm -rf"])
def test_invalid_locale_is_400_naming_the_field(client, probe, value):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_locale(value, target_id=probe["tabId"])
    assert caught.value.code == "INVALID_LOCALE" and "locale" in caught.value.message


# -- device and viewport ------------------------------------------------------------------------
def test_device_preset_sets_viewport_scale_touch_and_user_agent(client, service, site, probe):
    tab_id = probe["tabId"]
    result = client.set_device("iphone 14", target_id=tab_id)
    assert result["device"]["name"] == "iPhone 14"
    reload(client, site, tab_id)
    got = facts(service, client, tab_id)
    assert (got["width"], got["height"], got["dpr"]) == (390, 844, 3)
    assert "iPhone" in got["userAgent"] and got["touch"] > 0
    assert client.status()["emulation"][tab_id]["device"] == "iPhone 14"
    client.set_device("Desktop Chrome", target_id=tab_id)
    reload(client, site, tab_id)
    got = facts(service, client, tab_id)
    assert (got["width"], got["height"], got["dpr"], got["touch"]) == (1280, 720, 1, 0)
    assert "Windows NT" in got["userAgent"]


def test_unknown_device_is_400_with_the_closest_names(client, probe):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_device("iPhone 41", target_id=probe["tabId"])
    exc = caught.value
    assert exc.code == "UNKNOWN_DEVICE" and "name" in exc.message
    assert "iPhone 14" in exc.details["closest"] and "iPhone 14" in exc.message


def test_device_table_covers_phones_tablets_and_desktops():
    assert len(devices.DEVICES) >= 20
    kinds = {d.kind for d in devices.DEVICES}
    assert kinds == {"phone", "tablet", "desktop"}
    iphone = devices.find("iPhone 14")
    assert (iphone.width, iphone.height, iphone.scale, iphone.mobile, iphone.touch) == (
        390,
        844,
        3,
        True,
        True,
    )
    assert all(d.user_agent.startswith("Mozilla/5.0") for d in devices.DEVICES)


def test_viewport_resizes_the_page(client, service, probe):
    tab_id = probe["tabId"]
    result = client.set_viewport(800, 600, device_scale_factor=2, target_id=tab_id)
    assert result["viewport"] == {
        "width": 800,
        "height": 600,
        "deviceScaleFactor": 2,
        "mobile": False,
    }
    got = facts(service, client, tab_id)
    assert (got["width"], got["height"], got["dpr"]) == (800, 600, 2)
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_viewport(0, 600, target_id=tab_id)
    assert "width" in caught.value.message


# -- scope: per tab, popups, reset ----------------------------------------------------------------
def test_settings_are_per_tab(client, service, site, probe):
    other = client.open(site.url("/debug/probe.html"))
    try:
        client.set_timezone("Asia/Kolkata", target_id=probe["tabId"])
        assert facts(service, client, other["tabId"])["timeZone"] != "Asia/Kolkata"
        assert other["tabId"] not in client.status()["emulation"]
    finally:
        client.close_tab(other["tabId"])


def test_a_popup_inherits_its_openers_settings_from_its_first_script(client, service, site):
    opener = client.open(site.url("/debug/popup.html"))
    tab_id = opener["tabId"]
    popup = None
    try:
        client.set_timezone("Pacific/Auckland", target_id=tab_id)
        client.set_locale("fr-FR", target_id=tab_id)
        client.set_device("Pixel 7", target_id=tab_id)
        known = {t["tabId"] for t in client.tabs()["tabs"]}
        evaluate(service, client, tab_id, "openPopup('/debug/probe.html')")
        popup = wait_until(
            lambda: [t for t in client.tabs()["tabs"] if t["tabId"] not in known], message="popup"
        )[0]
        line = wait_until(
            lambda: [
                m["text"]
                for m in client.console(target_id=popup["tabId"])["messages"]
                if m["text"].startswith("probe loaded")
            ],
            message="probe's first log",
        )[0]
        # what the page saw in its very first script
        assert line == "probe loaded fr-FR Pacific/Auckland light 412x915"
        assert client.status()["emulation"][popup["tabId"]]["device"] == "Pixel 7"
    finally:
        client.close_tab(tab_id)
        if popup:
            client.close_tab(popup["tabId"])


def test_reset_clears_every_override_clawd_set(client, service, site, probe):
    """What POST /stop does on profiles clawd does not own, tab by tab."""
    tab_id = probe["tabId"]
    before = facts(service, client, tab_id)
    client.set_timezone("Asia/Tokyo", target_id=tab_id)
    client.set_locale("ja-JP", target_id=tab_id)
    client.set_media(color_scheme="dark", target_id=tab_id)
    client.set_device("iPad Mini", target_id=tab_id)
    client.set_offline(True, target_id=tab_id)
    client.set_credentials("u", "p", target_id=tab_id)
    client.set_geolocation(latitude=1, longitude=2, target_id=tab_id)
    assert facts(service, client, tab_id)["timeZone"] == "Asia/Tokyo"
    hook = next(h for h in service.service.hooks if isinstance(h, Emulation))
    browser = service.service.runtime(None).browser
    hook.reset(next(t for t in browser.tabs() if t.tab_id == tab_id))
    assert tab_id not in client.status()["emulation"]
    after = facts(service, client, tab_id)
    for key in (
        "timeZone",
        "intlLocale",
        "language",
        "dark",
        "width",
        "height",
        "dpr",
        "userAgent",
        "touch",
        "online",
    ):
        assert after[key] == before[key], key


def test_stop_on_a_remote_profile_clears_overrides_and_keeps_the_browser(
    client, service, site, tmp_path
):
    from tests.support.browser import BareChromium

    bare = BareChromium(tmp_path)
    try:
        client.create_profile("remote-settings", cdp_url=f"http://127.0.0.1:{bare.port}")
        tab = client.open(site.url("/debug/probe.html"), profile="remote-settings")
        client.set_timezone("Asia/Tokyo", target_id=tab["tabId"], profile="remote-settings")
        client.set_headers({"X-Remote": "1"}, target_id=tab["tabId"], profile="remote-settings")
        assert (
            client.status(profile="remote-settings")["emulation"][tab["tabId"]]["timezone"]
            == "Asia/Tokyo"
        )
        assert client.stop(profile="remote-settings")["stopped"] is True
        assert bare.proc.poll() is None  # the browser is not ours: it keeps running
    finally:
        try:
            client.delete_profile("remote-settings")
        except errors.ClawdError:
            pass
        bare.close()


# -- CLI ----------------------------------------------------------------------------------------
def test_cli_set_commands_change_the_tab(service, client, site, probe):
    tab_id = probe["tabId"]
    t = ["--target", tab_id]
    for argv in (
        ["set", *t, "offline", "on"],
        ["set", *t, "headers", "--headers-json", '{"X-Cli": "1"}'],
        ["set", *t, "credentials", "ada", "lovelace"],
        ["set", *t, "geo", "10", "20", "--accuracy", "3"],
        ["set", *t, "media", "--color-scheme", "dark"],
        ["set", *t, "timezone", "Europe/Berlin"],
        ["set", *t, "locale", "es-ES"],
        ["set", *t, "device", "Galaxy S8"],
        ["set", *t, "viewport", "700", "500"],
    ):
        status, out, err = cli(service, *argv)
        assert status == 0, (argv, err)
    settings = client.status()["emulation"][tab_id]
    assert settings["offline"] is True and settings["headers"] == {"X-Cli": "1"}
    assert (
        settings["credentials"] == {"username": "ada"} and settings["geolocation"]["accuracy"] == 3
    )
    assert settings["media"] == {"colorScheme": "dark"} and settings["timezone"] == "Europe/Berlin"
    assert settings["locale"] == "es-ES" and settings["device"] == "Galaxy S8"
    assert settings["viewport"]["width"] == 700
    got = facts(service, client, tab_id)
    assert (got["width"], got["timeZone"], got["dark"], got["online"]) == (
        700,
        "Europe/Berlin",
        True,
        False,
    )
    for argv in (
        ["set", *t, "offline", "off"],
        ["set", *t, "headers", "--clear"],
        ["set", *t, "credentials", "--clear"],
        ["set", *t, "geo", "--clear"],
    ):
        assert cli(service, *argv)[0] == 0, argv
    settings = client.status()["emulation"][tab_id]
    assert not {"offline", "headers", "credentials", "geolocation"} & set(settings)


def test_cli_set_rejects_bad_input(service, probe):
    t = ["--target", probe["tabId"]]
    status, _, err = cli(service, "set", *t, "headers", "--headers-json", "{oops")
    assert status == 2 and "--headers-json is not JSON" in err
    status, _, err = cli(service, "set", *t, "device", "Pixle 7")
    assert status == 1 and "Pixel 7" in err
    status, _, err = cli(service, "set", *t, "timezone", "Nowhere/Land")
    assert status == 1 and "timezone" in err
