"""The keys OpenClaw's own browser client reads of clawd's answers (issue 36), beside clawd's own:
each asked over HTTP as that client asks, each key checked where the client reads it."""

from __future__ import annotations

import json
import pathlib
import threading

import pytest
import requests

from tests.support.browser import service_config
from tests.support.cli import cli_of
from tests.support.page_eval import evaluate, wait_until
from tests.support.service import RunningService
from tests.support.site import answer
from tests.support.tabs import opened_tab


def call(service, method: str, path: str, body: dict | None = None, **params) -> dict:
    headers = {"Authorization": f"Bearer {service.token}"}
    got = requests.request(
        method, service.url + path, json=body, params=params, headers=headers, timeout=30
    )
    assert got.status_code == 200, got.text
    return got.json()


@pytest.fixture
def storage_tab(service, client, site):
    with opened_tab(client, site.url("/debug/storage.html")) as tab:
        yield tab["tabId"]
        # the site's origin is shared with other tests: leave its storage as the page seeds it
        evaluate(service, client, tab["tabId"], "localStorage.removeItem('theme')")


def test_create_profile_answers_the_name_port_and_color_at_the_top_level(service):
    created = call(service, "POST", "/profiles/create", {"name": "oc-shape", "color": "#0066CC"})
    try:
        assert created["name"] == "oc-shape" and created["color"] == "#0066CC"
        assert isinstance(created["cdpPort"], int)
        assert created["profile"] == "oc-shape"  # the client prints it as the name
    finally:
        call(service, "DELETE", "/profiles/oc-shape")


def test_delete_profile_answers_the_name_and_whether_data_was_removed(service, site):
    call(service, "POST", "/profiles/create", {"name": "oc-gone"})
    kept = call(service, "DELETE", "/profiles/oc-gone")
    assert (kept["profile"], kept["deleted"], kept["removedData"]) == ("oc-gone", False, False)
    call(service, "POST", "/profiles/create", {"name": "oc-used"})
    client = service.client()
    try:
        client.open(site.url("/index.html"), profile="oc-used")  # its user data now exists
    finally:
        client.close()
    removed = call(service, "DELETE", "/profiles/oc-used")
    assert (removed["profile"], removed["deleted"], removed["removedData"]) == (
        "oc-used",
        True,
        True,
    )


def test_reset_profile_answers_moved_from_and_to(clawd_home, site):
    running = RunningService(service_config(clawd_home / "compat-reset"))
    try:
        client = running.client()
        client.open(site.url("/index.html"))
        user_data = running.service.runtime("clawd").user_data_dir
        reset = call(running, "POST", "/reset-profile", {})
        assert reset["moved"] is True and reset["from"] == str(user_data)
        assert reset["to"] == reset["trashedTo"] and pathlib.Path(reset["to"]).is_dir()
        again = call(running, "POST", "/reset-profile", {})  # nothing left to move
        assert again["moved"] is False and "to" not in again
    finally:
        running.close()


def test_storage_get_answers_values_by_key(service, storage_tab):
    call(
        service,
        "POST",
        "/storage/local/set",
        {"key": "theme", "value": "dark", "targetId": storage_tab},
    )
    local = call(service, "GET", "/storage/local", targetId=storage_tab)
    assert local["values"] == local["items"] and local["values"]["theme"] == "dark"
    one = call(service, "GET", "/storage/local", targetId=storage_tab, key="theme")
    assert one["values"] == {"theme": "dark"} and one["value"] == "dark"
    absent = call(service, "GET", "/storage/local", targetId=storage_tab, key="absent")
    assert absent["values"] == {} and absent["value"] is None
    session = call(service, "GET", "/storage/session", targetId=storage_tab)
    assert session["values"] == {"visit": "1"}
    wrapped = call(service, "GET", "/storage/local", targetId=storage_tab, wrap="true")
    assert "EXTERNAL_UNTRUSTED_CONTENT" in wrapped["values"]["theme"]  # the copy, as wrapped


def test_response_body_answers_a_response_object(service, client, site):
    site.route(
        "/compat/api/data",
        lambda h: answer(h, 200, '{"n": 7}', "application/json", headers={"X-Probe": "yes"}),
    )
    with opened_tab(client, site.url("/debug/fetch.html")) as tab:
        tab_id = tab["tabId"]
        waiting = client.status()["network"]["tabs"][tab_id]["waiting"]
        got: dict = {}
        asked = threading.Thread(
            target=lambda: got.update(
                call(
                    service,
                    "POST",
                    "/response/body",
                    {"url": "**/api/data", "targetId": tab_id, "timeoutMs": 15000},
                )
            ),
            daemon=True,
        )
        asked.start()
        wait_until(
            lambda: client.status()["network"]["tabs"][tab_id]["waiting"] > waiting,
            message="the response waiter to be registered",
        )
        evaluate(service, client, tab_id, "load('/compat/api/data')")
        asked.join(20)
    assert not asked.is_alive(), "the response body call did not return"
    response = got["response"]
    assert response["url"] == site.url("/compat/api/data") and response["status"] == 200
    assert json.loads(response["body"]) == {"n": 7} and response["truncated"] is False
    assert response["headers"]["X-Probe"] == "yes" and got["body"] == response["body"]


def test_status_answers_the_keys_the_client_prints(service, client):
    status = call(service, "GET", "/")
    assert status["controlUrl"] == service.url
    assert status["attachOnly"] is False and status["cdpReady"] is True
    assert status["cdpUrl"] == f"http://127.0.0.1:{status['cdpPort']}"  # a managed profile's
    assert (
        status["detectedBrowser"]
        and status["chosenBrowser"] == pathlib.Path(status["executablePath"]).name
    )


def test_cli_create_and_delete_profile_take_name_as_a_flag(service):
    created = cli_of(service, "--json", "create-profile", "--name", "oc-flag")
    assert created.status == 0 and json.loads(created.out)["name"] == "oc-flag"
    deleted = cli_of(service, "--json", "delete-profile", "--name", "oc-flag")
    assert deleted.status == 0 and json.loads(deleted.out)["profile"] == "oc-flag"
    missing = cli_of(service, "delete-profile")
    assert missing.status == 2 and "--name" in missing.err
    clash = cli_of(service, "delete-profile", "one", "--name", "two")
    assert clash.status == 2 and "given twice" in clash.err
