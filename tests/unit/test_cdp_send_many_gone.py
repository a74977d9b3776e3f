"""A batch of commands fails the way one command does when the socket is gone: the connection's
own `gone` error (a pool's "session ended" for a remote profile), not a generic BrowserGone.
Against a fake websocket; no browser."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.cdp import pool
from clawd.cdp.connection import Connection
from tests.support.fake_ws import FakeFactory, FakeWebSocket
from tests.support.page_eval import wait_until

POOL = "ws://pool.example:3000"


def _pool_connection(fake: FakeWebSocket) -> Connection:
    """A remote profile's connection: its calls fail with the pool's own error once it is gone."""
    return Connection(
        f"{POOL}/devtools/browser/x",
        ws_factory=FakeFactory(fake),
        default_timeout=10.0,
        name="test-pool",
        gone=lambda reason: pool.session_ended(POOL, reason),
    )


def _raised(call) -> BaseException:
    with pytest.raises(errors.ClawdError) as raised:
        call()
    return raised.value


def test_send_many_on_a_session_the_pool_closed_raises_the_pools_error_like_send():
    fake = FakeWebSocket()
    conn = _pool_connection(fake)
    try:
        fake.close_frame()  # the pool ends the session
        assert wait_until(lambda: conn.closed, 5.0)
        one = _raised(lambda: conn.send("Runtime.evaluate", {"expression": "1"}))
        many = _raised(
            lambda: conn.send_many([("Runtime.evaluate", {"expression": "1"}), ("DOM.enable", {})])
        )
    finally:
        conn.close()
    assert isinstance(one, errors.RemoteSessionEnded)
    assert (type(many), str(many)) == (type(one), str(one))


def test_send_many_whose_write_fails_raises_the_same_error_as_send():
    outcomes = []
    for batched in (False, True):
        fake = FakeWebSocket()
        conn = _pool_connection(fake)
        fake.send_error = BrokenPipeError("broken pipe")
        try:
            if batched:
                error = _raised(lambda c=conn: c.send_many([("Page.navigate", {"url": "x"})]))
            else:
                error = _raised(lambda c=conn: c.send("Page.navigate", {"url": "x"}))
        finally:
            conn.close()
        assert isinstance(error.__cause__, BrokenPipeError)
        outcomes.append((type(error), str(error)))
    assert outcomes[0][0] is errors.RemoteSessionEnded
    assert outcomes[1] == outcomes[0]
