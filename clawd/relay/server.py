"""The relay's loopback listener (websockets' threaded server): the extension's websocket at
/extension (Origin of the extension, token in the first message), and a DevTools endpoint
(/json/version, /json/list, /devtools/browser/<secret>) whose page targets are the shared tabs.

websockets (its sync, thread-based server) rather than the stdlib: http.server has no websocket
support, and a hand-made one would need the handshake, fragmentation, ping/pong, close codes and
size limits that websockets has, kept and tested.

Until a connection proves itself (the extension's hello, the DevTools path's secret) it may send
no message over HELLO_MAX_SIZE, and at most MAX_UNPROVEN such connections are open at once."""

from __future__ import annotations

import http
import json
import logging
import secrets
import threading

from websockets.exceptions import ConnectionClosed, ConnectionClosedError
from websockets.sync.server import ServerConnection, serve

from clawd import errors
from clawd import log as clawd_log
from clawd.relay import package
from clawd.relay.devtools import DevToolsClient
from clawd.relay.link import ExtensionLink, SharedTab, check_hello, parse, parse_tab

log = logging.getLogger("clawd.relay")

HELLO_TIMEOUT = 5.0
MAX_MESSAGE = 256 * 2**20  # a full-page screenshot of a long page is tens of MB of base64
# a hello is a token, a version, a user agent and the shared tabs' URLs and titles: a few KiB
HELLO_MAX_SIZE = 64 * 2**10
MAX_UNPROVEN = 8  # the extension and clawd's DevTools client need one each, while they connect
CLOSE_TIMEOUT = 2.0
POLICY_VIOLATION = 1008
TOO_BIG = 1009
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


class RelayServer:
    def __init__(
        self,
        token: str,
        *,
        port: int = 18792,
        max_message: int = MAX_MESSAGE,
        extension_origin: str | None = None,
        hello_timeout: float = HELLO_TIMEOUT,
        hello_max_size: int = HELLO_MAX_SIZE,
        max_unproven: int = MAX_UNPROVEN,
    ):
        if not token:
            raise errors.ConfigError(
                ["$.relay.token: the relay needs a token (or a service token)"]
            )
        self.token = token
        self.origin = extension_origin or package.origin()
        self.hello_timeout = hello_timeout
        self.max_message = max_message
        self.max_unproven = max_unproven
        self.secret = secrets.token_hex(16)  # the DevTools websocket's path, told to token holders
        clawd_log.register_secret(self.secret, token)  # in whatever shape a log line has it
        self._lock = threading.Lock()
        self._tabs: dict[int, SharedTab] = {}
        self._link: ExtensionLink | None = None
        self._client: DevToolsClient | None = None
        self._unproven: set[threading.Thread] = set()  # each connection has a thread of its own
        self._refusing = False
        try:
            self._server = serve(
                self._serve,
                "127.0.0.1",
                port,
                process_request=self._check_request,
                create_connection=self._admitted,
                # the limit until a connection proves itself: websockets fails a frame whose
                # header announces more (1009) before reading its payload; _proven() raises it
                max_size=hello_max_size,
                compression=None,
                close_timeout=CLOSE_TIMEOUT,  # a peer that never ends the close holds a thread
                logger=logging.getLogger("clawd.relay.websockets"),
            )
        except OSError as exc:
            raise errors.ConfigError(
                [f"$.relay.port: cannot listen on 127.0.0.1:{port} ({exc.strerror or exc})"]
            ) from None
        self.port = self._server.socket.getsockname()[1]
        self._thread: threading.Thread | None = None

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> RelayServer:
        self._thread = threading.Thread(
            target=self._server.serve_forever, name="clawd-relay", daemon=True
        )
        self._thread.start()
        log.info("relay listening on 127.0.0.1:%d", self.port)
        return self

    def stop(self) -> None:
        self._server.shutdown()
        with self._lock:
            link, client = self._link, self._client
        if client is not None:
            client.ws.close(1001, "clawd is stopping")
        if link is not None:
            link.close(1001, "clawd is stopping")
        if self._thread is not None:
            self._thread.join(5)

    @property
    def browser_ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/devtools/browser/{self.secret}"

    # -- state, for the runtime, status and doctor ------------------------------------------------
    @property
    def connected(self) -> bool:
        with self._lock:
            return self._link is not None

    def shared_tabs(self) -> list[SharedTab]:
        with self._lock:
            return list(self._tabs.values())

    def tab_by_target(self, target_id) -> SharedTab | None:
        return next((t for t in self.shared_tabs() if t.target_id == target_id), None)

    def tab_by_id(self, tab_id: int) -> SharedTab | None:
        with self._lock:
            return self._tabs.get(tab_id)

    def user_agent(self) -> str:
        with self._lock:
            return self._link.user_agent if self._link else ""

    def status(self) -> dict:
        with self._lock:
            link = self._link
            return {
                "enabled": True,
                "port": self.port,
                "connected": link is not None,
                "extensionVersion": link.version if link else None,
                "sharedTabs": len(self._tabs),
                "clientConnected": self._client is not None,
            }

    def request(self, message: dict, answer) -> None:
        with self._lock:
            link = self._link
        if link is None:
            answer(None, {"code": -32000, "message": "the extension is not connected"})
        else:
            link.request(message, answer)

    # -- the handshake ----------------------------------------------------------------------------
    def _check_request(self, connection, request):
        """Before any websocket is accepted: loopback Host, and the Origin each path allows. A web
        page cannot leave out or forge its Origin, so pages never reach either side."""
        host = (request.headers.get("Host") or "").rsplit(":", 1)[0]
        origin = request.headers.get("Origin")
        path = request.path.split("?", 1)[0]
        if host not in LOOPBACK_HOSTS:
            return self._refuse(connection, f"Host {host!r} is not loopback")
        if path == "/extension":
            if origin != self.origin:
                return self._refuse(connection, f"Origin {origin!r} may not open /extension")
            return None
        if origin is not None:
            return self._refuse(connection, f"Origin {origin!r} may not use the DevTools endpoint")
        if path == f"/devtools/browser/{self.secret}":
            self._proven(connection)  # only token holders are told the secret
            return None
        if path in ("/json/version", "/json/version/", "/json", "/json/list", "/json/list/"):
            return self._json(connection, request, path)
        return connection.respond(http.HTTPStatus.NOT_FOUND, "not found\n")

    def _refuse(self, connection, why: str):
        log.warning("relay: refused a connection: %s", why)
        return connection.respond(http.HTTPStatus.FORBIDDEN, "forbidden\n")

    def _json(self, connection, request, path: str):
        if not self._token_in(request):
            return connection.respond(http.HTTPStatus.UNAUTHORIZED, "the relay token is required\n")
        if path.startswith("/json/version"):
            body = {
                "Browser": "clawd-relay",
                "Protocol-Version": "1.3",
                "User-Agent": self.user_agent(),
                "webSocketDebuggerUrl": self.browser_ws_url,
            }
        else:
            body = [
                {**t.target_info(), "id": t.target_id, "type": "page"} for t in self.shared_tabs()
            ]
        response = connection.respond(http.HTTPStatus.OK, json.dumps(body))
        response.headers["Content-Type"] = "application/json"
        return response

    def _token_in(self, request) -> bool:
        offered = request.headers.get("Authorization", "")
        offered = offered[7:] if offered.startswith("Bearer ") else ""
        return bool(offered) and secrets.compare_digest(offered.encode(), self.token.encode())

    def _serve(self, ws) -> None:
        try:
            if ws.request.path.split("?", 1)[0] == "/extension":
                self._serve_extension(ws)
            else:
                self._serve_client(ws)
        except ConnectionClosedError as exc:
            # not when we closed it ourselves, unless for a message over the size limit
            if exc.sent is None or exc.sent.code == TOO_BIG:
                log.warning("relay: connection closed abnormally: %s", exc)
        except ConnectionClosed:
            pass
        finally:
            self._settled()

    # -- connections that have not proven themselves yet -----------------------------------------
    def _admitted(self, *args, **kwargs) -> ServerConnection:
        """websockets' connection factory, run on the new connection's own thread as soon as it is
        accepted: past max_unproven connections not yet proven, refused (its socket closed)."""
        me = threading.current_thread()
        with self._lock:
            self._unproven = {t for t in self._unproven if t.is_alive()}
            admitted = len(self._unproven) < self.max_unproven
            if admitted:
                self._unproven.add(me)
            warn, self._refusing = not admitted and not self._refusing, not admitted
        if warn:  # once a flood, not once a connection
            log.warning(
                "relay: refusing connections: %d have not proven the token yet",
                self.max_unproven,
            )
        if not admitted:
            raise ConnectionRefusedError("too many relay connections have not proven the token")
        return ServerConnection(*args, **kwargs)

    def _proven(self, ws) -> None:
        """The connection holds the token (or the secret only token holders get): it no longer
        counts against max_unproven, and may send messages of the full size."""
        # websockets reads this as each frame begins (serve()'s max_size is one for all). Over
        # max_message a message is dropped (and logged) but the connection kept; websockets fails
        # the connection only past four times that
        ws.protocol.max_message_size = 4 * self.max_message
        self._settled()

    def _settled(self) -> None:
        with self._lock:
            self._unproven.discard(threading.current_thread())

    # -- the extension ----------------------------------------------------------------------------
    def _serve_extension(self, ws) -> None:
        try:
            first = ws.recv(timeout=self.hello_timeout)
        except TimeoutError:
            log.warning("relay: the extension sent no hello within %g s", self.hello_timeout)
            ws.close(POLICY_VIOLATION, "hello expected")
            return
        hello = check_hello(first, self.token)
        if hello is None:
            log.warning("relay: refused an extension connection: no hello with the right token")
            ws.close(POLICY_VIOLATION, "unauthorized")
            return
        self._proven(ws)  # before the welcome: the extension sends nothing else until then
        link = ExtensionLink(ws, hello)
        self._adopt(link, hello.get("tabs"))
        link.send({"type": "welcome"})
        try:
            for raw in ws:
                if not self._fits(raw, "the extension"):
                    continue
                try:
                    self._on_extension_message(link, raw)
                except (TypeError, ValueError, AttributeError) as exc:  # odd shapes: drop it
                    log.warning("relay: dropped an unusable extension message: %s", exc)
        finally:
            self._drop(link)

    def _fits(self, raw, sender: str) -> bool:
        if len(raw) <= self.max_message:
            return True
        log.warning(
            "relay: dropped a %d-byte message from %s (over %d bytes)",
            len(raw),
            sender,
            self.max_message,
        )
        return False

    def _adopt(self, link: ExtensionLink, tabs) -> None:
        with self._lock:
            old, self._link = self._link, link
            self._tabs = {}
            for item in tabs if isinstance(tabs, list) else []:
                tab = parse_tab(item)
                if tab is not None:
                    self._tabs[tab.tab_id] = tab
            client, self._client = self._client, None
        if old is not None:
            old.close(1000, "another extension connection replaced this one")
        if client is not None:  # it saw the old link's tabs: it starts over
            client.ws.close(1012, "the extension reconnected")
        log.info("relay: extension %s connected, %d tab(s) shared", link.version, len(self._tabs))

    def _drop(self, link: ExtensionLink) -> None:
        with self._lock:
            if self._link is not link:
                link.close()
                return
            self._link, self._tabs = None, {}
            client, self._client = self._client, None
        link.close()
        if client is not None:  # its tabs are gone with the extension: clawd sees a closed browser
            client.ws.close(1011, "the extension disconnected")
        log.info("relay: extension disconnected")

    def _on_extension_message(self, link: ExtensionLink, raw) -> None:
        message = parse(raw)
        if message is None:
            return
        kind = message.get("type")
        if kind is None and "id" in message:
            link.resolve(message)
        elif kind == "event":
            self._on_event(message)
        elif kind in ("attached", "tabUpdated"):
            self._on_tab(kind, parse_tab(message.get("tab")))
        elif kind == "detached":
            self._on_detached(message.get("tabId"))
        elif kind == "tabs":
            self._on_all_tabs(message.get("tabs"))
        elif kind == "tabOpened":
            self._on_tab_opened(message.get("openerTabId"), message.get("url"))
        elif kind == "ping":
            link.send({"type": "pong"})
        else:
            log.warning("relay: dropped an extension message of unknown type %r", kind)

    def _on_tab(self, kind: str, tab: SharedTab | None) -> None:
        if tab is None:
            log.warning("relay: dropped a %s message without a valid tab", kind)
            return
        with self._lock:
            known = tab.tab_id in self._tabs
            if kind == "tabUpdated" and not known:
                return
            self._tabs[tab.tab_id] = tab
            client = self._client
        log.info("relay: tab %d %s (%s)", tab.tab_id, "updated" if known else "shared", tab.url)
        if client is not None:
            (client.tab_changed if known else client.tab_shared)(tab)

    def _on_detached(self, tab_id) -> None:
        with self._lock:
            tab = self._tabs.pop(tab_id, None) if isinstance(tab_id, int) else None
            client = self._client
        if tab is None:
            log.warning("relay: dropped a detach of a tab that is not shared: %r", tab_id)
            return
        log.info("relay: tab %d no longer shared", tab.tab_id)
        if client is not None:
            client.tab_unshared(tab)

    def _on_all_tabs(self, items) -> None:
        """Every tab the extension shares now: what changed since its hello is applied."""
        if not isinstance(items, list):
            log.warning("relay: dropped a tabs message without a list")
            return
        tabs = [tab for tab in map(parse_tab, items) if tab is not None]
        current = {tab.tab_id for tab in tabs}
        for gone in [t.tab_id for t in self.shared_tabs() if t.tab_id not in current]:
            self._on_detached(gone)
        for tab in tabs:
            self._on_tab("attached", tab)

    def _on_tab_opened(self, opener_id, url) -> None:
        """A shared tab opened a window, which stays the user's until they share it: the client
        hears of it (Relay.tabOpened) so the act that opened it can say so."""
        with self._lock:
            known = isinstance(opener_id, int) and not isinstance(opener_id, bool)  # True == 1
            opener = self._tabs.get(opener_id) if known else None
            client = self._client
        if opener is None:
            log.warning("relay: dropped a tabOpened of a tab that is not shared: %r", opener_id)
            return
        if client is not None:
            client.tab_opened(opener, url if isinstance(url, str) else "")

    def _on_event(self, message: dict) -> None:
        tab_id, method = message.get("tabId"), message.get("method")
        params, child = message.get("params"), message.get("sessionId")
        if (
            not isinstance(tab_id, int)
            or not isinstance(method, str)
            or not isinstance(params, dict)
        ):
            log.warning("relay: dropped a malformed event from the extension")
            return
        with self._lock:
            client = self._client if tab_id in self._tabs else None
        if client is not None:
            client.tab_event(tab_id, child if isinstance(child, str) else None, method, params)

    # -- the DevTools client ----------------------------------------------------------------------
    def _serve_client(self, ws) -> None:
        with self._lock:
            refusal = (
                "no extension is connected"
                if self._link is None
                else "the relay serves one DevTools client at a time"
                if self._client is not None
                else None
            )
            client = None if refusal else DevToolsClient(self, ws)
            self._client = client or self._client
        if client is None:
            log.warning("relay: refused a DevTools client: %s", refusal)
            ws.close(1013, refusal)
            return
        log.info("relay: DevTools client connected")
        try:
            for raw in ws:
                if self._fits(raw, "a DevTools client"):
                    client.handle(raw)
        finally:
            self._client_left(client)

    def _client_left(self, client: DevToolsClient) -> None:
        with self._lock:
            if self._client is not client:
                return
            self._client = None
            tabs = list(self._tabs.values())
        # what it switched on (request interception, emulation, scripts) must not outlive it
        for tab in tabs:
            self.request({"type": "resetTab", "tabId": tab.tab_id}, _log_reset(tab))
        log.info("relay: DevTools client left; %d shared tab(s) reset", len(tabs))


def _log_reset(tab: SharedTab):
    def answer(result, error):
        if error is not None:
            log.warning("relay: resetting tab %d failed: %s", tab.tab_id, error.get("message"))

    return answer
