"""Cookies and local/session storage: read, set and cleared through the API, checked against what
the page itself sees (document.cookie, localStorage) and what the server receives."""

from __future__ import annotations

import json
import time

import pytest

from clawd import errors
from tests.support.cli import cli_of as cli
from tests.support.page_eval import evaluate
from tests.support.site import answer
from tests.support.tabs import opened_tab


@pytest.fixture
def state_tab(client, site):
    client.clear_cookies()
    with opened_tab(client, site.url("/debug/storage.html")) as tab:
        yield tab


def names(result: dict) -> dict:
    return {c["name"]: c for c in result["cookies"]}


# -- cookies ------------------------------------------------------------------------------------
def test_cookies_set_by_the_page_and_by_the_server_are_listed(client, site, service):
    site.route(
        "/debug/api/login",
        lambda h: answer(
            h,
            200,
            "<p>in</p>",
            headers={"Set-Cookie": "session_id=abc123; Path=/; HttpOnly; SameSite=Lax"},
        ),
    )
    client.clear_cookies()
    tab = client.open(site.url("/debug/api/login"))
    try:
        client.navigate(site.url("/debug/storage.html"), target_id=tab["tabId"])
        found = names(client.cookies(target_id=tab["tabId"]))
        assert found["session_id"]["value"] == "abc123" and found["session_id"]["httpOnly"] is True
        assert (
            found["session_id"]["sameSite"] == "Lax"
            and found["session_id"]["domain"] == "127.0.0.1"
        )
        assert (
            found["page_cookie"]["value"] == "from-js" and found["page_cookie"]["httpOnly"] is False
        )
        assert "page_cookie=from-js" in evaluate(service, client, tab["tabId"], "document.cookie")
        assert "session_id" not in evaluate(service, client, tab["tabId"], "document.cookie")
    finally:
        client.close_tab(tab["tabId"])


def test_set_cookie_by_url_is_seen_by_the_page_and_sent_to_the_server(
    client, site, service, state_tab
):
    seen = []
    site.route(
        "/debug/api/echo-cookie",
        lambda h: (seen.append(h.headers.get("Cookie")), answer(h, 200, "ok", "text/plain")),
    )
    tab_id = state_tab["tabId"]
    result = client.set_cookie(
        {"name": "flavour", "value": "oat", "url": site.url("/")}, target_id=tab_id
    )
    assert result["ok"] is True and result["cookie"]["name"] == "flavour"
    assert "flavour=oat" in evaluate(service, client, tab_id, "document.cookie")
    evaluate(service, client, tab_id, "fetch('/debug/api/echo-cookie').then(r => r.text())")
    assert "flavour=oat" in seen[-1]


def test_set_cookie_by_domain_with_attributes(client, site, state_tab):
    expires = int(time.time()) + 3600
    client.set_cookie(
        {
            "name": "pref",
            "value": "dark",
            "domain": "127.0.0.1",
            "path": "/debug",
            "httpOnly": True,
            "sameSite": "strict",
            "expires": expires,
        },
        target_id=state_tab["tabId"],
    )
    cookie = names(client.cookies(target_id=state_tab["tabId"]))["pref"]
    assert (cookie["path"], cookie["httpOnly"], cookie["sameSite"]) == ("/debug", True, "Strict")
    assert abs(cookie["expires"] - expires) < 2 and cookie["session"] is False


def test_cookie_without_url_or_domain_belongs_to_the_current_page(client, site, state_tab):
    client.set_cookie({"name": "here", "value": "1"}, target_id=state_tab["tabId"])
    assert names(client.cookies(target_id=state_tab["tabId"]))["here"]["domain"] == "127.0.0.1"


def test_all_cookies_include_other_sites(client, state_tab):
    client.set_cookie(
        {"name": "far", "value": "away", "url": "https://example.org/"},
        target_id=state_tab["tabId"],
    )
    assert "far" not in names(client.cookies(target_id=state_tab["tabId"]))
    everything = client.cookies(all=True, target_id=state_tab["tabId"])
    assert everything["all"] is True and names(everything)["far"]["domain"] == "example.org"


def test_clear_cookies_removes_them_for_the_page_too(client, service, state_tab):
    tab_id = state_tab["tabId"]
    assert names(client.cookies(target_id=tab_id))
    client.clear_cookies(target_id=tab_id)
    assert client.cookies(target_id=tab_id)["cookies"] == []
    assert client.cookies(all=True, target_id=tab_id)["cookies"] == []
    assert evaluate(service, client, tab_id, "document.cookie") == ""


@pytest.mark.parametrize(
    "cookie, field",
    [
        ("name=value", "cookie"),
        ({"value": "v", "url": "http://127.0.0.1/"}, "cookie.name"),
        ({"name": "a", "value": 3, "url": "http://127.0.0.1/"}, "cookie.value"),
        (
            {"name": "a", "value": "b", "url": "http://127.0.0.1/", "sameSite": "sometimes"},
            "cookie.sameSite",
        ),
        (
            {"name": "a", "value": "b", "url": "http://127.0.0.1/", "expires": "tomorrow"},
            "cookie.expires",
        ),
        ({"name": "a", "value": "b", "url": "http://127.0.0.1/", "secure": "yes"}, "cookie.secure"),
        ({"name": "a", "value": "b;c", "url": "http://127.0.0.1/"}, "cookie.value"),
        ({"name": "a", "value": "b", "url": "http://127.0.0.1/", "colour": "red"}, "cookie.colour"),
        ({"name": "a", "value": "b", "url": "not a url"}, "cookie.url"),
        (
            {"name": "a", "value": "b", "domain": "127.0.0.1", "sameSite": "None"},
            "cookie",
        ),  # None needs secure
    ],
)
def test_malformed_cookie_is_400_naming_the_field(client, state_tab, cookie, field):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.set_cookie(cookie, target_id=state_tab["tabId"])
    assert caught.value.code == "INVALID_COOKIE" and caught.value.http_status == 400
    assert field in caught.value.message


def test_cli_cookies_set_list_and_clear(service, client, site, state_tab):
    tab_id = state_tab["tabId"]
    status, _, err = cli(
        service,
        "cookies",
        "--target",
        tab_id,
        "set",
        "--name",
        "cli_cookie",
        "--value",
        "v1",
        "--url",
        site.url("/"),
    )
    assert status == 0, err
    status, out, err = cli(service, "cookies", "--target", tab_id)
    assert status == 0 and "cli_cookie" in out and "v1" in out
    status, out, _ = cli(service, "--json", "cookies", "--target", tab_id)
    assert "cli_cookie" in {c["name"] for c in json.loads(out)["cookies"]}
    assert cli(service, "cookies", "--target", tab_id, "clear")[0] == 0
    assert cli(service, "cookies", "--target", tab_id)[1].strip() == "(no cookies)"


# -- storage ------------------------------------------------------------------------------------
def test_storage_reads_what_the_page_stored(client, state_tab):
    tab_id = state_tab["tabId"]
    assert client.storage("local", target_id=tab_id)["items"] == {"seeded": "by the page"}
    assert client.storage("session", target_id=tab_id)["items"] == {"visit": "1"}
    one = client.storage("local", key="seeded", target_id=tab_id)
    assert (one["key"], one["value"]) == ("seeded", "by the page")
    assert client.storage("local", key="absent", target_id=tab_id)["value"] is None


def test_storage_set_is_seen_by_the_page_and_clear_empties_it(client, service, state_tab):
    tab_id = state_tab["tabId"]
    client.set_storage("local", "theme", "dark", target_id=tab_id)
    client.set_storage("session", "step", "", target_id=tab_id)
    assert evaluate(service, client, tab_id, "localStorage.getItem('theme')") == "dark"
    assert evaluate(service, client, tab_id, "sessionStorage.getItem('step')") == ""
    assert client.clear_storage("local", target_id=tab_id)["cleared"] == 2
    assert evaluate(service, client, tab_id, "localStorage.length") == 0
    assert client.storage("session", target_id=tab_id)["items"] == {"visit": "1", "step": ""}


def test_other_storage_kinds_are_400(client, state_tab):
    for call in (
        lambda: client.storage("indexeddb", target_id=state_tab["tabId"]),
        lambda: client.set_storage("cookie", "a", "b", target_id=state_tab["tabId"]),
        lambda: client.clear_storage("cache", target_id=state_tab["tabId"]),
    ):
        with pytest.raises(errors.InvalidRequest) as caught:
            call()
        assert (
            caught.value.code == "INVALID_STORAGE_KIND"
            and "local or session" in caught.value.message
        )


def test_storage_set_value_must_be_a_string(client, state_tab):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.request(
            "POST",
            "/storage/local/set",
            json={"key": "n", "value": 5, "targetId": state_tab["tabId"]},
        )
    assert "value" in caught.value.message


def test_storage_of_a_page_without_an_origin_is_409(client):
    tab = client.tab_action("new")
    tab_id = tab.get("tabId") or tab["tab"]["tabId"]
    try:
        with pytest.raises(errors.Conflict) as caught:
            client.storage("local", target_id=tab_id)
        assert caught.value.code == "STORAGE_UNAVAILABLE" and "about:blank" in caught.value.message
    finally:
        client.close_tab(tab_id)


def test_cli_storage_get_set_clear(service, state_tab):
    tab_id = state_tab["tabId"]
    assert cli(service, "storage", "local", "--target", tab_id, "set", "k", "v")[0] == 0
    status, out, err = cli(service, "storage", "local", "--target", tab_id, "get", "k")
    assert status == 0 and out.strip() == "v", err
    status, out, _ = cli(service, "storage", "local", "--target", tab_id)
    assert "k=v" in out and "seeded=by the page" in out
    assert cli(service, "storage", "local", "--target", tab_id, "clear")[0] == 0
    assert cli(service, "storage", "local", "--target", tab_id, "get")[1].strip() == "(empty)"
