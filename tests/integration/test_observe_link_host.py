"""The observe link points at the service's own address, never at what the Host header says
(issue 40, item 15): a forged Host (`evil.example?.localhost`, `127.0.0.1:28791@evil.example`)
gets the DNS-rebinding guard's 403 on every route, and an accepted one other than the service's
address (`localhost:1`) still gets a link to where the service listens. Real Chromium: the
screencast link of a managed profile, raw requests over a socket so any Host can be sent."""

from __future__ import annotations

import json
import socket
import urllib.parse

import pytest

from tests.unit.test_host_header import SMUGGLED

ROUTES = [
    ("GET", "/sandbox/observe?mode=screencast"),
    ("GET", "/"),
    ("GET", "/tabs"),
    ("POST", "/act"),
    ("GET", "/no/such/route"),
    ("GET", "/observe/AAAAAAAAAAAAAAAAAAAAAAAAA/"),
]


def raw_request(service, method: str, path: str, host: str) -> tuple[int, bytes]:
    """One request with `host` sent as is (UTF-8 when it is not ASCII): (status, body)."""
    head = (
        f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n"
        f"Authorization: Bearer {service.token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    port = urllib.parse.urlsplit(service.url).port
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(head.encode("utf-8"))
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    return int(status_line.split()[1]), rest.partition(b"\r\n\r\n")[2]


@pytest.mark.parametrize("method, path", ROUTES)
@pytest.mark.parametrize("host", SMUGGLED)
def test_a_forged_host_gets_the_guards_403_on_every_route(service, client, method, path, host):
    status, body = raw_request(service, method, path, host)
    assert status == 403, body
    if path.startswith("/observe/"):  # the viewer's pages answer text: the guard's, not the token's
        assert body.startswith(b"Host "), body
    else:
        assert json.loads(body)["code"] == "HOST_NOT_ALLOWED"


@pytest.mark.parametrize(
    "host", ["localhost:1", "agent.localhost", "127.0.0.1", "LOCALHOST.:28791", "127.9.9.9:80"]
)
def test_the_observe_link_points_at_the_services_own_address_whatever_the_host(
    service, client, host
):
    status, body = raw_request(service, "GET", "/sandbox/observe?mode=screencast", host)
    assert status == 200, body
    url = json.loads(body)["url"]
    assert url.startswith(service.url + "/observe/"), url
    parts = urllib.parse.urlsplit(url)
    assert (parts.hostname, parts.port, parts.username) == (
        "127.0.0.1",
        urllib.parse.urlsplit(service.url).port,
        None,
    )
