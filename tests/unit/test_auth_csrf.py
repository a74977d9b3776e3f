"""Who may talk to the service (bearer token, password header, HTTP Basic; the generated token
file) and what a browser may not make it do (cross-site writes, DNS rebinding)."""

from __future__ import annotations

import base64
import hmac
import stat

import pytest

from clawd import errors
from clawd.security import auth
from clawd.security.auth import Authenticator, authenticator_for, load_or_create_token
from clawd.security.csrf import RequestGuard, host_of, is_loopback_host

TOKEN = "tok-3f9a"
PASSWORD = "pässwörd"  # non-ASCII on purpose: compared as UTF-8 bytes


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


# -- credentials ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        {"Authorization": f"Bearer {TOKEN}"},
        {"Authorization": f"bearer {TOKEN}"},
        {"Authorization": f"Bearer  {TOKEN} "},
    ],
)
def test_the_bearer_token_is_accepted(headers):
    Authenticator(token=TOKEN).check(headers)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"Authorization": f"Token {TOKEN}"},
        {"Authorization": basic("u", TOKEN)},
        {"X-Clawd-Password": TOKEN},
        {"X-OpenClaw-Password": TOKEN},
    ],
)
def test_anything_but_the_bearer_token_is_unauthorized(headers):
    with pytest.raises(errors.Unauthorized) as raised:
        Authenticator(token=TOKEN).check(headers)
    assert raised.value.http_status == 401
    assert TOKEN not in str(raised.value)


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Clawd-Password": PASSWORD},
        {"X-OpenClaw-Password": PASSWORD},
        {"Authorization": basic("anyone", PASSWORD)},
        {"Authorization": basic("", PASSWORD)},
        {"Authorization": basic("u", PASSWORD).replace("Basic", "basic")},
    ],
)
def test_the_password_is_accepted_in_its_header_or_as_basic_auth(headers):
    Authenticator(password=PASSWORD).check(headers)


@pytest.mark.parametrize(
    "headers",
    [
        {"X-Clawd-Password": "wrong"},
        {"X-Clawd-Password": ""},
        {"X-OpenClaw-Password": "wrong"},
        {"X-OpenClaw-Password": ""},
        {"Authorization": basic("u", "wrong")},
        {"Authorization": "Basic !!!not-base64!!!"},
        {"Authorization": "Basic " + base64.b64encode(b"u:\xff\xfe").decode()},
        {"Authorization": "Basic " + base64.b64encode(PASSWORD.encode()).decode()},
        {"Authorization": f"Bearer {PASSWORD}"},
    ],
)
def test_a_wrong_or_malformed_password_is_unauthorized(headers):
    with pytest.raises(errors.Unauthorized):
        Authenticator(password=PASSWORD).check(headers)


def test_token_and_password_both_work_when_both_are_set():
    both = Authenticator(token=TOKEN, password=PASSWORD)
    both.check({"Authorization": f"Bearer {TOKEN}"})
    both.check({"X-Clawd-Password": PASSWORD})
    with pytest.raises(errors.Unauthorized):
        both.check({"Authorization": "Bearer nope"})


def test_with_no_credential_configured_everything_passes():
    open_door = Authenticator()
    assert not open_door.enabled
    open_door.check({})


def test_comparison_is_constant_time(monkeypatch):
    compared = []
    real = hmac.compare_digest

    def spy(a, b):
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(auth.hmac, "compare_digest", spy)
    Authenticator(token=TOKEN).check({"Authorization": f"Bearer {TOKEN}"})
    with pytest.raises(errors.Unauthorized):
        Authenticator(password=PASSWORD).check({"X-Clawd-Password": "wrong"})
    assert (TOKEN.encode(), TOKEN.encode()) in compared
    assert (b"wrong", PASSWORD.encode()) in compared


# -- the token file -------------------------------------------------------------------------------
def test_a_token_is_generated_once_with_mode_0600_and_then_reused(tmp_path):
    path = tmp_path / "home" / "auth-token"
    token = load_or_create_token(path)
    assert len(token) >= 32
    assert path.read_text() == token + "\n"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert load_or_create_token(path) == token
    assert load_or_create_token(path) == token


def test_an_existing_token_file_is_read_not_replaced(tmp_path):
    path = tmp_path / "auth-token"
    path.write_text("  handwritten-token \n")
    assert load_or_create_token(path) == "handwritten-token"


def test_an_empty_token_file_gets_a_token_and_mode_0600(tmp_path):
    path = tmp_path / "auth-token"
    path.write_text("")
    path.chmod(0o644)
    token = load_or_create_token(path)
    assert token and path.read_text().strip() == token
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_two_generated_tokens_differ(tmp_path):
    assert load_or_create_token(tmp_path / "a") != load_or_create_token(tmp_path / "b")


def test_authenticator_for_prefers_configured_credentials_and_writes_no_file(tmp_path):
    path = tmp_path / "auth-token"
    assert authenticator_for(TOKEN, None, path).token == TOKEN
    assert authenticator_for(None, PASSWORD, path).password == PASSWORD
    assert not path.exists()


def test_authenticator_for_without_credentials_uses_the_token_file(tmp_path):
    path = tmp_path / "auth-token"
    authenticator = authenticator_for(None, None, path)
    assert authenticator.enabled and authenticator.token == path.read_text().strip()
    authenticator.check({"Authorization": f"Bearer {authenticator.token}"})


# -- Host header (DNS rebinding) ------------------------------------------------------------------
@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1:18791",
        "127.0.0.1",
        "localhost:18791",
        "LOCALHOST",
        "localhost.",
        "[::1]:18791",
        "[::1]",
        "::1",
        "127.5.6.7:80",
        "agent.localhost:18791",
    ],
)
def test_loopback_host_headers_pass(host):
    RequestGuard().check("POST", {"Host": host})


@pytest.mark.parametrize(
    "host",
    [
        "evil.test",
        "evil.test:18791",
        "127.0.0.1.evil.test",
        "localhost.evil.test",
        "0.0.0.0:18791",
        "192.168.1.5:18791",
        "[fe80::1]:80",
        "",
    ],
)
def test_other_host_headers_are_refused(host):
    with pytest.raises(errors.HostNotAllowed) as raised:
        RequestGuard().check("GET", {"Host": host})
    assert raised.value.http_status == 403


def test_the_configured_host_is_allowed():
    guard = RequestGuard(["clawd.lan", "[fd00::5]", "", None])
    guard.check("GET", {"Host": "clawd.lan:18791"})
    guard.check("GET", {"Host": "CLAWD.LAN"})
    guard.check("GET", {"Host": "[fd00::5]:18791"})
    with pytest.raises(errors.HostNotAllowed):
        guard.check("GET", {"Host": "other.lan"})


def test_no_host_header_passes():
    RequestGuard().check("POST", {})


def test_host_of_splits_the_port_off():
    assert host_of("example.com:8080") == "example.com"
    assert host_of("[::1]:80") == "::1"
    assert host_of("::1") == "::1"
    assert host_of(" localhost ") == "localhost"


def test_is_loopback_host():
    assert (
        is_loopback_host("127.0.0.1")
        and is_loopback_host("[::1]")
        and is_loopback_host("x.localhost")
    )
    assert (
        not is_loopback_host("example.com")
        and not is_loopback_host("0.0.0.0")
        and not is_loopback_host("")
    )


# -- cross-site writes ----------------------------------------------------------------------------
LOCAL = {"Host": "127.0.0.1:18791"}


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "post"])
def test_a_cross_site_fetch_that_changes_state_is_refused(method):
    with pytest.raises(errors.CrossSiteRequest) as raised:
        RequestGuard().check(method, {**LOCAL, "Sec-Fetch-Site": "cross-site"})
    assert raised.value.http_status == 403 and raised.value.code == "CSRF_REJECTED"


@pytest.mark.parametrize("method", ["GET", "HEAD", "OPTIONS"])
def test_reads_pass_even_cross_site(method):
    RequestGuard().check(
        method, {**LOCAL, "Sec-Fetch-Site": "cross-site", "Origin": "https://evil.test"}
    )


@pytest.mark.parametrize("site", ["same-origin", "same-site", "none", "Same-Origin"])
def test_other_sec_fetch_site_values_pass(site):
    RequestGuard().check("POST", {**LOCAL, "Sec-Fetch-Site": site})


@pytest.mark.parametrize(
    "header, value",
    [
        ("Origin", "https://evil.test"),
        ("Origin", "null"),
        ("Origin", "http://127.0.0.1.evil.test"),
        ("Referer", "https://evil.test/page?x=1"),
        ("Origin", "http://192.168.1.1:18791"),
    ],
)
def test_a_non_loopback_origin_or_referer_is_refused(header, value):
    with pytest.raises(errors.CrossSiteRequest):
        RequestGuard().check("POST", {**LOCAL, header: value})


@pytest.mark.parametrize(
    "headers",
    [
        {"Origin": "http://127.0.0.1:18791"},
        {"Origin": "http://localhost:3000"},
        {"Origin": "http://[::1]:18791"},
        {"Referer": "http://127.0.0.1:18791/ui"},
        {"Origin": "http://LOCALHOST"},
        {},
    ],
)
def test_a_loopback_origin_or_referer_or_none_passes(headers):
    RequestGuard().check("POST", {**LOCAL, **headers})


def test_the_configured_host_is_an_allowed_origin():
    guard = RequestGuard(["clawd.lan"])
    guard.check("POST", {"Host": "clawd.lan:18791", "Origin": "http://clawd.lan:18791"})
    with pytest.raises(errors.CrossSiteRequest):
        guard.check("POST", {"Host": "clawd.lan:18791", "Origin": "http://other.lan"})


def test_a_good_origin_does_not_excuse_a_bad_referer():
    with pytest.raises(errors.CrossSiteRequest):
        RequestGuard().check(
            "POST", {**LOCAL, "Origin": "http://127.0.0.1:18791", "Referer": "https://evil.test/"}
        )


def test_the_host_is_checked_before_the_origin():
    with pytest.raises(errors.HostNotAllowed):
        RequestGuard().check("POST", {"Host": "evil.test", "Origin": "https://evil.test"})
