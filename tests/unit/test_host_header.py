"""The Host header read strictly as host[:port] (issue 40, item 15): a value that only ends like a
loopback name (`evil.example?.localhost`) or carries one before a userinfo `@`
(`127.0.0.1:28791@evil.example`) is not one, and the DNS-rebinding guard refuses it."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clawd import errors
from clawd.security.csrf import RequestGuard, parse_host
from clawd.server.routing import Request

SMUGGLED = [
    "evil.example?.localhost",
    "127.0.0.1:28791@evil.example",
    "evil.example#.localhost",
    "evil.example/.localhost",
    "evil.example\\.localhost",
    "user@127.0.0.1",
    "user:pass@localhost:18791",
    "127.0.0.1/evil",
    "127.0.0.1#evil",
    "127.0.0.1?x=1",
    "127.0.0.1\\evil.example",
    "127.0.0.1 evil.example",
    "localhost:18791 evil.example",
    "evil example.localhost",
    "127.0.0.1\tevil",
    "ēvil.localhost",
    "localhost\u3002evil",
    "[::1%evil.example]",
    "[::1%25evil]:80",
    "[::1]evil.localhost",
    "[::1]:80:81",
    "::1%evil.example",
    "127.0.0.1:99999",
    "127.0.0.1:",
    "127.0.0.1:8o",
    "127.0.0.1:-1",
    "localhost:+80",
    "[evil.example]",
    "[v1.evil]",
    "a..localhost",
    ".localhost",
    "%65vil.localhost",
    "evil!.localhost",
    "x" * 300 + ".localhost",
]


@pytest.mark.parametrize("host", SMUGGLED)
def test_a_host_that_is_not_host_port_is_refused_by_the_guard(host):
    with pytest.raises(errors.HostNotAllowed) as raised:
        RequestGuard().check("GET", {"Host": host})
    assert raised.value.http_status == 403


@pytest.mark.parametrize(
    "header, parsed",
    [
        ("127.0.0.1:18791", ("127.0.0.1", 18791)),
        ("localhost", ("localhost", None)),
        ("localhost.:80", ("localhost.", 80)),
        ("Agent.localhost:1", ("Agent.localhost", 1)),
        ("[::1]:18791", ("::1", 18791)),
        ("[0:0::1]", ("::1", None)),
        ("::1", ("::1", None)),
        (" 127.0.0.1:0 ", ("127.0.0.1", 0)),
        ("clawd.lan:65535", ("clawd.lan", 65535)),
    ],
)
def test_host_port_is_parsed(header, parsed):
    assert parse_host(header) == parsed


def test_a_configured_ipv6_host_matches_any_spelling_of_it():
    guard = RequestGuard(["[FD00:0:0::5]"])
    guard.check("GET", {"Host": "[fd00::5]:18791"})
    with pytest.raises(errors.HostNotAllowed):
        guard.check("GET", {"Host": "[fd00::5%eth0]:18791"})


@pytest.mark.parametrize(
    "address, authority",
    [
        (("127.0.0.1", 18791), "127.0.0.1:18791"),
        (("::1", 18791, 0, 0), "[::1]:18791"),
        (("::ffff:127.0.0.1", 18791, 0, 0), "127.0.0.1:18791"),  # a dual-stack socket's IPv4
    ],
)
def test_the_observe_link_is_made_of_the_sockets_own_address(address, authority):
    request = SimpleNamespace(local_address=address, headers={"Host": "evil.example"})
    assert Request.reached_at(request) == authority  # the observe link's and GET /'s controlUrl
