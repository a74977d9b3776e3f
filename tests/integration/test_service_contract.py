"""The HTTP contract: auth, CSRF and Host guards, the body limit, bad input answered with codes."""

from __future__ import annotations

import base64
import http.client
import json
import os
import stat
import urllib.parse

import pytest
import requests


def raw(service, method, path, body=None, headers=None):
    host, port = urllib.parse.urlsplit(service.url).netloc.split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    all_headers = {"Authorization": f"Bearer {service.token}", **(headers or {})}
    conn.request(
        method, path, body=body, headers={k: v for k, v in all_headers.items() if v is not None}
    )
    reply = conn.getresponse()
    data = reply.read()
    conn.close()
    return reply.status, (json.loads(data) if data else None)


def test_token_file_is_generated_with_mode_0600(service):
    path = service.service.layout.auth_token
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert path.read_text().strip() == service.token


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": "Bearer wrong"},
        {"Authorization": "Basic Og=="},
        {"X-Clawd-Password": "x"},
    ],
)
def test_missing_or_wrong_credentials_are_401(service, headers):
    answer = requests.get(service.url + "/", headers=headers, timeout=5)
    assert answer.status_code == 401 and answer.json()["code"] == "UNAUTHORIZED"


def test_password_header_and_basic_auth(clawd_home):
    from tests.support.browser import service_config
    from tests.support.service import RunningService

    config = service_config(clawd_home / "pw", extra={"server": {"auth": {"password": "s3cret"}}})
    running = RunningService(config)
    try:
        basic = base64.b64encode(b"any:s3cret").decode()
        assert requests.get(running.url + "/", headers={"X-Clawd-Password": "s3cret"}, timeout=5).ok
        assert requests.get(
            running.url + "/", headers={"X-OpenClaw-Password": "s3cret"}, timeout=5
        ).ok
        assert requests.get(
            running.url + "/", headers={"Authorization": f"Basic {basic}"}, timeout=5
        ).ok
        assert (
            requests.get(
                running.url + "/", headers={"X-Clawd-Password": "nope"}, timeout=5
            ).status_code
            == 401
        )
        assert not (clawd_home / "pw" / "auth-token").exists()
    finally:
        running.close()


@pytest.mark.parametrize(
    "headers",
    [
        {"Sec-Fetch-Site": "cross-site"},
        {"Origin": "https://evil.example"},
        {"Referer": "http://evil.example/page"},
        {"Origin": "null"},
    ],
)
def test_cross_site_posts_are_403(service, headers):
    status, body = raw(service, "POST", "/stop", b"{}", headers)
    assert status == 403 and body["code"] == "CSRF_REJECTED"


def test_loopback_origin_and_plain_clients_pass_csrf(service):
    assert (
        raw(service, "GET", "/", headers={"Origin": "https://evil.example"})[0] == 200
    )  # reads are not CSRF
    assert (
        raw(
            service, "POST", "/profiles/create", b'{"name": 5}', {"Origin": "http://127.0.0.1:3000"}
        )[0]
        == 400
    )


def test_foreign_host_header_is_403(service):
    status, body = raw(service, "GET", "/", headers={"Host": "rebind.example:18791"})
    assert status == 403 and body["code"] == "HOST_NOT_ALLOWED"
    assert raw(service, "GET", "/", headers={"Host": "localhost:1"})[0] == 200


def test_body_over_1_mib_is_413_and_the_service_keeps_serving(service):
    status, body = raw(service, "POST", "/navigate", b"{" + b" " * (1 << 20) + b"}")
    assert status == 413 and body["code"] == "BODY_TOO_LARGE"
    assert raw(service, "GET", "/")[0] == 200


@pytest.mark.parametrize(
    "body,needle",
    [
        (b"{not json", "not valid JSON"),
        (b"[1,2]", "JSON object"),
        (b'{"url": 5}', "url"),
        (b'{"url": "http://x.test", "extra": 1}', "extra"),
        (b"{}", "url"),
    ],
)
def test_malformed_bodies_are_400_with_a_code(service, body, needle):
    status, answer = raw(service, "POST", "/navigate", body, {"Content-Type": "application/json"})
    assert status == 400 and answer["code"] == "INVALID_REQUEST" and needle in answer["error"]


def test_unknown_route_and_wrong_method(service):
    assert raw(service, "GET", "/nope") == (
        404,
        {"error": "no route GET /nope", "code": "ROUTE_NOT_FOUND"},
    )
    status, body = raw(service, "DELETE", "/tabs")
    assert status == 405 and body["code"] == "METHOD_NOT_ALLOWED"


def test_unknown_profile_is_404_and_query_wins_over_body(service):
    status, body = raw(service, "GET", "/?profile=ghost")
    assert status == 404 and body["code"] == "PROFILE_NOT_FOUND"
    status, body = raw(
        service, "POST", "/stop?profile=ghost", json.dumps({"profile": "clawd"}).encode()
    )
    assert status == 404


def test_query_booleans_are_validated(service):
    status, body = raw(service, "POST", "/start?headless=maybe", b"{}")
    assert status == 400 and "headless" in body["error"]
