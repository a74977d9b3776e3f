"""Serving /observe/<token>/...: the one-time viewer page, the live frames of the profile's active
tab (Page.startScreencast as server-sent events), and for sandbox profiles noVNC's files and
websocket proxied to the container's websockify, which alone talks to its x11vnc (never published).
A tab handed to a person (clawd/page/handoff.py) is the one shown, with its reason, and the page's
POST giveback returns it. The token is the credential here (a browser cannot send clawd's bearer
token); tokens.py decides."""

from __future__ import annotations

import html
import importlib.resources
import json
import logging
import queue
import select
import socket
import time

from clawd import errors
from clawd.page import handoff
from clawd.sandbox import tokens as observe_tokens

log = logging.getLogger("clawd.sandbox")

KEEPALIVE = 5.0
MAX_STREAM = 3600.0
# websockify starts at the container's first live view (image/entrypoint.sh live-view): the
# viewer's first requests come before it listens
NOVNC_WAIT = 15.0
_PASS_HEADERS = ("Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Protocol")
_POSTED = ("giveback", "input")  # the hand-off's controls: the rest answers GET
MAX_INPUT = 4096


def serve(handler, method: str, path: str) -> int:
    """A link GET /sandbox/observe made; its token is the credential, not the bearer token.
    The one-time viewer page, its frames as server-sent events and, for a sandbox profile,
    noVNC's files and websocket. The connection is handed over (server/routing.py): the answer
    is written on `handler` here, and the HTTP status sent is returned."""
    service = handler.server.service
    handler.close_connection = True
    try:
        service.request_guard.check(method, handler.headers)  # Host check: DNS rebinding
        token, rest = _split(path)
        if method != ("POST" if rest in _POSTED else "GET"):
            raise errors.MethodNotAllowed("observe pages answer GET (giveback and input: POST)")
        store = service.observe_tokens
        if rest == "":
            item = store.claim(token)
            return _page(handler, service, item)
        item = store.check(token, _cookie(handler.headers.get("Cookie")))
        if rest == "frames":
            return _frames(handler, service, item)
        if rest == "giveback":
            return _give_back(handler, service, item)
        if rest == "input":
            return _input(handler, service, item)
        if item.mode == "vnc" and rest == "websockify":
            return _websocket(handler, service, item)
        if item.mode == "vnc" and rest.startswith("novnc/"):
            return _novnc_file(handler, service, item, rest[len("novnc/") :])
        raise errors.NotFound("no such observe resource")
    except errors.ClawdError as exc:
        body = html.escape(exc.message).encode()
        _head(handler, exc.http_status, "text/plain; charset=utf-8", len(body))
        handler.wfile.write(body)
        return exc.http_status


def _split(path: str) -> tuple[str, str]:
    parts = path.split("/", 3)  # "", "observe", token, rest
    if len(parts) < 4 or not parts[2]:
        raise errors.ObserveForbidden("this observe link is unknown, expired or used")
    return parts[2], parts[3]


def _cookie(header: str | None) -> str | None:
    for part in (header or "").split(";"):
        name, _, value = part.strip().partition("=")
        if name == observe_tokens.COOKIE:
            return value
    return None


def _head(handler, status: int, ctype: str, length: int | None, extra: dict | None = None) -> None:
    lines = [f"HTTP/1.1 {status} {handler.responses.get(status, ('',))[0]}"]
    headers = {
        "Content-Type": ctype,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Connection": "close",
        **(extra or {}),
    }
    if length is not None:
        headers["Content-Length"] = str(length)
    lines += [f"{k}: {v}" for k, v in headers.items()]
    handler.wfile.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))


# -- the page -----------------------------------------------------------------------------------
def _page(handler, service, item) -> int:
    name = "vnc.html" if item.mode == "vnc" else "screencast.html"
    text = importlib.resources.files("clawd.sandbox").joinpath("observe", name).read_text()
    text = text.replace("__PROFILE__", html.escape(item.profile))
    if item.mode == "vnc":
        runtime = service.runtime(item.profile)
        runtime.ensure()
        config = {"password": runtime.sandbox.vnc_password(), "viewOnly": True}
        text = text.replace("__CONFIG__", json.dumps(config).replace("<", "\\u003c"))
    body = text.encode()
    cookie = (
        f"{observe_tokens.COOKIE}={item.cookie}; Path=/observe/{item.token}/; HttpOnly; "
        f"SameSite=Strict; Max-Age={int(observe_tokens.SESSION)}"
    )
    _head(handler, 200, "text/html; charset=utf-8", len(body), {"Set-Cookie": cookie})
    handler.wfile.write(body)
    return 200


# -- screencast frames --------------------------------------------------------------------------
def _frames(handler, service, item) -> int:
    runtime = service.runtime(item.profile)
    browser = runtime.ensure()
    _head(handler, 200, "text/event-stream", None)
    handler.wfile.flush()
    stream = _Screencast(browser)
    deadline = time.monotonic() + MAX_STREAM
    told = ""
    try:
        while time.monotonic() < deadline and not handler.server.draining.is_set():
            if browser.connection.closed:
                _event(handler, "end", "the browser stopped")
                break
            stream.follow()
            told = _tell_handoff(handler, stream.tab, told)
            try:
                data = stream.frames.get(timeout=KEEPALIVE)
            except queue.Empty:
                handler.wfile.write(b": keepalive\n\n")
                handler.wfile.flush()
                continue
            _event(handler, "frame", data)
    except OSError:
        pass  # the viewer went away
    finally:
        stream.stop()
    return 200


def _tell_handoff(handler, tab, told: str) -> str:
    """A `handoff` event ({tabId, reason, since} or null) when it differs from what was told."""
    held = tab.state.peek(handoff.HANDOFF) if tab is not None else None
    active = held.active() if held is not None else None
    now = json.dumps(active and {"tabId": tab.tab_id, **active})
    if now != told:
        _event(handler, "handoff", now)
    return now


def _give_back(handler, service, item) -> int:
    """The live view's control: the tab the person holds is the agent's again."""
    tab = _held(handler, service, item)
    return _json(handler, {"ok": True, "tabId": tab.tab_id, "changed": handoff.end(tab)})


def _input(handler, service, item) -> int:
    """The person's click or keys, from the live view to the tab they hold (only that tab, only
    while it is theirs)."""
    tab = _held(handler, service, item)
    length = int(handler.headers.get("Content-Length") or 0)
    if not 0 < length <= MAX_INPUT:
        raise errors.InvalidRequest(f"input must be a JSON body of at most {MAX_INPUT} bytes")
    try:
        event = json.loads(handler.rfile.read(length))
    except ValueError:
        raise errors.InvalidRequest("input must be JSON") from None
    handoff.person_input(tab, event)
    return _json(handler, {"ok": True})


def _held(handler, service, item):
    """The tab a person holds in this profile; same-origin callers only (the live view's own
    script), besides its cookie."""
    if handler.headers.get("Sec-Fetch-Site", "same-origin") != "same-origin":
        raise errors.CrossSiteRequest("use the live view itself")
    browser = service.runtime(item.profile).ensure()
    tab = handoff.held_tab(browser.tabs())
    if tab is None:
        raise errors.HandoffNotActive("no tab of this profile is handed to a person")
    return tab


def _json(handler, answer: dict) -> int:
    body = json.dumps(answer).encode()
    _head(handler, 200, "application/json", len(body))
    handler.wfile.write(body)
    return 200


def _event(handler, name: str, data: str) -> None:
    handler.wfile.write(f"event: {name}\ndata: {data}\n\n".encode())
    handler.wfile.flush()


class _Screencast:
    """Page.startScreencast on the browser's active tab, moved along when the agent uses
    another tab; frames are acknowledged at once and only the newest two kept."""

    def __init__(self, browser):
        self.browser = browser
        self.frames: queue.Queue = queue.Queue(maxsize=2)
        self.tab = None
        self._unsubscribe = None

    def follow(self) -> None:
        tabs = self.browser.tabs()
        tab = (
            handoff.held_tab(tabs)
            or self.browser.last_used
            or next((t for t in tabs if t.type == "page"), None)
        )
        if tab is None or tab is self.tab:
            return
        self.stop()
        session = tab.session
        self._unsubscribe = session.on("Page.screencastFrame", lambda p: self._on_frame(session, p))
        session.call(
            "Page.startScreencast",
            {"format": "jpeg", "quality": 70, "maxWidth": 1280, "maxHeight": 900},
        )
        self.tab = tab

    def _on_frame(self, session, params: dict) -> None:
        session.send("Page.screencastFrameAck", {"sessionId": params["sessionId"]})
        try:
            self.frames.put_nowait(params["data"])
        except queue.Full:
            try:
                self.frames.get_nowait()
            except queue.Empty:
                pass
            self.frames.put_nowait(params["data"])

    def stop(self) -> None:
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
        if self.tab is not None:
            self.tab.session.try_call("Page.stopScreencast", timeout=2)
            self.tab = None


# -- noVNC through clawd ------------------------------------------------------------------------
def _upstream(service, item) -> tuple[str, int]:
    """The container's websockify, its live view started (container.py and what it loads come in
    here, at the first live view, not at the service's start)."""
    from clawd.sandbox.container import NOVNC_PORT

    runtime = service.runtime(item.profile)
    sandbox = runtime.sandbox
    if sandbox is None:
        raise errors.NotFound("only sandbox profiles have a VNC screen")
    runtime.ensure()
    if not sandbox.address:
        raise errors.SandboxFailed(f"container {sandbox.name} has no network address")
    sandbox.start_live_view()
    return sandbox.address, NOVNC_PORT


def _novnc_file(handler, service, item, rest: str) -> int:
    if ".." in rest.split("/") or not rest or rest.startswith("/"):
        raise errors.NotFound("no such noVNC file")
    import requests  # only a sandbox's live view needs it: not loaded at the service's start

    address, port = _upstream(service, item)
    url = f"http://{address}:{port}/{rest}"
    try:
        refused = (ConnectionRefusedError, requests.ConnectionError)
        reply = _until_listening(lambda: requests.get(url, timeout=10), refused)
    except requests.RequestException as exc:
        raise errors.SandboxFailed(f"the container's noVNC does not answer: {exc}") from None
    if reply.status_code != 200:
        raise errors.NotFound("no such noVNC file")
    ctype = reply.headers.get("Content-Type", "application/octet-stream")
    if rest.endswith(".js"):
        ctype = "text/javascript"  # module scripts need a JavaScript type
    _head(handler, 200, ctype, len(reply.content))
    handler.wfile.write(reply.content)
    return 200


def _websocket(handler, service, item) -> int:
    """Splice the viewer's websocket to the container's websockify, bytes both ways."""
    if (handler.headers.get("Upgrade") or "").lower() != "websocket":
        raise errors.InvalidRequest("expected a websocket upgrade")
    address, port = _upstream(service, item)
    try:
        upstream = _until_listening(lambda: socket.create_connection((address, port), 10))
    except OSError as exc:
        raise errors.SandboxFailed(f"the container's websockify does not answer: {exc}") from None
    lines = [
        "GET /websockify HTTP/1.1",
        f"Host: {address}:{port}",
        "Upgrade: websocket",
        "Connection: Upgrade",
    ]
    for name in _PASS_HEADERS:
        value = handler.headers.get(name)
        if value:
            lines.append(f"{name}: {value}")
    with upstream:
        upstream.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1"))
        handler.wfile.flush()
        _splice(handler.connection, upstream, handler.server)
    return 101


def _until_listening(connect, refused: tuple = (ConnectionRefusedError,)):
    """connect(), again while the container's websockify refuses it, up to NOVNC_WAIT s."""
    deadline = time.monotonic() + NOVNC_WAIT
    while True:
        try:
            return connect()
        except refused:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.2)


def _splice(a: socket.socket, b: socket.socket, server) -> None:
    a.settimeout(None)
    b.settimeout(None)
    peers = {a: b, b: a}
    deadline = time.monotonic() + MAX_STREAM
    while time.monotonic() < deadline and not server.draining.is_set():
        ready, _, _ = select.select(list(peers), [], [], 1.0)
        for sock in ready:
            try:
                data = sock.recv(65536)
            except OSError:
                return
            if not data:
                return
            try:
                peers[sock].sendall(data)
            except OSError:
                return
