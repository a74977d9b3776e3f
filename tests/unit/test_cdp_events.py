"""EventBus (subscriptions scoped by session, one dispatcher thread) and Session.expect/Waiter."""

from __future__ import annotations

import threading

import pytest

from clawd import errors
from clawd.cdp.connection import Connection
from clawd.cdp.events import EventBus
from clawd.cdp.session import Session, Waiter
from tests.support.fake_ws import WAIT, FakeFactory, FakeWebSocket


@pytest.fixture
def bus():
    events = EventBus(name="test-bus")
    yield events
    events.close()


def collect(bus, method, session_id=None, *, any_session=False):
    got = []
    if any_session:
        bus.subscribe(method, got.append)
    else:
        bus.subscribe(method, got.append, session_id)
    return got


# -- EventBus -------------------------------------------------------------------------------------
def test_subscribers_get_their_session_events_and_any_session_subscribers_get_all(bus):
    s1 = collect(bus, "Page.loadEventFired", "S1")
    browser = collect(bus, "Page.loadEventFired", None)
    everyone = collect(bus, "Page.loadEventFired", any_session=True)
    bus.publish("Page.loadEventFired", {"n": 1}, "S1")
    bus.publish("Page.loadEventFired", {"n": 2}, "S2")
    bus.publish("Page.loadEventFired", {"n": 3}, None)
    bus.publish("Page.frameNavigated", {"n": 4}, "S1")
    assert bus.flush(WAIT)
    assert s1 == [{"n": 1}]
    assert browser == [{"n": 3}]
    assert everyone == [{"n": 1}, {"n": 2}, {"n": 3}]


def test_events_are_delivered_in_order_on_the_dispatcher_thread(bus):
    got, threads = [], set()

    def handler(params):
        got.append(params["n"])
        threads.add(threading.current_thread().name)

    bus.subscribe("E", handler)
    for n in range(200):
        bus.publish("E", {"n": n}, None)
    assert bus.flush(WAIT)
    assert got == list(range(200))
    assert threads == {"test-bus"}


def test_flush_waits_for_a_slow_handler_and_answers_at_once_when_all_are_handled(bus):
    release, started = threading.Event(), threading.Event()
    got = []

    def slow(params):
        started.set()
        release.wait(WAIT)
        got.append(params["n"])

    bus.subscribe("E", slow)
    bus.publish("E", {"n": 1}, None)
    assert started.wait(WAIT)
    assert bus.flush(0.05) is False  # the handler still runs: not flushed
    release.set()
    assert bus.flush(WAIT) and got == [1]
    assert bus.flush(0)  # nothing published since: true without waiting at all


def test_unsubscribe_stops_delivery_and_leaves_other_handlers(bus):
    kept = collect(bus, "E", "S1")
    dropped = []
    unsubscribe = bus.subscribe("E", dropped.append, "S1")
    bus.publish("E", {"n": 1}, "S1")
    assert bus.flush(WAIT)
    unsubscribe()
    unsubscribe()  # twice is harmless
    bus.publish("E", {"n": 2}, "S1")
    assert bus.flush(WAIT)
    assert dropped == [{"n": 1}]
    assert kept == [{"n": 1}, {"n": 2}]


def test_unsubscribing_the_last_handler_frees_the_key(bus):
    unsubscribe = bus.subscribe("E", lambda p: None, "S1")
    unsubscribe()
    assert bus._subs == {}


def test_forget_session_drops_every_subscription_of_that_session_only(bus):
    gone_a = collect(bus, "A", "S1")
    gone_b = collect(bus, "B", "S1")
    kept = collect(bus, "A", "S2")
    everyone = collect(bus, "A", any_session=True)
    bus.forget_session("S1")
    bus.publish("A", {}, "S1")
    bus.publish("B", {}, "S1")
    bus.publish("A", {}, "S2")
    assert bus.flush(WAIT)
    assert gone_a == [] and gone_b == []
    assert kept == [{}]
    assert everyone == [{}, {}]  # ANY_SESSION subscriptions are not the session's to lose


def test_a_failing_handler_does_not_stop_delivery(bus):
    def broken(params):
        raise RuntimeError("subscriber bug")

    bus.subscribe("E", broken)
    got = collect(bus, "E", any_session=True)
    bus.publish("E", {"n": 1}, None)
    bus.publish("E", {"n": 2}, None)
    assert bus.flush(WAIT)
    assert got == [{"n": 1}, {"n": 2}]


def test_a_handler_may_unsubscribe_itself_while_being_called(bus):
    got = []
    holder = {}

    def once(params):
        got.append(params)
        holder["unsubscribe"]()

    holder["unsubscribe"] = bus.subscribe("E", once)
    bus.publish("E", {"n": 1}, None)
    bus.publish("E", {"n": 2}, None)
    assert bus.flush(WAIT)
    assert got == [{"n": 1}]


def test_close_ends_the_dispatcher_thread():
    events = EventBus(name="closing-bus")
    events.close()
    events._thread.join(WAIT)
    assert not events._thread.is_alive()


# -- Waiter and Session.expect --------------------------------------------------------------------
@pytest.fixture
def fake():
    return FakeWebSocket()


@pytest.fixture
def conn(fake):
    connection = Connection(
        "ws://x/devtools/browser/x", ws_factory=FakeFactory(fake), default_timeout=WAIT
    )
    yield connection
    connection.close()


def drain(conn, fake):
    """Return once every message fed so far has been routed and its events handled: a call whose
    reply is queued behind them comes back only after the reader has passed them."""
    result = {}
    done = threading.Event()
    method = f"Test.drain{len(fake.sent)}"

    def run():
        result["value"] = conn.call(method)
        done.set()

    threading.Thread(target=run, daemon=True).start()
    fake.reply(fake.wait_call(method)["id"])
    assert done.wait(WAIT)
    assert conn.events.flush(WAIT)


def test_expect_before_the_call_catches_an_event_that_beats_the_reply(conn, fake):
    session = Session(conn, "S1")
    waiter = session.expect("Page.frameNavigated", lambda p: p["frame"]["url"] == "https://b.test/")
    fake.event("Page.frameNavigated", {"frame": {"url": "https://a.test/"}}, session_id="S1")
    fake.event("Page.frameNavigated", {"frame": {"url": "https://b.test/"}}, session_id="S2")
    fake.event("Page.frameNavigated", {"frame": {"url": "https://b.test/"}}, session_id="S1")
    assert waiter.wait(WAIT) == {"frame": {"url": "https://b.test/"}}
    assert waiter.done
    assert conn.events._subs == {}  # wait() unsubscribed


def test_a_waiter_keeps_the_first_match(conn, fake):
    waiter = Session(conn, "S1").expect("E")
    fake.event("E", {"n": 1}, session_id="S1")
    fake.event("E", {"n": 2}, session_id="S1")
    drain(conn, fake)
    assert waiter.wait(0) == {"n": 1}


def test_a_waiter_that_times_out_returns_none_and_unsubscribes(conn):
    waiter = Session(conn, "S1").expect("Page.loadEventFired")
    assert waiter.wait(0.01) is None
    assert not waiter.done
    assert conn.events._subs == {}


def test_a_browser_session_listens_to_browser_level_events_only(conn, fake):
    browser = Session(conn)
    got = []
    browser.on("Target.targetCreated", got.append)
    fake.event("Target.targetCreated", {"t": "page"}, session_id="S1")
    fake.event("Target.targetCreated", {"t": "browser"})
    drain(conn, fake)
    assert got == [{"t": "browser"}]


def test_a_bare_waiter_has_a_harmless_default_unsubscribe():
    waiter = Waiter(None)
    waiter._feed({"x": 1})
    assert waiter.wait(0) == {"x": 1}


def test_try_call_turns_a_cdp_error_into_none_but_not_a_dead_socket(conn, fake):
    session = Session(conn, "S1")
    result = {}
    done = threading.Event()

    def run():
        result["value"] = session.try_call("Emulation.clearDeviceMetricsOverride")
        done.set()

    threading.Thread(target=run, daemon=True).start()
    sent = fake.wait_call("Emulation.clearDeviceMetricsOverride")
    fake.error_reply(sent["id"], "Session with given id not found")
    assert done.wait(WAIT) and result["value"] is None

    fake.close_frame()
    conn._reader.join(WAIT)
    assert session.closed
    with pytest.raises(errors.BrowserGone):
        session.try_call("Emulation.clearDeviceMetricsOverride")
