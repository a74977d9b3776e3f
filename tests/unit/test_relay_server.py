"""The relay's listener against raw websocket clients (no browser): who may connect, the token
hello, malformed and oversized messages, and the DevTools face seen by clawd's own Connection,
with a scripted extension speaking the relay's protocol (the real one: test_relay.py)."""

from __future__ import annotations

import json
import logging
import threading
import time

import pytest
import requests
import websocket

from clawd import errors
from clawd.cdp.connection import Connection
from clawd.relay import package
from clawd.relay.devtools import _BROWSER_METHODS, DevToolsClient
from clawd.relay.server import RelayServer

TOKEN = "t" * 40
ORIGIN = package.origin()


@pytest.fixture
def relay():
    server = RelayServer(TOKEN, port=0, max_message=64 * 1024, hello_timeout=0.5).start()
    yield server
    for ext in ScriptedExtension.made:
        ext.close()
    ScriptedExtension.made.clear()
    server.stop()


def _ws(relay, path="/extension", **kw):
    return websocket.create_connection(f"ws://127.0.0.1:{relay.port}{path}", timeout=5, **kw)


def _wait(check, what, timeout=5.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.02)
    raise AssertionError(f"{what}: not within {timeout:g} s")


def _close_code(ws) -> int | None:
    """The close code the relay sent (None if it sent data instead)."""
    opcode, data = ws.recv_data(control_frame=True)
    ws.shutdown()  # as a browser does after the close frame (websocket-client's close() does not)
    if opcode != websocket.ABNF.OPCODE_CLOSE:
        return None
    return int.from_bytes(data[:2], "big") if len(data) >= 2 else 1005


class ScriptedExtension:
    """Speaks the extension's side of the relay protocol: hello, tabs, and answers to requests
    from a table of CDP method -> result (or error message, as chrome.debugger words them)."""

    made: list[ScriptedExtension] = []

    def __init__(self, relay, tabs=(), answers=None):
        self.made.append(self)
        self.ws = _ws(relay, origin=ORIGIN)
        self.ws.send(json.dumps({"type": "hello", "token": TOKEN, "version": "t", "tabs": tabs}))
        assert json.loads(self.ws.recv()) == {"type": "welcome"}
        self.answers = answers or {}
        self.requests: list[dict] = []
        self.ws.settimeout(None)
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        while True:
            try:
                message = json.loads(self.ws.recv())
            except (websocket.WebSocketException, OSError, ValueError):
                self.ws.close()
                return
            if "id" not in message:
                continue
            self.requests.append(message)
            answer = self.answers.get(message.get("method") or message["type"], {})
            failed = isinstance(answer, str)
            reply = {"error": {"message": answer}} if failed else {"result": answer}
            try:
                self.send({"id": message["id"], **reply})
            except (websocket.WebSocketException, OSError):
                return  # the test closed this side while a request was on its way: done

    def send(self, message):
        self.ws.send(json.dumps(message))

    def close(self):
        self.ws.close()


# -- who may connect -------------------------------------------------------------------------------
@pytest.mark.parametrize("origin", ["http://evil.example", "http://127.0.0.1:8000", "null"])
def test_extension_path_refuses_other_origins_with_403(relay, origin):
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        _ws(relay, origin=origin)
    assert refused.value.status_code == 403
    assert not relay.connected


def test_extension_path_refuses_a_connection_without_origin(relay):
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        _ws(relay, suppress_origin=True)
    assert refused.value.status_code == 403


def test_a_host_header_that_is_not_loopback_is_refused(relay):
    """A page on a rebound DNS name reaches 127.0.0.1 with its own name in Host."""
    with pytest.raises(websocket.WebSocketBadStatusException) as refused:
        _ws(relay, origin=ORIGIN, host=f"evil.example:{relay.port}")
    assert refused.value.status_code == 403


@pytest.mark.parametrize(
    "first",
    [
        {"type": "hello", "token": "wrong-token-" + "x" * 28},
        {"type": "hello", "token": TOKEN[:-1]},
        {"type": "hello"},
        {"type": "hello", "token": 12345},
        {"type": "ping", "token": TOKEN},
    ],
)
def test_a_forged_hello_is_closed_with_1008(relay, first):
    ws = _ws(relay, origin=ORIGIN)
    ws.send(json.dumps(first))
    assert _close_code(ws) == 1008
    assert not relay.connected


def test_no_hello_in_time_closes_the_socket(relay):
    ws = _ws(relay, origin=ORIGIN)
    assert _close_code(ws) == 1008
    assert not relay.connected


def test_the_right_token_is_welcomed_and_status_says_connected(relay):
    ext = ScriptedExtension(relay, tabs=[{"tabId": 7, "targetId": "T7", "url": "https://a/"}])
    status = relay.status()
    assert status["connected"] is True and status["sharedTabs"] == 1, status
    ext.close()
    _wait(lambda: not relay.connected, "disconnect seen")
    assert relay.status()["sharedTabs"] == 0


# -- malformed input -------------------------------------------------------------------------------
def test_malformed_messages_are_logged_and_dropped_without_killing_the_relay(relay, caplog):
    ext = ScriptedExtension(relay)
    caplog.set_level(logging.WARNING, logger="clawd.relay")
    for junk in [
        "not json at all",
        "[1, 2, 3]",
        json.dumps({"id": 999, "result": {}}),
        json.dumps({"id": "x", "error": "?"}),
        json.dumps({"type": "no-such-type"}),
        json.dumps({"type": "event", "tabId": 1, "method": 5}),
        json.dumps({"type": "event", "tabId": [1], "method": "Page.x", "params": {}}),
        json.dumps({"type": "tabs", "tabs": "none"}),
        json.dumps({"type": "attached", "tab": {"tabId": "seven"}}),
        json.dumps({"type": "detached", "tabId": 12345}),
    ]:
        ext.ws.send(junk)
    ext.ws.send_binary(b"\xff\xfe binary junk")
    ext.send({"type": "ping"})
    _wait(lambda: len(caplog.records) >= 10, "each malformed message logged")
    assert relay.connected
    ext.send({"type": "attached", "tab": {"tabId": 3, "targetId": "T3"}})
    _wait(lambda: relay.shared_tabs(), "the relay still reads the extension")
    ext.close()


def test_a_huge_message_is_logged_and_dropped_and_the_connection_kept(relay, caplog):
    ext = ScriptedExtension(relay)
    caplog.set_level(logging.WARNING, logger="clawd.relay")
    ext.send({"type": "attached", "tab": {"tabId": 1, "targetId": "T1", "title": "x" * 70000}})
    _wait(lambda: "over 65536 bytes" in caplog.text, "the huge message logged")
    assert relay.connected and relay.shared_tabs() == []
    ext.send({"type": "attached", "tab": {"tabId": 2, "targetId": "T2"}})
    _wait(lambda: relay.shared_tabs(), "the next message read")
    ext.close()


def test_a_frame_past_the_hard_limit_closes_only_that_connection(relay):
    ws = _ws(relay, origin=ORIGIN)
    ws.send(json.dumps({"type": "hello", "token": TOKEN}))
    assert json.loads(ws.recv()) == {"type": "welcome"}
    ws.send("x" * (4 * 64 * 1024 + 1))
    assert _close_code(ws) == 1009  # message too big
    _wait(lambda: not relay.connected, "the oversized connection dropped")
    again = ScriptedExtension(relay)
    assert relay.connected
    again.close()


# -- the DevTools face -----------------------------------------------------------------------------
def test_json_version_needs_the_token_and_no_origin(relay):
    url = f"http://127.0.0.1:{relay.port}/json/version"
    assert requests.get(url, timeout=5).status_code == 401
    auth = {"Authorization": f"Bearer {TOKEN}"}
    assert (
        requests.get(url, headers={**auth, "Origin": "http://evil"}, timeout=5).status_code == 403
    )
    answer = requests.get(url, headers=auth, timeout=5)
    assert answer.json()["webSocketDebuggerUrl"] == relay.browser_ws_url
    ScriptedExtension(relay, tabs=[{"tabId": 5, "targetId": "T5", "url": "https://a/"}])
    listed = requests.get(url.replace("version", "list"), headers=auth, timeout=5).json()
    assert [(t["id"], t["type"], t["url"]) for t in listed] == [("T5", "page", "https://a/")]


def test_the_devtools_websocket_needs_its_secret_path_and_no_origin(relay):
    ScriptedExtension(relay)
    with pytest.raises(websocket.WebSocketBadStatusException) as wrong:
        _ws(relay, "/devtools/browser/guess", suppress_origin=True)
    assert wrong.value.status_code == 404
    path = relay.browser_ws_url.split(str(relay.port), 1)[1]
    with pytest.raises(websocket.WebSocketBadStatusException) as page:
        _ws(relay, path, origin="http://127.0.0.1:3000")
    assert page.value.status_code == 403


def test_without_an_extension_a_devtools_client_is_closed(relay):
    with pytest.raises(errors.BrowserGone):
        Connection(relay.browser_ws_url).call("Browser.getVersion", timeout=5)


def test_page_targets_are_exactly_the_shared_tabs(relay):
    ScriptedExtension(
        relay, tabs=[{"tabId": 1, "targetId": "T1", "url": "https://a/", "title": "A"}]
    )
    cdp = Connection(relay.browser_ws_url)
    try:
        infos = cdp.call("Target.getTargets")["targetInfos"]
        assert [(i["targetId"], i["type"], i["url"]) for i in infos] == [
            ("T1", "page", "https://a/")
        ]
        attached = []
        cdp.events.subscribe("Target.attachedToTarget", attached.append, None)
        cdp.call("Target.setAutoAttach", {"autoAttach": True, "flatten": True})
        assert cdp.events.flush(5) and [a["targetInfo"]["targetId"] for a in attached] == ["T1"]
    finally:
        cdp.close()


def test_commands_on_a_tab_session_go_to_the_extension_and_back(relay):
    ext = ScriptedExtension(
        relay,
        tabs=[{"tabId": 1, "targetId": "T1"}],
        answers={"Runtime.evaluate": {"result": {"type": "number", "value": 2}}},
    )
    cdp = Connection(relay.browser_ws_url)
    try:
        session = cdp.call("Target.attachToTarget", {"targetId": "T1", "flatten": True})[
            "sessionId"
        ]
        answer = cdp.call("Runtime.evaluate", {"expression": "1+1"}, session_id=session)
        assert answer["result"]["value"] == 2
        sent = ext.requests[-1]
        assert (sent["type"], sent["tabId"], sent["method"]) == ("cdp", 1, "Runtime.evaluate")
    finally:
        cdp.close()


def test_what_chrome_debugger_refuses_is_relay_unsupported_naming_the_method(relay):
    refusal = json.dumps({"code": -32601, "message": "'Browser.setDownloadBehavior' wasn't found"})
    ScriptedExtension(
        relay,
        tabs=[{"tabId": 1, "targetId": "T1"}],
        answers={"Page.setDownloadBehavior": refusal, "Page.navigate": "boom"},
    )
    cdp = Connection(relay.browser_ws_url)
    try:
        with pytest.raises(errors.RelayUnsupported, match="Browser.close"):
            cdp.call("Browser.close")
        for odd in ("send", "reply", "_attach", "Target.", ".getVersion"):  # not our own methods
            with pytest.raises(errors.RelayUnsupported):
                cdp.call(odd)
        session = cdp.call("Target.attachToTarget", {"targetId": "T1"})["sessionId"]
        with pytest.raises(errors.RelayUnsupported, match="Page.setDownloadBehavior"):
            cdp.call("Page.setDownloadBehavior", {"behavior": "deny"}, session_id=session)
        with pytest.raises(errors.CdpError, match="boom") as other:
            cdp.call("Page.navigate", {"url": "https://a/"}, session_id=session)
        assert not isinstance(other.value, errors.RelayUnsupported)
    finally:
        cdp.close()


def test_a_tab_the_user_unshares_detaches_its_session(relay):
    ext = ScriptedExtension(relay, tabs=[{"tabId": 1, "targetId": "T1"}])
    cdp = Connection(relay.browser_ws_url)
    try:
        detached = []
        cdp.events.subscribe("Target.detachedFromTarget", detached.append, None)
        session = cdp.call("Target.attachToTarget", {"targetId": "T1"})["sessionId"]
        ext.send({"type": "detached", "tabId": 1, "reason": "canceled_by_user"})
        _wait(lambda: detached, "detachedFromTarget")
        assert detached[0] == {"sessionId": session, "targetId": "T1"}
        assert cdp.call("Target.getTargets")["targetInfos"] == []
    finally:
        cdp.close()


def test_a_second_devtools_client_is_refused_while_one_is_connected(relay):
    ScriptedExtension(relay)
    first = Connection(relay.browser_ws_url)
    try:
        first.call("Browser.getVersion", timeout=5)
        with pytest.raises(errors.BrowserGone):
            Connection(relay.browser_ws_url).call("Browser.getVersion", timeout=5)
        assert first.call("Browser.getVersion", timeout=5)["protocolVersion"] == "1.3"
    finally:
        first.close()


def test_when_the_devtools_client_leaves_each_shared_tab_is_reset(relay):
    ext = ScriptedExtension(relay, tabs=[{"tabId": 4, "targetId": "T4"}])
    cdp = Connection(relay.browser_ws_url)
    cdp.call("Browser.getVersion", timeout=5)
    cdp.close()
    _wait(lambda: any(r["type"] == "resetTab" for r in ext.requests), "resetTab sent")
    assert [r["tabId"] for r in ext.requests if r["type"] == "resetTab"] == [4]


def test_the_tabs_list_after_the_welcome_corrects_the_hello(relay):
    """A tab shared or unshared between the extension's hello and the relay's welcome."""
    ext = ScriptedExtension(relay, tabs=[{"tabId": 1, "targetId": "T1"}])
    cdp = Connection(relay.browser_ws_url)
    try:
        detached, attached = [], []
        cdp.events.subscribe("Target.detachedFromTarget", detached.append, None)
        cdp.events.subscribe("Target.attachedToTarget", attached.append, None)
        cdp.call("Target.setAutoAttach", {"autoAttach": True, "flatten": True})
        ext.send({"type": "tabs", "tabs": [{"tabId": 2, "targetId": "T2"}]})
        _wait(lambda: detached and len(attached) == 2, "T1 detached and T2 attached")
        assert [t.target_id for t in relay.shared_tabs()] == ["T2"]
        assert [a["targetInfo"]["targetId"] for a in attached] == ["T1", "T2"]
        assert detached[0]["targetId"] == "T1"
    finally:
        cdp.close()


def test_a_taken_relay_port_is_a_config_error_naming_the_key():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(errors.ConfigError, match=r"\$\.relay\.port"):
            RelayServer(TOKEN, port=taken.getsockname()[1])


def test_the_relay_needs_a_token():
    with pytest.raises(errors.ConfigError, match=r"\$\.relay\.token"):
        RelayServer("", port=0)


def test_every_method_answered_by_the_relay_has_its_handler():
    for method in _BROWSER_METHODS:
        assert callable(getattr(DevToolsClient, "_" + method.replace(".", "_"), None)), method


def test_odd_params_from_a_devtools_client_get_an_error_and_the_client_carries_on(relay):
    ScriptedExtension(relay, tabs=[{"tabId": 1, "targetId": "T1"}])
    cdp = Connection(relay.browser_ws_url)
    try:
        for method, params in [
            ("Target.detachFromTarget", {"sessionId": ["a list"]}),
            ("Target.attachToTarget", {"targetId": {"a": "dict"}}),
            ("Target.closeTarget", {"targetId": [1]}),
        ]:
            with pytest.raises(errors.CdpError):
                cdp.call(method, params, timeout=5)
        assert cdp.call("Target.getTargets", timeout=5)["targetInfos"][0]["targetId"] == "T1"
    finally:
        cdp.close()
