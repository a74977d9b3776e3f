"""OpenClaw's request fields and headers sent to clawd's HTTP API as its tool sends them (DESIGN.md
§17): accepted, doing what their names say, and no looser than clawd's own names."""

from __future__ import annotations

import pytest
import requests

from tests.support.browser import service_config
from tests.support.page_eval import evaluate
from tests.support.service import RunningService
from tests.support.tabs import opened_tab


def post(service, path: str, body: dict, **kw) -> requests.Response:
    headers = {"Authorization": f"Bearer {service.token}", **kw.pop("headers", {})}
    return requests.post(service.url + path, json=body, headers=headers, timeout=30, **kw)


@pytest.fixture
def probe(client, site):
    with opened_tab(client, site.url("/debug/probe.html")) as tab:
        yield tab["tabId"]


def test_timezone_id_sets_the_time_zone(service, client, probe):
    answer = post(service, "/set/timezone", {"timezoneId": "Asia/Tokyo", "targetId": probe})
    assert answer.status_code == 200, answer.text
    assert (
        evaluate(service, client, probe, "Intl.DateTimeFormat().resolvedOptions().timeZone")
        == "Asia/Tokyo"
    )
    post(service, "/set/timezone", {"clear": True, "targetId": probe})


@pytest.mark.parametrize(
    "body, code, words",
    [
        ({"timezoneId": 9}, "INVALID_REQUEST", "timezoneId must be a non-empty string"),
        ({"timezoneId": "Mars/Base"}, "INVALID_TIMEZONE", "Mars/Base"),
        (
            {"timezoneId": "Asia/Tokyo", "timezone": "Europe/Paris"},
            "INVALID_REQUEST",
            "different values",
        ),
    ],
)
def test_timezone_id_is_refused_as_timezone_would_be(service, probe, body, code, words):
    answer = post(service, "/set/timezone", {**body, "targetId": probe})
    assert (
        answer.status_code == 400
        and answer.json()["code"] == code
        and words in answer.json()["error"]
    ), answer.text


def test_openclaw_password_header_is_accepted(clawd_home):
    running = RunningService(
        service_config(clawd_home / "compat-pw", extra={"server": {"auth": {"password": "pw-1"}}})
    )
    try:
        assert requests.get(
            running.url + "/", headers={"X-OpenClaw-Password": "pw-1"}, timeout=10
        ).ok
        refused = requests.get(
            running.url + "/", headers={"X-OpenClaw-Password": "pw-2"}, timeout=10
        )
        assert refused.status_code == 401 and refused.json()["code"] == "UNAUTHORIZED"
    finally:
        running.close()


def test_wait_download_path_names_the_saved_file(service, client, site):
    from tests.support.site import answer

    site.route(
        "/compat/file.bin",
        lambda h: answer(
            h,
            body=b"bytes",
            content_type="application/octet-stream",
            headers={"Content-Disposition": "attachment; filename=x.bin"},
        ),
    )
    with opened_tab(client, site.url("/index.html")) as tab:
        evaluate(
            service,
            client,
            tab["tabId"],
            "setTimeout(() => location.href = '/compat/file.bin', 100)",
        )
        answer = post(
            service,
            "/wait/download",
            {"path": "compat-named.bin", "timeoutMs": 10000, "targetId": tab["tabId"]},
        )
    assert answer.status_code == 200, answer.text
    saved = service.service.layout.downloads / "compat-named.bin"
    assert answer.json()["path"] == str(saved) and saved.read_bytes() == b"bytes"
    saved.unlink()
