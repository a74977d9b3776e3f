"""How a pool's HTTP answers become clawd errors (clawd/cdp/pool.py); the real pool's answers
are in tests/integration/test_pool.py."""

from __future__ import annotations

import websocket

from clawd import errors
from clawd.cdp import discovery, pool


def _bad_status(status, headers=None):
    return websocket.WebSocketBadStatusException(
        "Handshake status %d %s", status, "x", headers or {}, None
    )


def test_429_is_pool_busy_with_retry_after_from_the_header_or_the_default():
    busy = pool.handshake_error(_bad_status(429, {"Retry-After": "12"}), "ws://pool:3000")
    assert isinstance(busy, errors.PoolBusy) and busy.http_status == 503
    assert busy.details["retryAfter"] == 12
    plain = pool.handshake_error(_bad_status(429), "ws://pool:3000")
    assert plain.details["retryAfter"] == pool.DEFAULT_RETRY_AFTER
    dated = pool.handshake_error(
        _bad_status(429, {"retry-after": "Wed, 21 Oct 2015 07:28:00 GMT"}), "ws://pool:3000"
    )
    assert dated.details["retryAfter"] == pool.DEFAULT_RETRY_AFTER


def test_401_and_403_are_remote_auth_failed_other_statuses_unreachable():
    for status in (401, 403):
        failed = pool.handshake_error(_bad_status(status), "ws://pool:3000")
        assert isinstance(failed, errors.RemoteAuthFailed) and failed.http_status == 502
        assert failed.details["status"] == status
    other = pool.handshake_error(_bad_status(500), "ws://pool:3000")
    assert type(other) is errors.CdpUnreachable and other.details["status"] == 500
    refused = pool.handshake_error(ConnectionRefusedError(111, "refused"), "ws://pool:3000")
    assert type(refused) is errors.CdpUnreachable and "ws://pool:3000" in refused.message
    queued = pool.handshake_error(websocket.WebSocketTimeoutException("timed out"), "ws://p:1")
    assert type(queued) is errors.CdpUnreachable
    assert "remoteCdpHandshakeTimeoutMs" in queued.message, queued.message


class _Answer:
    def __init__(self, status):
        self.status_code, self.headers = status, {}

    def raise_for_status(self):
        raise AssertionError("not reached for these statuses")


def test_discovery_answers_401_and_429_as_the_pool_errors_and_keeps_them():
    url = "ws://pool:3000?token=secret-token"
    for status, cls in ((401, errors.RemoteAuthFailed), (429, errors.PoolBusy)):
        try:
            discovery.websocket_url(url, http_get=lambda *a, s=status, **k: _Answer(s))
        except cls as exc:
            assert "secret-token" not in exc.message
        else:
            raise AssertionError(f"{status}: no {cls.__name__}")


def test_session_ended_names_the_pool_timeout_and_what_the_next_call_does():
    ended = pool.session_ended("ws://pool:3000", "closed by the browser", restore="tabs")
    assert isinstance(ended, errors.BrowserGone) and ended.http_status == 503
    assert ended.code == "REMOTE_SESSION_ENDED"
    assert "&timeout=<ms>" in ended.message and "reopens the tabs" in ended.message


def test_a_saved_cookie_goes_back_as_a_cookie_param():
    from clawd.browser.continuity import _cookie_param

    session = {
        "name": "s",
        "value": "1",
        "domain": "127.0.0.1",
        "path": "/",
        "expires": -1,
        "size": 2,
        "httpOnly": False,
        "secure": False,
        "session": True,
        "priority": "Medium",
        "sourceScheme": "NonSecure",
        "sourcePort": 8000,
    }
    param = _cookie_param(session)
    assert "expires" not in param and "size" not in param and "session" not in param
    assert param["sourcePort"] == 8000 and param["priority"] == "Medium"
    kept = _cookie_param({**session, "expires": 2e9, "session": False, "sourcePort": -1})
    assert kept["expires"] == 2e9 and "sourcePort" not in kept
