"""The extension's side of the relay: proving the token of a new connection, the shared tabs it
reports, and requests to it (a CDP command on a tab, a tab to open, close or focus) whose
answers come back to a callback on the link's reader thread."""

from __future__ import annotations

import hmac
import itertools
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from websockets.exceptions import ConnectionClosed

log = logging.getLogger("clawd.relay")

Answer = Callable[[dict | None, dict | None], None]  # (result, error)


@dataclass
class SharedTab:
    tab_id: int
    target_id: str
    url: str = ""
    title: str = ""

    def target_info(self) -> dict:
        return {
            "targetId": self.target_id,
            "type": "page",
            "title": self.title,
            "url": self.url,
            "attached": True,
            "canAccessOpener": False,
        }


def parse_tab(item) -> SharedTab | None:
    """A tab as the extension reports it, or None when it is not one."""
    if not isinstance(item, dict):
        return None
    tab_id, target_id = item.get("tabId"), item.get("targetId")
    if not isinstance(tab_id, int) or isinstance(tab_id, bool) or not isinstance(target_id, str):
        return None
    return SharedTab(tab_id, target_id, str(item.get("url") or ""), str(item.get("title") or ""))


def parse(raw) -> dict | None:
    """A message from the extension as a dict, or None (logged) when it is not JSON."""
    try:
        message = json.loads(raw)
    except (TypeError, ValueError):
        log.warning(
            "relay: dropped a message from the extension that is not JSON (%d bytes)", len(raw)
        )
        return None
    if not isinstance(message, dict):
        log.warning("relay: dropped a message from the extension that is not an object")
        return None
    return message


def check_hello(raw, token: str) -> dict | None:
    """The hello if it proves the token (compared in constant time), else None."""
    message = parse(raw) if isinstance(raw, str) else None
    if message is None or message.get("type") != "hello":
        return None
    offered = message.get("token")
    if not isinstance(offered, str) or not hmac.compare_digest(
        offered.encode("utf-8"), token.encode("utf-8")
    ):
        return None
    return message


class ExtensionLink:
    """One authenticated extension connection."""

    def __init__(self, ws, hello: dict):
        self.ws = ws
        self.version = str(hello.get("version") or "")
        self.user_agent = str(hello.get("userAgent") or "")
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[int, Answer] = {}
        self.closed = False

    def request(self, message: dict, answer: Answer) -> None:
        """Send a request; answer(result, error) runs once when its reply comes or the link
        goes."""
        with self._lock:
            if self.closed:
                gone = True
            else:
                gone = False
                request_id = next(self._ids)
                self._pending[request_id] = answer
        if gone:
            answer(None, {"code": -32000, "message": "the extension is not connected"})
            return
        try:
            self.ws.send(json.dumps({**message, "id": request_id}))
        except ConnectionClosed:
            self._take(request_id)
            answer(None, {"code": -32000, "message": "the extension disconnected"})

    def send(self, message: dict) -> None:
        try:
            self.ws.send(json.dumps(message))
        except ConnectionClosed:
            pass

    def resolve(self, message: dict) -> None:
        answer = self._take(message.get("id"))
        if answer is None:
            log.warning("relay: dropped a reply for unknown request id %r", message.get("id"))
            return
        error = message.get("error")
        if error is not None:
            answer(None, error if isinstance(error, dict) else {"message": str(error)})
        else:
            result = message.get("result")
            answer(result if isinstance(result, dict) else {}, None)

    def _take(self, request_id) -> Answer | None:
        if not isinstance(request_id, int):
            return None
        with self._lock:
            return self._pending.pop(request_id, None)

    def close(self, code: int = 1000, reason: str = "") -> None:
        with self._lock:
            self.closed = True
            pending, self._pending = self._pending, {}
        for answer in pending.values():
            answer(None, {"code": -32000, "message": "the extension disconnected"})
        try:
            self.ws.close(code, reason)
        except Exception:  # already gone
            pass
