"""Connection against a fake websocket: routing replies by id, deadlines, events on the dispatcher
thread, and failing every pending call at once when the socket dies. No browser."""

from __future__ import annotations

import json
import socket
import threading
import time

import pytest

from clawd import errors
from clawd.cdp import connection as connection_module
from clawd.cdp.connection import Connection
from clawd.cdp.session import Session
from tests.support.fake_ws import WAIT, FakeFactory, FakeWebSocket
from tests.support.page_eval import wait_until
from tests.support.ws_frames import read_client_frame, server_frame

CALL_TIMEOUT = 10.0  # what pending calls would wait out if nobody told them the socket died
PROMPT = 2.0  # "at once": far below CALL_TIMEOUT, far above scheduling noise


@pytest.fixture
def fake():
    return FakeWebSocket()


@pytest.fixture
def conn(fake):
    connection = Connection(
        "ws://127.0.0.1:1/devtools/browser/x",
        ws_factory=FakeFactory(fake),
        default_timeout=CALL_TIMEOUT,
        name="test-cdp",
    )
    yield connection
    connection.close()


class Caller(threading.Thread):
    """Runs one conn.call() on its own thread and keeps what came out and when."""

    def __init__(self, conn, method, params=None, **kwargs):
        super().__init__(daemon=True)
        self.args = (conn, method, params, kwargs)
        self.result = None
        self.error: BaseException | None = None
        self.elapsed: float | None = None
        self.done = threading.Event()
        self.start()

    def run(self):
        conn, method, params, kwargs = self.args
        started = time.monotonic()
        try:
            self.result = conn.call(method, params, **kwargs)
        except BaseException as exc:  # noqa: BLE001 - handed to the test thread
            self.error = exc
        finally:
            self.elapsed = time.monotonic() - started
            self.done.set()

    def outcome(self, timeout=WAIT):
        assert self.done.wait(timeout), f"{self.args[1]} never returned"
        return self.result, self.error


# -- replies --------------------------------------------------------------------------------------
def test_a_call_sends_id_method_params_and_returns_the_result(conn, fake):
    caller = Caller(conn, "Browser.getVersion")
    sent = fake.wait_call("Browser.getVersion")
    assert sent["params"] == {} and "sessionId" not in sent
    fake.reply(sent["id"], {"product": "Chrome/120"})
    assert caller.outcome() == ({"product": "Chrome/120"}, None)


def test_a_session_call_carries_its_session_id(conn, fake):
    session = Session(conn, "S1", target_id="T1")
    caller = Caller(session, "Runtime.evaluate", {"expression": "1"})
    sent = fake.wait_call("Runtime.evaluate")
    assert sent["sessionId"] == "S1" and sent["params"] == {"expression": "1"}
    fake.reply(sent["id"], {"result": {"value": 1}})
    assert caller.outcome() == ({"result": {"value": 1}}, None)


def test_out_of_order_replies_reach_their_own_callers_across_threads(conn, fake):
    callers = [Caller(conn, "Test.echo", {"n": n}) for n in range(8)]
    sent = fake.wait_sent(len(callers))
    assert len({m["id"] for m in sent}) == len(callers)  # ids never repeat
    for message in reversed(sent):
        fake.reply(message["id"], {"n": message["params"]["n"]})
    for n, caller in enumerate(callers):
        assert caller.outcome() == ({"n": n}, None)
    assert conn._pending == {}


def test_send_many_writes_once_in_order_and_each_pending_gets_its_own_reply(conn, fake):
    session = Session(conn, "S1", target_id="T1")
    pendings = session.send_many([("A.one", {"n": 1}), ("A.two", None), ("A.three", {"n": 3})])
    sent = fake.wait_sent(3)
    assert fake.writes == 1
    assert [m["method"] for m in sent] == ["A.one", "A.two", "A.three"]
    assert all(m["sessionId"] == "S1" for m in sent) and sent[1]["params"] == {}
    for message in reversed(sent):
        fake.reply(message["id"], {"method": message["method"]})
    assert [p.result(WAIT) for p in pendings] == [
        {"method": "A.one"},
        {"method": "A.two"},
        {"method": "A.three"},
    ]
    assert conn._pending == {}


def test_pending_wait_gives_up_without_forgetting_the_call(conn, fake):
    pending = conn.send("Slow.call")
    sent = fake.wait_call("Slow.call")
    assert pending.wait(0.05) is False  # still pending: a later reply still reaches it
    fake.reply(sent["id"], {"late": True})
    assert pending.wait(WAIT) is True
    assert pending.result(0) == {"late": True}


def test_a_discarded_call_drops_its_late_reply(conn, fake):
    pending = conn.send("Forgotten.call")
    sent = fake.wait_call("Forgotten.call")
    pending.discard()
    fake.reply(sent["id"], {})
    caller = Caller(conn, "Next.call")
    fake.reply(fake.wait_call("Next.call")["id"], {"ok": 1})
    assert caller.outcome() == ({"ok": 1}, None)
    assert conn._pending == {}


# -- who reads ----------------------------------------------------------------------------------
def test_a_caller_reads_its_own_reply_when_nobody_else_reads(conn, fake):
    caller = Caller(conn, "Browser.getVersion")
    sent = fake.wait_call("Browser.getVersion")
    fake.wait_reader(caller.name)  # it took the read role (the watcher stepped aside)
    fake.reply(sent["id"], {"product": "Chrome"})
    assert caller.outcome() == ({"product": "Chrome"}, None)
    assert "test-cdp-reader" not in fake.recv_threads


def test_a_caller_waiting_for_the_role_gets_its_reply_from_the_reader(conn, fake):
    first = Caller(conn, "Slow.first")
    fake.wait_call("Slow.first")
    fake.wait_reader(first.name)
    second = Caller(conn, "Quick.second")
    sent = fake.wait_call("Quick.second")
    fake.reply(sent["id"], {"second": True})  # read by `first`, handed to `second`
    assert second.outcome() == ({"second": True}, None)
    assert second.name not in fake.recv_threads
    fake.reply(fake.wait_call("Slow.first")["id"], {"first": True})
    assert first.outcome() == ({"first": True}, None)


def test_events_after_the_last_call_still_arrive_without_another_call(conn, fake):
    seen = threading.Event()
    conn.events.subscribe("Target.targetCreated", lambda params: seen.set())
    caller = Caller(conn, "Target.createTarget")
    fake.reply(fake.wait_call("Target.createTarget")["id"], {"targetId": "T2"})
    assert caller.outcome() == ({"targetId": "T2"}, None)
    fake.event("Target.targetCreated", {"targetInfo": {"targetId": "T2"}})  # nobody calls now
    assert seen.wait(WAIT)
    assert "test-cdp-reader" in fake.recv_threads  # the watcher read it


def test_an_error_reply_becomes_cdp_error_with_the_message_and_code(conn, fake):
    caller = Caller(conn, "DOM.getDocument")
    sent = fake.wait_call("DOM.getDocument")
    fake.error_reply(sent["id"], "No node with given id found", code=-32000, data="nodeId 7")
    _, error = caller.outcome()
    assert isinstance(error, errors.CdpError)
    assert "No node with given id found" in str(error) and "nodeId 7" in str(error)
    assert error.cdp_code == -32000
    assert not conn.closed  # an error answer is not a dead socket


def test_a_ten_megabyte_reply_is_routed_whole(conn, fake):
    big = "x" * (10 * 1024 * 1024)
    caller = Caller(conn, "Accessibility.getFullAXTree")
    sent = fake.wait_call("Accessibility.getFullAXTree")
    fake.reply(sent["id"], {"nodes": big})
    result, error = caller.outcome()
    assert error is None and len(result["nodes"]) == len(big)


def test_messages_that_are_not_json_or_name_no_waiter_are_dropped_without_harm(conn, fake):
    fake.feed("this is not json")
    fake.reply(9999, {"stray": True})  # nobody asked for id 9999
    caller = Caller(conn, "Target.getTargets")
    sent = fake.wait_call("Target.getTargets")
    fake.reply(sent["id"], {"targetInfos": []})
    assert caller.outcome() == ({"targetInfos": []}, None)
    assert not conn.closed


# -- deadlines ------------------------------------------------------------------------------------
def test_a_late_reply_after_the_timeout_is_dropped_and_later_calls_still_work(conn, fake):
    with pytest.raises(errors.CdpTimeout) as raised:
        conn.call("Page.captureScreenshot", timeout=0.05)
    assert isinstance(raised.value, TimeoutError)
    assert "Page.captureScreenshot" in str(raised.value)
    assert conn._pending == {}
    late = fake.wait_call("Page.captureScreenshot")
    fake.reply(late["id"], {"data": "too late"})

    caller = Caller(conn, "Page.navigate", {"url": "about:blank"})
    sent = fake.wait_call("Page.navigate")
    assert sent["id"] != late["id"]
    fake.reply(sent["id"], {"frameId": "F"})
    assert caller.outcome() == ({"frameId": "F"}, None)
    assert conn._pending == {} and not conn.closed


def test_the_default_timeout_applies_when_the_call_names_none(fake):
    connection = Connection(
        "ws://x/devtools/browser/x", ws_factory=FakeFactory(fake), default_timeout=0.05
    )
    try:
        with pytest.raises(errors.CdpTimeout):
            connection.call("Browser.getVersion")
    finally:
        connection.close()


# -- events ---------------------------------------------------------------------------------------
def test_an_event_mid_call_reaches_its_subscriber_on_the_dispatcher_thread(conn, fake):
    seen = {}
    delivered = threading.Event()

    def on_load(params):
        seen["params"] = params
        seen["thread"] = threading.current_thread().name
        delivered.set()

    conn.events.subscribe("Page.loadEventFired", on_load)
    caller = Caller(conn, "Page.reload")
    sent = fake.wait_call("Page.reload")
    fake.event("Page.loadEventFired", {"timestamp": 1.5}, session_id="S1")
    assert delivered.wait(WAIT)
    fake.reply(sent["id"])
    assert caller.outcome() == ({}, None)
    assert seen["params"] == {"timestamp": 1.5}
    assert seen["thread"] == "test-cdp-events"
    assert seen["thread"] not in fake.recv_threads  # whoever read the event did not run it


def test_a_slow_subscriber_does_not_delay_replies(conn, fake):
    in_handler, release = threading.Event(), threading.Event()

    def slow(params):
        in_handler.set()
        release.wait(WAIT * 2)

    conn.events.subscribe("Network.requestWillBeSent", slow)
    fake.event("Network.requestWillBeSent", {"requestId": "1"})
    fake.event("Network.requestWillBeSent", {"requestId": "2"})  # queued behind the slow one
    assert in_handler.wait(WAIT)
    try:
        caller = Caller(conn, "Runtime.evaluate")
        sent = fake.wait_call("Runtime.evaluate")
        fake.reply(sent["id"], {"ok": True})
        assert caller.outcome() == ({"ok": True}, None)
        assert not release.is_set()  # the subscriber is still stuck while the reply got through
    finally:
        release.set()
    assert conn.events.flush(WAIT)


# -- the socket dies ------------------------------------------------------------------------------
def _pending_callers(conn, fake, count=3):
    callers = [Caller(conn, f"Slow.call{n}", timeout=CALL_TIMEOUT) for n in range(count)]
    fake.wait_sent(count)
    return callers


def _assert_all_gone_promptly(callers):
    for caller in callers:
        _, error = caller.outcome(WAIT)
        assert isinstance(error, errors.BrowserGone), error
        assert isinstance(error, ConnectionError)
        assert caller.elapsed < PROMPT, (
            f"waited {caller.elapsed:.2f} s of a {CALL_TIMEOUT} s deadline"
        )


def _assert_later_calls_fail_at_once(conn, fake):
    sent_before = len(fake.sent)
    started = time.monotonic()
    with pytest.raises(errors.BrowserGone):
        conn.call("Browser.getVersion", timeout=CALL_TIMEOUT)
    assert time.monotonic() - started < PROMPT
    assert len(fake.sent) == sent_before  # nothing more went out on a dead socket
    assert conn._pending == {}


def test_a_close_frame_fails_every_pending_call_at_once(conn, fake):
    callers = _pending_callers(conn, fake)
    fake.close_frame()
    _assert_all_gone_promptly(callers)
    assert conn.closed and conn.close_reason == "closed by the browser"
    _assert_later_calls_fail_at_once(conn, fake)


def test_recv_raising_fails_every_pending_call_at_once(conn, fake):
    callers = _pending_callers(conn, fake)
    fake.fail_recv(ConnectionResetError("connection reset by peer"))
    _assert_all_gone_promptly(callers)
    assert "ConnectionResetError" in conn.close_reason and "reset by peer" in conn.close_reason
    _assert_later_calls_fail_at_once(conn, fake)


def test_send_raising_fails_that_call_and_every_pending_one_at_once(conn, fake):
    callers = _pending_callers(conn, fake)
    fake.send_error = BrokenPipeError("broken pipe")
    started = time.monotonic()
    with pytest.raises(errors.BrowserGone) as raised:
        conn.call("Page.navigate", {"url": "about:blank"}, timeout=CALL_TIMEOUT)
    assert time.monotonic() - started < PROMPT
    assert "Page.navigate" in str(raised.value)
    assert isinstance(raised.value.__cause__, BrokenPipeError)
    _assert_all_gone_promptly(callers)
    assert conn.closed and "broken pipe" in conn.close_reason
    _assert_later_calls_fail_at_once(conn, fake)


def test_closing_from_our_side_fails_pending_calls_and_closes_the_socket(conn, fake):
    callers = _pending_callers(conn, fake, count=2)
    conn.close()
    _assert_all_gone_promptly(callers)
    assert conn.close_reason == "closed by clawd"
    assert fake.close_calls == 1
    _assert_later_calls_fail_at_once(conn, fake)


def _join_close_callback_threads():
    for thread in threading.enumerate():
        if thread.name == "cdp-closed":
            thread.join(WAIT)


def test_close_callbacks_run_once_each_off_the_reader_thread(conn, fake):
    calls = []
    both_ran = threading.Event()

    def first(reason):
        calls.append(("first", reason, threading.current_thread().name))
        raise RuntimeError("a broken callback must not stop the next one")

    def second(reason):
        calls.append(("second", reason, threading.current_thread().name))
        both_ran.set()

    conn.on_close(first)
    conn.on_close(second)
    fake.close_frame()
    assert both_ran.wait(WAIT)
    conn.close()  # a second shutdown, and the reader is already gone
    fake.fail_recv(OSError("nobody reads this"))
    _join_close_callback_threads()  # any callback thread either shutdown started exists by now
    assert [c[:2] for c in calls] == [
        ("first", "closed by the browser"),
        ("second", "closed by the browser"),
    ]
    assert all(thread not in fake.recv_threads for _, _, thread in calls)


def test_the_event_dispatcher_stops_when_the_socket_closes(conn, fake):
    dispatcher = conn.events._thread
    fake.close_frame()
    dispatcher.join(WAIT)
    assert not dispatcher.is_alive()
    conn._reader.join(WAIT)
    assert not conn._reader.is_alive()


# -- connecting -----------------------------------------------------------------------------------
def test_a_factory_that_raises_becomes_cdp_unreachable_and_leaks_no_thread():
    def refuse(url, **kwargs):
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    with pytest.raises(errors.CdpUnreachable) as raised:
        Connection("ws://127.0.0.1:1/devtools/browser/x", ws_factory=refuse, name="refused-cdp")
    assert "Connection refused" in str(raised.value)
    assert isinstance(raised.value.__cause__, ConnectionRefusedError)
    for thread in threading.enumerate():
        if thread.name == "refused-cdp-events":
            thread.join(WAIT)
            assert not thread.is_alive()


def test_the_factory_gets_the_url_and_the_handshake_timeout(fake):
    factory = FakeFactory(fake)
    connection = Connection(
        "ws://h:1/devtools/browser/x", ws_factory=factory, handshake_timeout=3.0
    )
    connection.close()
    assert factory.calls == [("ws://h:1/devtools/browser/x", {"timeout": 3.0})]


def test_the_default_factory_suppresses_origin_and_skips_utf8_validation(monkeypatch):
    ours, chrome = socket.socketpair()
    ws = HandshakenWebSocket(ours)
    seen = []

    def create_connection(url, **kwargs):
        seen.append((url, kwargs))
        return ws

    monkeypatch.setattr(connection_module.websocket, "create_connection", create_connection)
    connection = Connection("ws://127.0.0.1:18800/devtools/browser/x", handshake_timeout=2.0)
    try:
        [(url, kwargs)] = seen
        assert url == "ws://127.0.0.1:18800/devtools/browser/x"
        assert kwargs["suppress_origin"] is True  # Chrome answers 403 to an Origin header
        assert kwargs["skip_utf8_validation"] is True  # 4x slower on big replies otherwise
        assert kwargs["timeout"] == 2.0
        assert "max_size" not in kwargs  # no cap on message size
        assert ws.timeouts[-1] is None  # the socket blocks; deadlines live in call()
        # the frames Chrome sends are read off the socket itself
        caller = Caller(connection, "Browser.getVersion")
        opcode, sent = read_client_frame(chrome)
        assert opcode == 0x1 and json.loads(sent)["method"] == "Browser.getVersion"
        chrome.sendall(
            server_frame(b'{"id": %d, "result": {"product": "Chrome"}}' % json.loads(sent)["id"])
        )
        assert caller.outcome() == ({"product": "Chrome"}, None)
    finally:
        connection.close()
        chrome.close()


class HandshakenWebSocket:
    """What websocket.create_connection returns, after its handshake: its socket is what clawd
    reads and writes."""

    def __init__(self, sock):
        self.sock = sock
        self.timeouts: list[float | None] = []

    def settimeout(self, timeout):
        self.timeouts.append(timeout)


def test_keepalive_detects_a_silent_peer_and_fails_pending_calls_at_once(conn, fake):
    """A half-open socket raises nothing: the keep-alive call that gets no answer ends it."""
    pending = Caller(conn, "Page.navigate", timeout=60)  # would otherwise wait a minute
    fake.wait_call("Page.navigate")
    conn.start_keepalive(interval=0.2, timeout=0.3)
    fake.wait_call("Browser.getVersion")  # sent after the silence, never answered
    result, error = pending.outcome()
    assert isinstance(error, errors.BrowserGone) and "keep-alive" in str(error)
    assert pending.elapsed < 5
    assert conn.closed


def test_keepalive_stays_quiet_while_the_peer_talks(fake):
    """On the connection's own clock, so a loaded machine's scheduling cannot pass for silence
    (with wall time and a 0.3 s interval, a starved thread once did). Steps are binary fractions:
    the comparisons are exact."""
    now = [100.0]
    connection = Connection(
        "ws://127.0.0.1:1/devtools/browser/x",
        ws_factory=FakeFactory(fake),
        default_timeout=CALL_TIMEOUT,
        name="test-cdp",
        clock=lambda: now[0],
    )
    try:
        for _ in range(10):  # an event every 0.25 s of the clock
            now[0] += 0.25
            fake.event("Page.frameNavigated", {})
            wait_until(
                lambda: connection.last_received == now[0], timeout=WAIT, message="the event read"
            )
            assert not connection.keepalive_due(0.5)
        now[0] += 0.25
        assert not connection.keepalive_due(0.5)
        now[0] += 0.25  # 0.5 s of silence
        assert connection.keepalive_due(0.5)
    finally:
        connection.close()
    assert not connection.keepalive_due(0.5)  # closed: nothing to keep alive
