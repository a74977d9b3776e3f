"""Fuzzed input on every route of the route table: random JSON bodies (wrong types, nested junk,
huge and non-finite numbers, unicode, nulls, invalid JSON) and random query strings never give a
500, a traceback, a non-JSON error or a dead service; a body over 1 MiB is a 413.

The fuzz runs against services of its own (not the session's): valid-looking junk sets offline
mode, clears cookies, grants permissions, stops the browser... which would leak into other tests.
Their navigation allowlist admits only 127.0.0.1 and Chromium resolves no other name, so no junk
URL ever leaves the machine; short action timeouts keep junk `wait`s bounded.
"""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.parse

import pytest
import requests
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawd.acts import KINDS
from clawd.server.routes import ROUTES
from tests.support.browser import require_chromium, service_config
from tests.support.service import RunningService

pytestmark = pytest.mark.timeout(240)

# Routes that legitimately stop, wipe or restart the browser: fuzzed on a service of their own.
DESTRUCTIVE = {("POST", "/stop"), ("POST", "/reset-profile"), ("POST", "/start")}
# observe links answer text on a connection of their own, not JSON: test_sandbox.py's observe
# tests and test_observe_link_host.py cover them
HANDED_OVER = {(r.method, r.pattern) for r in ROUTES if r.handover}
BROWSER_SIDE = {502, 503, 504}  # documented: the browser is gone, unreachable or slow
TIME_FIELDS = {"timeoutMs", "timeMs", "delayMs", "durationMs"}
TRACEBACK = re.compile(r"Traceback \(most recent call last\)|File \"[^\"]+\", line \d+")
EXAMPLES = int(os.environ.get("CLAWD_FUZZ_EXAMPLES", "40"))  # more for a longer hunt

SAFE_CONFIG = {
    "browser": {
        "actionTimeoutMs": 500,
        "extraArgs": [
            "--disable-quic",
            "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
        ],
        "ssrfPolicy": {"allowedHostnames": ["127.0.0.1"], "hostnameAllowlist": ["127.0.0.1"]},
    }
}


def _service(home):
    require_chromium()
    return RunningService(service_config(home, extra=SAFE_CONFIG))


@pytest.fixture(scope="module")
def fuzz_service(tmp_path_factory):
    running = _service(tmp_path_factory.mktemp("fuzz-home"))
    running.client().start()
    running.client().open("about:blank")
    yield running
    running.close()


@pytest.fixture(scope="module")
def http(fuzz_service):
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {fuzz_service.token}"
    yield session
    session.close()


# -- strategies ------------------------------------------------------------------------------------
JUNK_STRINGS = [
    "",
    " ",
    "true",
    "false",
    "1e999",
    "-1",
    "NaN",
    "Infinity",
    "t1",
    "t999",
    "e1",
    "@e1",
    "ref=e9999",
    "ax1",
    "about:blank",
    "http://127.0.0.1:1/",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "../../etc/passwd",
    "/etc/passwd",
    "\x00",
    "\ud7ff\u202e",
    "ＥＸＴＥＲＮＡＬ",
    "local",
    "session",
    "clawd",
    "Enter",
    "Control+A",
    "body",
    "#x",
    "💥" * 50,
    "a" * 5000,
]
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=30)
    | st.sampled_from(JUNK_STRINGS)
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
# profile names decide which browser a request reaches: only ones that exist or cannot
PROFILES = st.sampled_from(["clawd", "nope", "NOPE", "../x", "", "a" * 70])
RAW_BODIES = st.sampled_from(
    [
        b"{",
        b"[]",
        b"null",
        b"1",
        b'"x"',
        b"\xff\xfe",
        b'{"a": 1e400}',
        b'{"timeoutMs": NaN}',
        b'{"url": Infinity}',
        b"{" * 5000 + b"}" * 5000,
        b'{"kind": "evaluate", "fn": "1", "timeoutMs": -Infinity}',
    ]
)


def _fields_for(route) -> list[str]:
    if route.pattern == "/act":
        return sorted(
            {
                "kind",
                "targetId",
                "timeoutMs",
                *(p.name for kind in KINDS.values() for p in kind.params),
            }
        )
    return sorted(route.body or {}) or ["targetId", "url"]


def _bounded(data):
    """Junk, but never a wait longer than a second: the fuzz must stay bounded in time."""
    if isinstance(data, dict):
        out = {}
        for key, value in data.items():
            if (
                key in TIME_FIELDS
                and isinstance(value, (int, float, str))
                and not isinstance(value, bool)
            ):
                value = 300
            out[key] = _bounded(value)
        return out
    if isinstance(data, list):
        return [_bounded(v) for v in data]
    return data


@st.composite
def bodies(draw, route, *, kinds):
    choice = draw(st.integers(0, 9))
    if choice == 0:
        return draw(RAW_BODIES)
    if choice == 1:
        return json.dumps(draw(json_values)).encode()
    keys = draw(
        st.lists(
            st.sampled_from(_fields_for(route)) | st.text(max_size=10), max_size=6, unique=True
        )
    )
    data = {k: draw(json_values) for k in keys if k != "profile"}
    if route.pattern == "/act":
        data["kind"] = draw(st.sampled_from(kinds) | json_values)
        if data["kind"] == "batch" and draw(st.booleans()):
            data["actions"] = draw(
                st.lists(
                    st.fixed_dictionaries(
                        {"kind": st.sampled_from(kinds) | json_values},
                        optional={"ref": json_values, "fn": json_values},
                    ),
                    max_size=3,
                )
            )
    if draw(st.integers(0, 4)) == 0:
        data["profile"] = draw(PROFILES | json_values)
    return json.dumps(_bounded(data), allow_nan=True).encode()


@st.composite
def queries(draw, route):
    known = sorted(route.query or {}) + ["targetId", "profile", "wrap"]
    keys = draw(
        st.lists(st.sampled_from(known) | st.text(min_size=1, max_size=8), max_size=5, unique=True)
    )
    pairs = []
    for key in keys:
        if key == "profile":
            value = draw(PROFILES)
        elif key in TIME_FIELDS:
            value = "300"
        else:
            value = draw(st.sampled_from(JUNK_STRINGS) | st.text(max_size=20))
        pairs.append((key, value))
    return urllib.parse.urlencode(pairs)


def _param(name: str):
    if name == "kind":
        return st.sampled_from(["local", "session"]) | st.text(min_size=1, max_size=10)
    return st.sampled_from(["t1", "t9999", "clawd", "nope", "..", "%00"]) | st.text(
        min_size=1, max_size=20
    )


@st.composite
def requests_for(draw, route, *, kinds):
    path = route.pattern
    for name in re.findall(r"\{(\w+)\}", path):
        value = draw(_param(name))
        if name == "name" and route.method == "DELETE" and value == "clawd":
            value = "clawd-not"  # DELETE of the default profile is refused anyway; keep it out
        path = path.replace(f"{{{name}}}", urllib.parse.quote(value, safe="") or "x")
    query = draw(queries(route)) if draw(st.booleans()) else ""
    body = draw(bodies(route, kinds=kinds)) if route.method == "POST" else b""
    if route.raw_limit:  # PUT /uploads/<name>: any bytes at all
        body = draw(st.binary(max_size=4096))
    if route.pattern == "/wait/download":
        body = _short_download_wait(body)
    return route.method, path + (f"?{query}" if query else ""), body


def _short_download_wait(body: bytes) -> bytes:
    """/wait/download waits 30 s for a download by default: keep the fuzz bounded."""
    try:
        data = json.loads(body or b"{}")
    except ValueError:
        return body
    if isinstance(data, dict) and data.get("timeoutMs") is None:
        data["timeoutMs"] = 300
        return json.dumps(data, allow_nan=True).encode()
    return body


# -- checks ----------------------------------------------------------------------------------------
def check_answer(http, base, method, target, body) -> None:
    answer = http.request(
        method,
        base + target,
        data=body or None,
        timeout=45,
        headers={"Content-Type": "application/json"} if body else {},
    )
    where = f"{method} {target} body={body[:300]!r} -> {answer.status_code} {answer.text[:500]!r}"
    assert not TRACEBACK.search(answer.text), where
    if answer.status_code < 400 and not answer.headers.get("Content-Type", "").startswith(
        "application/json"
    ):
        return  # /media/<name> streams a file
    payload = answer.json()
    assert isinstance(payload, dict), where
    if answer.status_code >= 400:
        assert isinstance(payload.get("error"), str) and isinstance(payload.get("code"), str), where
        assert payload["code"] != "INTERNAL", where
    if answer.status_code >= 500:
        assert answer.status_code in BROWSER_SIDE, where


def still_alive(http, base) -> None:
    answer = http.get(base + "/", timeout=30)
    assert answer.status_code == 200 and answer.json()["ok"] is True


def _group(*prefixes):
    return [
        r
        for r in ROUTES
        if (r.method, r.pattern) not in DESTRUCTIVE
        and any(r.pattern == p or r.pattern.startswith(p + "/") for p in prefixes)
    ]


GROUPS = {
    "basic": _group("/", "/profiles", "/doctor", "/sandbox"),
    "tabs-page": _group("/tabs", "/navigate", "/screenshot", "/pdf", "/media", "/snapshot"),
    "act": _group("/act", "/highlight", "/hooks", "/download", "/wait", "/permissions", "/uploads"),
    "debug-state": _group(
        "/console", "/errors", "/requests", "/response", "/trace", "/cookies", "/storage"
    ),
    "settings": _group("/set"),
    "web": _group("/web"),
    "network-state": _group(
        "/route", "/routes", "/har", "/record", "/recordings", "/state", "/handoff", "/webmcp"
    ),
}
SAFE_KINDS = [k for k in KINDS if k != "close"]


def test_the_groups_cover_every_route():
    covered = {(r.method, r.pattern) for group in GROUPS.values() for r in group}
    covered |= DESTRUCTIVE | HANDED_OVER
    assert covered == {(r.method, r.pattern) for r in ROUTES}


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_fuzzed_requests_never_break_the_service(group, fuzz_service, http):
    routes = GROUPS[group]

    @settings(
        max_examples=EXAMPLES * (2 if len(routes) > 6 else 1),
        deadline=None,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(st.sampled_from(routes).flatmap(lambda r: requests_for(r, kinds=SAFE_KINDS)))
    def fuzz(request):
        check_answer(http, fuzz_service.url, *request)

    fuzz()
    still_alive(http, fuzz_service.url)


def test_fuzzed_destructive_routes_on_a_service_of_their_own(tmp_path):
    running = _service(tmp_path / "home")
    session = requests.Session()
    session.headers["Authorization"] = f"Bearer {running.token}"
    routes = [r for r in ROUTES if (r.method, r.pattern) in DESTRUCTIVE or r.pattern == "/act"]
    try:

        @settings(
            max_examples=max(25, EXAMPLES // 2),
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        @given(
            st.sampled_from(routes).flatmap(
                lambda r: requests_for(r, kinds=["close", "evaluate", "batch"])
            )
        )
        def fuzz(request):
            check_answer(session, running.url, *request)

        fuzz()
        still_alive(session, running.url)
        opened = running.client().open("about:blank")  # and the browser still works
        assert opened["url"] == "about:blank"
    finally:
        session.close()
        running.close()


# -- the body limit --------------------------------------------------------------------------------
def test_a_body_over_one_mib_is_413_before_it_is_read(fuzz_service):
    head = (
        "POST /navigate HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {fuzz_service.token}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {(1 << 20) + 1}\r\n\r\n"
    )
    port = urllib.parse.urlsplit(fuzz_service.url).port
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(head.encode())
        reply = b""
        while b"\r\n\r\n" not in reply or not _complete(reply):
            chunk = sock.recv(65536)
            if not chunk:
                break
            reply += chunk
    status_line, _, rest = reply.partition(b"\r\n")
    assert b" 413 " in status_line
    assert json.loads(rest.split(b"\r\n\r\n", 1)[1])["code"] == "BODY_TOO_LARGE"


def _complete(reply: bytes) -> bool:
    head, _, body = reply.partition(b"\r\n\r\n")
    found = re.search(rb"Content-Length: (\d+)", head)
    return found is not None and len(body) >= int(found.group(1))


def test_a_client_that_sends_a_two_mib_body_reads_the_413(fuzz_service, http):
    body = json.dumps({"url": "about:blank", "pad": "x" * (2 << 20)}).encode()
    answer = http.post(
        fuzz_service.url + "/navigate",
        data=body,
        timeout=30,
        headers={"Content-Type": "application/json"},
    )
    assert answer.status_code == 413
    assert answer.json()["code"] == "BODY_TOO_LARGE"
    still_alive(http, fuzz_service.url)


def test_a_body_of_exactly_one_mib_is_read(fuzz_service, http):
    pad = (1 << 20) - len(json.dumps({"url": "about:blank", "pad": ""}))
    body = json.dumps({"url": "about:blank", "pad": "x" * pad}).encode()
    assert len(body) == 1 << 20
    answer = http.post(
        fuzz_service.url + "/navigate",
        data=body,
        timeout=30,
        headers={"Content-Type": "application/json"},
    )
    assert (
        answer.status_code == 400 and answer.json()["code"] == "INVALID_REQUEST"
    )  # pad is unknown
