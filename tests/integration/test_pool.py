"""Remote profiles on a real Browserless pool (npm, on loopback; tests/support/browserless.py):
exact errors (busy, wrong token, the pool ending a session mid-call and between calls, a pool
restart), session continuity (cookies, localStorage and tabs put back after the pool ended the
session; not after POST /stop), failover across a cdpUrl list, isolation of two profiles, the
keep-alive, and the pool token kept out of statuses, answers, errors and logs."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
import requests

from clawd import errors
from tests.support.browser import free_port, service_config
from tests.support.browserless import Browserless, require_browserless
from tests.support.service import RunningService

TOKEN = "pool-token-0123456789abcdef"
SHORT_MS = 7000  # the pool's session timeout for the profiles whose session it ends


@pytest.fixture(scope="module")
def pool(tmp_path_factory):
    root = require_browserless()
    running = Browserless(
        tmp_path_factory.mktemp("pool"),
        token=TOKEN,
        timeout_ms=120000,
        concurrent=6,
        queued=0,
        root=root,
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def busy_pool(tmp_path_factory):
    """One session at most, no queue: the second session is refused with 429."""
    root = require_browserless()
    running = Browserless(
        tmp_path_factory.mktemp("busy-pool"),
        token=TOKEN,
        timeout_ms=120000,
        concurrent=1,
        queued=0,
        root=root,
    )
    yield running
    running.stop()


def _profile(url, restore="state", **remote):
    return {"cdpUrl": url, "remote": {"restore": restore, "stateIntervalSeconds": 1, **remote}}


@pytest.fixture(scope="module")
def queue_pool(tmp_path_factory):
    """One session running, one waiting in the queue; a third is refused."""
    root = require_browserless()
    running = Browserless(
        tmp_path_factory.mktemp("queue-pool"),
        token=TOKEN,
        timeout_ms=120000,
        concurrent=1,
        queued=1,
        root=root,
    )
    yield running
    running.stop()


@pytest.fixture(scope="module")
def pooled(tmp_path_factory, pool, busy_pool, queue_pool, site):
    dead = f"ws://127.0.0.1:{free_port()}?token={TOKEN}"
    profiles = {
        "pool-a": _profile(pool.ws()),
        "pool-b": _profile(pool.ws()),
        "short": _profile(pool.ws(timeout=SHORT_MS)),
        "kept": _profile(pool.ws(trackingId="kept")),
        "kept-tabs": _profile(pool.ws(trackingId="kept-tabs"), restore="tabs"),
        "short-none": _profile(pool.ws(timeout=SHORT_MS), restore="none"),
        "restart": _profile(pool.ws()),
        "stopped": _profile(pool.ws()),
        "wrong-token": _profile(pool.ws(token="not-the-token")),
        "busy-1": _profile(busy_pool.ws()),
        "busy-2": _profile(busy_pool.ws()),
        "failover": _profile([dead, busy_pool.ws(), pool.ws()]),
        "keepalive": _profile(pool.ws(), keepAliveSeconds=1),
        "queue-1": _profile(queue_pool.ws()),
        "queue-2": _profile(queue_pool.ws()),
        "queue-3": _profile(queue_pool.ws()),
        "options": _profile(
            pool.ws(timeout=120000, launch=json.dumps({"args": ["--user-agent=clawd-pool-ua"]}))
        ),
    }
    config = service_config(
        tmp_path_factory.mktemp("pool-home"),
        extra={
            "browser": {
                "profiles": profiles,
                "defaultProfile": "pool-a",
                # a pool launches a browser per session (0.4-0.6 s here, more under load)
                "remoteCdpHandshakeTimeoutMs": 30000,
                "remoteCdpTimeoutMs": 10000,
            }
        },
    )
    running = RunningService(config)
    yield running
    running.close()


@pytest.fixture(scope="module")
def pc(pooled):
    c = pooled.client(timeout=60)
    yield c
    c.close()


@pytest.fixture
def logs(caplog):
    caplog.set_level(logging.DEBUG, logger="clawd")
    return caplog


def _until(what, check, timeout: float):
    """check() until it returns something truthy; its last value is in the failure."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        last = check()
        if last:
            return last
        time.sleep(0.1)
    raise AssertionError(f"{what} within {timeout:g} s; last seen: {last!r}")


def _evaluate(pc, profile, tab_id, fn):
    return pc.act("evaluate", fn=fn, target_id=tab_id, profile=profile)["result"]


def _set_state(pc, site, profile):
    """A cookie (persistent and session) and a localStorage item on the site's origin."""
    tab = pc.open(site.url("/index.html"), profile=profile)
    _evaluate(
        pc,
        profile,
        tab["tabId"],
        "() => { document.cookie = 'kept=1; path=/; max-age=3600'; "
        "document.cookie = 'sess=2; path=/'; localStorage.setItem('note', 'hello'); "
        "return true; }",
    )
    origin = site.url("/").rstrip("/")
    _until(
        "the keeper read the cookies and the origin's localStorage",
        lambda: (
            (s := pc.status(profile=profile))["stateSaved"]["cookies"] >= 2
            and origin in s["stateSaved"]["origins"]
            and s
        ),
        15,
    )
    return tab


def _read_state(pc, site, profile, tab_id=None):
    if tab_id is None:
        tab_id = pc.open(site.url("/index.html"), profile=profile)["tabId"]
    return _evaluate(
        pc,
        profile,
        tab_id,
        "() => [document.cookie.split('; ').sort().join('; '), localStorage.getItem('note')]",
    )


def _session_ended(pc, profile):
    _until(
        f"the pool ended the session of {profile}",
        lambda: not pc.status(profile=profile)["running"],
        SHORT_MS / 1000 + 20,
    )


# -- exact errors ---------------------------------------------------------------------------------
def test_a_full_pool_answers_pool_busy_with_retry_after(pc, pooled, site):
    pc.open(site.url("/index.html"), profile="busy-1")
    try:
        with pytest.raises(errors.PoolBusy) as caught:
            pc.open(site.url("/index.html"), profile="busy-2")
        assert caught.value.http_status == 503, caught.value.to_dict()
        assert caught.value.details["retryAfter"] >= 1, caught.value.details
        assert "429" in caught.value.message and TOKEN not in caught.value.message
        raw = requests.post(
            f"{pooled.url}/tabs/open",
            params={"profile": "busy-2"},
            json={"url": site.url("/index.html")},
            headers={"Authorization": f"Bearer {pooled.token}"},
            timeout=60,
        )
        assert raw.status_code == 503 and raw.json()["code"] == "POOL_BUSY", raw.text
        assert raw.headers["Retry-After"] == str(raw.json()["retryAfter"]), raw.headers
    finally:
        pc.stop(profile="busy-1")
    # the slot is free again: the same profile gets a session
    _until(
        "busy-2 gets a session once busy-1 left",
        lambda: _try_open(pc, site, "busy-2"),
        20,
    )
    pc.stop(profile="busy-2")


def test_a_queued_agent_waits_for_a_slot_and_a_full_queue_answers_pool_busy(
    pc, pooled, queue_pool, site
):
    pc.open(site.url("/index.html"), profile="queue-1")
    waited: dict = {}

    def queued():
        with pooled.client(timeout=60) as other:
            try:
                waited["tab"] = other.open(site.url("/index.html"), profile="queue-2")
            except errors.ClawdError as exc:
                waited["error"] = exc

    thread = threading.Thread(target=queued, name="queued-agent")
    thread.start()
    try:
        _until("queue-2 waits in the pool's queue", lambda: queue_pool.pressure()["queued"], 20)
        with pytest.raises(errors.PoolBusy) as caught:
            pc.open(site.url("/index.html"), profile="queue-3")
        assert caught.value.details["retryAfter"] >= 1, caught.value.details
        assert "tab" not in waited and "error" not in waited, waited
    finally:
        pc.stop(profile="queue-1")  # the slot frees: the queued agent's call goes through
        thread.join(60)
    assert not thread.is_alive()
    assert waited.get("tab", {}).get("title") == "clawd test site", waited
    pc.stop(profile="queue-2")


def _try_open(pc, site, profile):
    try:
        return pc.open(site.url("/index.html"), profile=profile)
    except errors.PoolBusy:
        return None


def test_a_wrong_token_answers_remote_auth_failed_and_the_pool_lives_on(pc, pool, logs):
    with pytest.raises(errors.RemoteAuthFailed) as caught:
        pc.open("about:blank", profile="wrong-token")
    assert caught.value.http_status == 502, caught.value.to_dict()
    assert caught.value.details.get("status") == 401, caught.value.details
    assert "not-the-token" not in caught.value.message
    # a second try answers the same, at once (no start back-off turning it into BROWSER_GONE)
    with pytest.raises(errors.RemoteAuthFailed):
        pc.open("about:blank", profile="wrong-token")
    assert "not-the-token" not in logs.text
    assert (
        requests.get(f"{pool.http}/active", params={"token": TOKEN}, timeout=5).status_code == 204
    )


def test_the_pool_ending_a_session_mid_call_fails_the_call_with_remote_session_ended(pc, site):
    tab = pc.open(site.url("/index.html"), profile="short-none")
    began = time.monotonic()
    with pytest.raises(errors.RemoteSessionEnded) as caught:
        _evaluate_slowly(pc, "short-none", tab["tabId"])
    took = time.monotonic() - began
    assert caught.value.http_status == 503, caught.value.to_dict()
    assert "timeout=" in caught.value.message and "session timeout" in caught.value.message
    assert TOKEN not in caught.value.message
    assert took < SHORT_MS / 1000 + 10, took  # at once when the socket closed, not at a deadline
    # the next call reconnects; the old tab id says where it went
    with pytest.raises(errors.TabNotFound) as gone:
        pc.act("evaluate", fn="() => 1", target_id=tab["tabId"], profile="short-none")
    assert "pool ended" in gone.value.message, gone.value.message
    assert pc.open(site.url("/index.html"), profile="short-none")["title"] == "clawd test site"
    pc.stop(profile="short-none")


def _evaluate_slowly(pc, profile, tab_id):
    return pc.act(
        "evaluate",
        fn="() => new Promise(resolve => setTimeout(resolve, 60000))",
        target_id=tab_id,
        timeout_ms=60000,
        profile=profile,
    )


def test_session_timeout_between_calls_reconnects_and_restores(pc, site):
    _set_state(pc, site, "short")
    _session_ended(pc, "short")
    before = pc.status(profile="short")
    assert before["sessionEnded"], before
    # the next call reconnects (a new session, with the same timeout: one call, then look)
    assert pc.open(site.url("/index.html"), profile="short")["title"] == "clawd test site"
    status = pc.status(profile="short")
    assert status["restoredAt"] and status["sessionEnded"] is None, status
    assert status["restored"]["cookies"] >= 2, status
    assert site.url("/").rstrip("/") in status["restored"]["origins"], status
    pc.stop(profile="short")


def test_after_the_pool_ends_a_session_cookies_and_local_storage_are_back(pc, pool, site):
    _set_state(pc, site, "kept")
    pool.kill("kept")  # the pool ends the session, as its timeout does
    _session_ended(pc, "kept")
    # the next call reconnects, and the state is back before it runs
    cookies, note = _read_state(pc, site, "kept")
    assert (cookies, note) == ("kept=1; sess=2", "hello")
    status = pc.status(profile="kept")
    assert status["restoredAt"] and status["restored"]["ms"] > 0, status
    pc.stop(profile="kept")


def test_restore_tabs_reopens_the_tabs_under_their_ids_and_labels(pc, pool, site):
    profile = "kept-tabs"
    first = pc.open(site.url("/index.html"), label="home", profile=profile)
    second = pc.open(site.url("/long.html"), profile=profile)
    _set_state(pc, site, profile)
    want = {
        t["tabId"]: (t["url"], t.get("label"))
        for t in pc.tabs(profile=profile)["tabs"]
        if t["url"] != "about:blank"
    }
    assert first["tabId"] in want and second["tabId"] in want, want
    _until(
        "the keeper saw every tab",
        lambda: set(pc.status(profile=profile)["stateSaved"]["tabs"]) == set(want),
        10,
    )
    pool.kill(profile)
    _session_ended(pc, profile)
    # the agent's next call names its old tab by id: it is there again, state restored
    cookies, note = _read_state(pc, site, profile, tab_id=first["tabId"])
    assert (cookies, note) == ("kept=1; sess=2", "hello")
    got = {t["tabId"]: (t["url"], t.get("label")) for t in pc.tabs(profile=profile)["tabs"]}
    assert got == want, (got, want)
    assert _evaluate(pc, profile, "home", "() => location.pathname") == "/index.html"
    status = pc.status(profile=profile)
    assert sorted(status["restored"]["tabs"]) == sorted(want), status
    pc.stop(profile=profile)


def test_a_pool_restart_reconnects_and_restores(pc, pool, site):
    _set_state(pc, site, "restart")
    pool.restart()
    _session_ended(pc, "restart")
    cookies, note = _read_state(pc, site, "restart")
    assert (cookies, note) == ("kept=1; sess=2", "hello")
    assert pc.status(profile="restart")["restoredAt"]
    pc.stop(profile="restart")


def test_post_stop_ends_the_session_for_good(pc, site):
    _set_state(pc, site, "stopped")
    pc.stop(profile="stopped")
    cookies, note = _read_state(pc, site, "stopped")
    assert (cookies, note) == ("", None)
    status = pc.status(profile="stopped")
    assert status["restoredAt"] is None and status["restored"] is None, status
    pc.stop(profile="stopped")


# -- failover, isolation, keep-alive --------------------------------------------------------------
def test_failover_skips_unreachable_and_busy_endpoints_in_order(pc, pool, busy_pool, site):
    pc.open(site.url("/index.html"), profile="busy-1")  # the busy pool's only slot
    try:
        opened = pc.open(site.url("/index.html"), profile="failover")
        assert opened["title"] == "clawd test site"
        status = pc.status(profile="failover")
        assert status["endpoint"] == f"ws://127.0.0.1:{pool.port}", status
        skipped = status["endpointsSkipped"]
        assert len(skipped) == 2, skipped
        assert skipped[0].endswith("CDP_UNREACHABLE") and skipped[1].endswith("POOL_BUSY"), skipped
        assert str(busy_pool.port) in skipped[1], skipped
        assert all(TOKEN not in s for s in skipped)
    finally:
        pc.stop(profile="busy-1")
        pc.stop(profile="failover")


def test_two_profiles_on_one_pool_are_isolated(pc, site):
    a = pc.open(site.url("/index.html"), profile="pool-a")
    _evaluate(pc, "pool-a", a["tabId"], "() => { localStorage.setItem('who', 'a'); return 1; }")
    _evaluate(pc, "pool-a", a["tabId"], "() => { document.cookie = 'who=a; path=/'; return 1; }")
    b = pc.open(site.url("/index.html"), profile="pool-b")
    seen = _evaluate(
        pc, "pool-b", b["tabId"], "() => [document.cookie, localStorage.getItem('who')]"
    )
    assert seen == ["", None], seen
    assert a["targetId"] not in {t["targetId"] for t in pc.tabs(profile="pool-b")["tabs"]}
    with pytest.raises(errors.TabNotFound):
        pc.act("evaluate", fn="() => 1", target_id=a["targetId"], profile="pool-b")
    pc.stop(profile="pool-a")
    pc.stop(profile="pool-b")


def test_keep_alive_calls_on_an_idle_connection(pc):
    pc.start(profile="keepalive")
    _until(
        "two keep-alive calls on the idle connection",
        lambda: pc.status(profile="keepalive")["keepAlivesSent"] >= 2,
        10,
    )
    pc.stop(profile="keepalive")


def test_the_pools_own_options_ride_on_cdp_url(pc, site):
    """timeout and launch (JSON with args) reach the pool as written; the browser it launched
    for this profile carries the flag."""
    tab = pc.open(site.url("/index.html"), profile="options")
    assert _evaluate(pc, "options", tab["tabId"], "() => navigator.userAgent") == "clawd-pool-ua"
    pc.stop(profile="options")


# -- the token stays secret -----------------------------------------------------------------------
def test_the_pool_token_is_in_no_status_answer_or_log(pc, pooled, site, logs):
    pc.open(site.url("/index.html"), profile="pool-a")
    answers = [
        pc.status(profile="pool-a"),
        pc.status(profile="failover"),
        pc.profiles(),
        pc.tabs(profile="pool-a"),
    ]
    created = pc.create_profile("made-here", cdp_url=f"ws://127.0.0.1:{free_port()}?token={TOKEN}")
    answers.append(created)
    with pytest.raises(errors.CdpUnreachable) as caught:
        pc.start(profile="made-here")
    answers.append(caught.value.to_dict())
    for answer in answers:
        assert TOKEN not in repr(answer), answer
    assert TOKEN not in logs.text
    pc.delete_profile("made-here")
    pc.stop(profile="pool-a")
