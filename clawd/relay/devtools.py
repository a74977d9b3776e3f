"""The relay as a browser endpoint for one DevTools client (clawd's own Connection): the page
targets are exactly the shared tabs. Target.* and Browser.getVersion are answered here, tab
sessions are mapped to tabs, commands on them go to the extension (chrome.debugger) and events
come back on the sessions that asked for them."""

from __future__ import annotations

import itertools
import json
import logging
import secrets
import threading
from collections.abc import Callable

from websockets.exceptions import ConnectionClosed

from clawd.browser.browser import RELAY_TAB_OPENED
from clawd.relay.link import SharedTab

log = logging.getLogger("clawd.relay")

NOT_FOUND = -32601
SERVER_ERROR = -32000
# what chrome.debugger answers for a method it hides from extensions (measured on Chromium 156)
_REFUSALS = ("wasn't found", "Not allowed", "browser-level commands")
# answered here, each by the method named _<Domain>_<method>
_BROWSER_METHODS = frozenset(
    {
        "Browser.getVersion",
        "Target.setDiscoverTargets",
        "Target.setAutoAttach",
        "Target.getTargets",
        "Target.getTargetInfo",
        "Target.attachToTarget",
        "Target.detachFromTarget",
        "Target.createTarget",
        "Storage.getCookies",
    }
)
_TAB_REQUESTS = {
    "Target.closeTarget": "closeTab",
    "Target.activateTarget": "activateTab",
}


def unsupported(method: str) -> dict:
    return {
        "code": NOT_FOUND,
        "message": f"chrome.debugger cannot run {method} (the extension relay drives only "
        "the tabs you shared, not the browser)",
        "clawdCode": "RELAY_UNSUPPORTED",
    }


def extension_error(method: str, error: dict) -> dict:
    """chrome.debugger reports protocol errors as JSON in its message: unwrap it, and name the
    methods it refuses to extensions RELAY_UNSUPPORTED."""
    message = str(error.get("message", ""))
    try:
        inner = json.loads(message)
    except ValueError:
        inner = None
    if isinstance(inner, dict):
        message, code = str(inner.get("message", message)), inner.get("code", SERVER_ERROR)
    else:
        code = error.get("code", SERVER_ERROR)
    if any(refusal in message for refusal in _REFUSALS):
        return unsupported(method)
    return {"code": code if isinstance(code, int) else SERVER_ERROR, "message": message}


class DevToolsClient:
    """One client connection. `relay` is the RelayServer (its tabs and its extension link)."""

    def __init__(self, relay, ws):
        self.relay = relay
        self.ws = ws
        self._lock = threading.RLock()
        self._sessions: dict[str, int] = {}  # session id -> tabId
        self._children: dict[str, int] = {}  # child session ids (iframes, workers) -> tabId
        self._auto_attach = False
        self._discover = False
        self._serial = itertools.count(1)

    # -- to the client --------------------------------------------------------------------------
    def _send(self, message: dict) -> None:
        try:
            self.ws.send(json.dumps(message))
        except ConnectionClosed:
            pass

    def emit(self, method: str, params: dict, session_id: str | None = None) -> None:
        message = {"method": method, "params": params}
        if session_id:
            message["sessionId"] = session_id
        self._send(message)

    def _reply(self, call_id, session_id, result=None, error=None) -> None:
        message = {"id": call_id}
        if error is not None:
            message["error"] = error
        else:
            message["result"] = result or {}
        if session_id:
            message["sessionId"] = session_id
        self._send(message)

    # -- from the client ------------------------------------------------------------------------
    def handle(self, raw) -> None:
        try:
            message = json.loads(raw)
        except (TypeError, ValueError):
            log.warning("relay: dropped a DevTools command that is not JSON")
            return
        if not isinstance(message, dict) or not isinstance(message.get("id"), int):
            log.warning("relay: dropped a DevTools command without an integer id")
            return
        call_id, method = message["id"], message.get("method")
        params = message.get("params") if isinstance(message.get("params"), dict) else {}
        session_id = message.get("sessionId")
        if not isinstance(method, str):
            self._reply(call_id, session_id, error={"code": -32600, "message": "no method"})
            return
        try:
            if session_id:
                self._on_session_command(call_id, session_id, method, params)
            else:
                self._on_browser_command(call_id, method, params)
        except (TypeError, ValueError, AttributeError) as exc:  # odd params: answer, carry on
            log.warning("relay: %s with unusable params: %s", method, exc)
            error = {"code": -32602, "message": f"invalid params for {method}"}
            self._reply(call_id, None, error=error)

    def _on_session_command(self, call_id, session_id, method, params) -> None:
        with self._lock:
            tab_id = self._sessions.get(session_id)
            child = None
            if tab_id is None and session_id in self._children:
                tab_id, child = self._children[session_id], session_id
        if tab_id is None:
            self._reply(
                call_id,
                session_id,
                error={
                    "code": SERVER_ERROR,
                    "message": f"Session with given id not found: {session_id}",
                },
            )
            return
        self._forward(call_id, session_id, tab_id, child, method, params)

    def _forward(self, call_id, session_id, tab_id, child, method, params) -> None:
        request = {"type": "cdp", "tabId": tab_id, "method": method, "params": params}
        if child:
            request["sessionId"] = child

        def answer(result, error):
            if error is not None:
                error = extension_error(method, error)
            self._reply(call_id, session_id, result, error)

        self.relay.request(request, answer)

    # -- the browser target -----------------------------------------------------------------------
    def _on_browser_command(self, call_id, method: str, params: dict) -> None:
        handler: Callable | None = (
            getattr(self, "_" + method.replace(".", "_")) if method in _BROWSER_METHODS else None
        )
        if handler is not None:
            handler(call_id, params)
        elif method in _TAB_REQUESTS:
            self._tab_request(call_id, _TAB_REQUESTS[method], params)
        else:
            self._reply(call_id, None, error=unsupported(method))

    def _Browser_getVersion(self, call_id, params) -> None:
        agent = self.relay.user_agent()
        product = next(
            (w for w in agent.split() if w.startswith(("Chrome/", "HeadlessChrome/"))), ""
        )
        self._reply(
            call_id,
            None,
            {
                "protocolVersion": "1.3",
                "product": product or "Chrome",
                "revision": "",
                "userAgent": agent,
                "jsVersion": "",
            },
        )

    def _Target_setDiscoverTargets(self, call_id, params) -> None:
        with self._lock:
            self._discover = bool(params.get("discover"))
            if self._discover:
                for tab in self.relay.shared_tabs():
                    self.emit("Target.targetCreated", {"targetInfo": tab.target_info()})
        self._reply(call_id, None)

    def _Target_setAutoAttach(self, call_id, params) -> None:
        # the shared tabs are attached before the reply, as Chromium does with existing targets
        with self._lock:
            self._auto_attach = bool(params.get("autoAttach"))
            if self._auto_attach:
                for tab in self.relay.shared_tabs():
                    if not self._sessions_of(tab.tab_id):
                        self._attach(tab)
        self._reply(call_id, None)

    def _Target_getTargets(self, call_id, params) -> None:
        infos = [tab.target_info() for tab in self.relay.shared_tabs()]
        self._reply(call_id, None, {"targetInfos": infos})

    def _Target_getTargetInfo(self, call_id, params) -> None:
        tab = self.relay.tab_by_target(params.get("targetId"))
        if tab is None:
            self._reply(call_id, None, error=_no_target(params.get("targetId")))
        else:
            self._reply(call_id, None, {"targetInfo": tab.target_info()})

    def _Target_attachToTarget(self, call_id, params) -> None:
        tab = self.relay.tab_by_target(params.get("targetId"))
        if tab is None:
            self._reply(call_id, None, error=_no_target(params.get("targetId")))
            return
        with self._lock:
            session_id = self._attach(tab)
        self._reply(call_id, None, {"sessionId": session_id})

    def _Target_detachFromTarget(self, call_id, params) -> None:
        session_id = params.get("sessionId")
        with self._lock:
            tab_id = self._sessions.pop(session_id, None)
            child_of = self._children.get(session_id)
        if tab_id is not None:
            tab = self.relay.tab_by_id(tab_id)
            self.emit(
                "Target.detachedFromTarget",
                {"sessionId": session_id, "targetId": tab.target_id if tab else ""},
            )
            self._reply(call_id, None)
        elif child_of is not None:  # an iframe or worker of a tab: its own session detaches it
            self._forward(
                call_id, None, child_of, None, "Target.detachFromTarget", {"sessionId": session_id}
            )
        else:
            self._reply(
                call_id, None, error={"code": SERVER_ERROR, "message": "No session with given id"}
            )

    def _Target_createTarget(self, call_id, params) -> None:
        url = params.get("url") or "about:blank"

        def answer(result, error):
            if error is not None:
                self._reply(call_id, None, error=extension_error("Target.createTarget", error))
            else:  # the extension reported the new tab as attached before this answer
                self._reply(call_id, None, {"targetId": (result or {}).get("targetId", "")})

        self.relay.request({"type": "createTab", "url": url}, answer)

    def _Storage_getCookies(self, call_id, params) -> None:
        """The profile's cookie jar answers through any shared tab's session."""
        tabs = self.relay.shared_tabs()
        if not tabs:
            self._reply(call_id, None, error=unsupported("Storage.getCookies without a shared tab"))
            return
        self._forward(call_id, None, tabs[0].tab_id, None, "Storage.getCookies", params)

    def _tab_request(self, call_id, kind: str, params: dict) -> None:
        tab = self.relay.tab_by_target(params.get("targetId"))
        if tab is None:
            self._reply(call_id, None, error=_no_target(params.get("targetId")))
            return

        def answer(result, error):
            if error is not None:
                self._reply(call_id, None, error=extension_error(kind, error))
            else:
                self._reply(call_id, None, {"success": True} if kind == "closeTab" else {})

        self.relay.request({"type": kind, "tabId": tab.tab_id}, answer)

    # -- sessions -------------------------------------------------------------------------------
    def _sessions_of(self, tab_id: int) -> list[str]:
        return [s for s, t in self._sessions.items() if t == tab_id]

    def _attach(self, tab: SharedTab) -> str:
        """(self._lock held.) A new session on a tab, announced to the client."""
        session_id = f"{secrets.token_hex(8).upper()}{next(self._serial)}"
        self._sessions[session_id] = tab.tab_id
        self.emit(
            "Target.attachedToTarget",
            {"sessionId": session_id, "targetInfo": tab.target_info(), "waitingForDebugger": False},
        )
        return session_id

    # -- what the extension reports -----------------------------------------------------------
    def tab_shared(self, tab: SharedTab) -> None:
        with self._lock:
            if self._discover:
                self.emit("Target.targetCreated", {"targetInfo": tab.target_info()})
            if self._auto_attach and not self._sessions_of(tab.tab_id):
                self._attach(tab)

    def tab_unshared(self, tab: SharedTab) -> None:
        with self._lock:
            sessions = self._sessions_of(tab.tab_id)
            for session_id in sessions:
                del self._sessions[session_id]
            for child in [c for c, t in self._children.items() if t == tab.tab_id]:
                del self._children[child]
            for session_id in sessions:
                self.emit(
                    "Target.detachedFromTarget",
                    {"sessionId": session_id, "targetId": tab.target_id},
                )
            if self._discover:
                self.emit("Target.targetDestroyed", {"targetId": tab.target_id})

    def tab_changed(self, tab: SharedTab) -> None:
        if self._discover:
            self.emit("Target.targetInfoChanged", {"targetInfo": tab.target_info()})

    def tab_opened(self, opener: SharedTab, url: str) -> None:
        """A window `opener` opened that is not shared: not a target here, so a relay event of
        its own on the browser session (no CDP event says "a tab you cannot see opened")."""
        self.emit(RELAY_TAB_OPENED, {"openerId": opener.target_id, "url": url})

    def tab_event(self, tab_id: int, child: str | None, method: str, params: dict) -> None:
        with self._lock:
            if method == "Target.attachedToTarget" and isinstance(params.get("sessionId"), str):
                self._children[params["sessionId"]] = tab_id
            elif method == "Target.detachedFromTarget":
                self._children.pop(params.get("sessionId"), None)
            if child is not None:
                targets = [child] if self._children.get(child) == tab_id else []
            else:
                targets = self._sessions_of(tab_id)
        for session_id in targets:
            self.emit(method, params, session_id)


def _no_target(target_id) -> dict:
    return {"code": SERVER_ERROR, "message": f"No shared tab with target id {target_id}"}
