"""clawd.client.Client against a fake service: request shapes, auth, error mapping, media.

FakeService (a real ThreadingHTTPServer on port 0 that records requests and answers canned JSON)
is also used by test_cli.py.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler

import pytest

from clawd import errors
from clawd.client import Client, ServiceUnreachable
from tests.support.cli import isolate_env
from tests.support.servers import QuietServer


@dataclass
class Recorded:
    method: str
    path: str
    query: dict
    body: object
    headers: dict


class FakeService:
    """Answers `(method, path)` with canned JSON (default `{"ok": true}`)
    and records every request."""

    def __init__(self, port: int = 0):
        self.requests: list[Recorded] = []
        self._answers: dict[tuple[str, str], tuple[int, object, float]] = {}
        self._server = QuietServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        # a short poll interval: shutdown() waits for the loop's next look, once per test
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def last(self) -> Recorded:
        return self.requests[-1]

    def answer(
        self, method: str, path: str, body: object = None, status: int = 200, delay: float = 0.0
    ):
        self._answers[(method, path)] = (status, {"ok": True} if body is None else body, delay)

    def reply_for(self, method: str, path: str) -> tuple[int, object, float]:
        return self._answers.get((method, path), (200, {"ok": True}, 0.0))

    def __enter__(self) -> FakeService:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


def _handler_for(service: FakeService):
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            self._handle()

        do_POST = do_DELETE = do_GET

        def _handle(self):
            parts = urllib.parse.urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            service.requests.append(
                Recorded(
                    self.command,
                    parts.path,
                    dict(urllib.parse.parse_qsl(parts.query)),
                    json.loads(raw) if raw else None,
                    dict(self.headers),
                )
            )
            status, body, delay = service.reply_for(self.command, parts.path)
            if delay:
                time.sleep(delay)
            self._send(status, body)

        def _send(self, status: int, body: object) -> None:
            data, kind = (
                (body, "application/octet-stream")
                if isinstance(body, bytes)
                else (json.dumps(body).encode(), "application/json")
            )
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args):
            pass

    return Handler


def closed_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


@pytest.fixture
def fake_service():
    with FakeService() as service:
        yield service


@pytest.fixture
def client(fake_service):
    with Client(fake_service.url, timeout=5) as c:
        yield c


# -- request shapes --------------------------------------------------------------------------------
POST_SHAPES = [
    (
        lambda c: c.navigate("https://example.com", target_id="t2"),
        "/navigate",
        {"url": "https://example.com", "targetId": "t2"},
    ),
    (
        lambda c: c.open("https://example.com", label="docs"),
        "/tabs/open",
        {"url": "https://example.com", "label": "docs"},
    ),
    (lambda c: c.focus("docs"), "/tabs/focus", {"targetId": "docs"}),
    (lambda c: c.tab_action("select", index=2), "/tabs/action", {"action": "select", "index": 2}),
    (
        lambda c: c.create_profile("work", color="#0066CC", cdp_url="http://10.0.0.4:9222"),
        "/profiles/create",
        {"name": "work", "color": "#0066CC", "cdpUrl": "http://10.0.0.4:9222"},
    ),
    (
        lambda c: c.screenshot(target_id="t1", full_page=True, ref="e3"),
        "/screenshot",
        {"targetId": "t1", "fullPage": True, "ref": "e3", "type": "png", "labels": False},
    ),
    (lambda c: c.pdf(), "/pdf", {}),
    (
        lambda c: c.click(
            "e1", double_click=True, modifiers=["Shift"], delay_ms=50, target_id="t1"
        ),
        "/act",
        {
            "kind": "click",
            "ref": "e1",
            "doubleClick": True,
            "modifiers": ["Shift"],
            "delayMs": 50,
            "targetId": "t1",
        },
    ),
    (lambda c: c.click_coords(10, 20.5), "/act", {"kind": "clickCoords", "x": 10, "y": 20.5}),
    (
        lambda c: c.type("e4", "hi", submit=True),
        "/act",
        {"kind": "type", "ref": "e4", "text": "hi", "submit": True},
    ),
    (lambda c: c.press("Control+A"), "/act", {"kind": "press", "key": "Control+A"}),
    (lambda c: c.scroll_into_view("e9"), "/act", {"kind": "scrollIntoView", "ref": "e9"}),
    (lambda c: c.drag("e1", "e2"), "/act", {"kind": "drag", "startRef": "e1", "endRef": "e2"}),
    (
        lambda c: c.select("e5", ("a", "b")),
        "/act",
        {"kind": "select", "ref": "e5", "values": ["a", "b"]},
    ),
    (
        lambda c: c.fill([{"ref": "e4", "type": "textbox", "value": "x"}]),
        "/act",
        {"kind": "fill", "fields": [{"ref": "e4", "type": "textbox", "value": "x"}]},
    ),
    (
        lambda c: c.wait(text_gone="Loading", load_state="networkidle", time_ms=100),
        "/act",
        {"kind": "wait", "textGone": "Loading", "loadState": "networkidle", "timeMs": 100},
    ),
    (
        lambda c: c.evaluate("() => 1", ref="e2"),
        "/act",
        {"kind": "evaluate", "fn": "() => 1", "ref": "e2"},
    ),
    (lambda c: c.resize(800, 600), "/act", {"kind": "resize", "width": 800, "height": 600}),
    (lambda c: c.close_tab(), "/tabs/action", {"action": "close"}),
    (lambda c: c.highlight("e2"), "/highlight", {"ref": "e2"}),
    (
        lambda c: c.file_chooser(["a.txt"], input_ref="e7"),
        "/hooks/file-chooser",
        {"paths": ["a.txt"], "inputRef": "e7"},
    ),
    (
        lambda c: c.dialog(False, prompt_text="no", dialog_id="d1"),
        "/hooks/dialog",
        {"accept": False, "promptText": "no", "dialogId": "d1"},
    ),
    (
        lambda c: c.download("e3", path="report.csv"),
        "/download",
        {"ref": "e3", "path": "report.csv"},
    ),
    (lambda c: c.wait_download(timeout_ms=1000), "/wait/download", {"timeoutMs": 1000}),
    (
        lambda c: c.grant_permissions("https://example.com", ["geolocation"]),
        "/permissions/grant",
        {"origin": "https://example.com", "permissions": ["geolocation"]},
    ),
    (
        lambda c: c.response_body("/api", timeout_ms=500, max_chars=100),
        "/response/body",
        {"url": "/api", "timeoutMs": 500, "maxChars": 100},
    ),
    (lambda c: c.trace_start(screenshots=True), "/trace/start", {"screenshots": True}),
    (lambda c: c.trace_stop(path="t.zip"), "/trace/stop", {"path": "t.zip"}),
    (
        lambda c: c.record_start(fps=5, max_seconds=2.5, max_bytes=100000),
        "/record/start",
        {"fps": 5, "maxSeconds": 2.5, "maxBytes": 100000},
    ),
    (lambda c: c.record_stop(), "/record/stop", {}),
    (
        lambda c: c.set_cookie({"name": "a", "value": "b", "url": "https://x.test"}),
        "/cookies/set",
        {"cookie": {"name": "a", "value": "b", "url": "https://x.test"}},
    ),
    (lambda c: c.clear_cookies(), "/cookies/clear", {}),
    (lambda c: c.set_storage("local", "k", "v"), "/storage/local/set", {"key": "k", "value": "v"}),
    (lambda c: c.clear_storage("session"), "/storage/session/clear", {}),
    (lambda c: c.set_offline(True), "/set/offline", {"offline": True}),
    (lambda c: c.set_headers({"x_team": "qa"}), "/set/headers", {"headers": {"x_team": "qa"}}),
    (
        lambda c: c.set_credentials("u", "p"),
        "/set/credentials",
        {"username": "u", "password": "p", "clear": False},
    ),
    (
        lambda c: c.set_geolocation(1.5, 2.5, accuracy=10),
        "/set/geolocation",
        {"latitude": 1.5, "longitude": 2.5, "accuracy": 10, "clear": False},
    ),
    (
        lambda c: c.set_media(color_scheme="dark", reduced_motion="reduce"),
        "/set/media",
        {"colorScheme": "dark", "reducedMotion": "reduce"},
    ),
    (lambda c: c.set_timezone("Europe/Berlin"), "/set/timezone", {"timezone": "Europe/Berlin"}),
    (lambda c: c.set_locale("de-DE"), "/set/locale", {"locale": "de-DE"}),
    (lambda c: c.set_device("iPhone 13"), "/set/device", {"name": "iPhone 13"}),
    (
        lambda c: c.set_viewport(390, 844, device_scale_factor=3),
        "/set/viewport",
        {"width": 390, "height": 844, "deviceScaleFactor": 3},
    ),
    (lambda c: c.stop(), "/stop", {}),
    (lambda c: c.reset_profile(), "/reset-profile", {}),
]


@pytest.mark.parametrize("call,path,body", POST_SHAPES, ids=[p for _, p, _ in POST_SHAPES])
def test_post_methods_send_camelcase_bodies_without_nones(client, fake_service, call, path, body):
    call(client)
    assert (fake_service.last.method, fake_service.last.path) == ("POST", path)
    assert (fake_service.last.body or {}) == body


GET_SHAPES = [
    (lambda c: c.status(), "/", {}),
    (lambda c: c.tabs(), "/tabs", {}),
    (lambda c: c.profiles(), "/profiles", {}),
    (
        lambda c: c.console(level="error", target_id="t1"),
        "/console",
        {"level": "error", "targetId": "t1"},
    ),
    (lambda c: c.errors(clear=True), "/errors", {"clear": "true"}),
    (lambda c: c.requests(filter="api"), "/requests", {"filter": "api", "clear": "false"}),
    (lambda c: c.cookies(all=True), "/cookies", {"all": "true"}),
    (lambda c: c.storage("local", key="k"), "/storage/local", {"key": "k"}),
    (lambda c: c.find("Sign in", limit=3), "/snapshot/find", {"text": "Sign in", "limit": "3"}),
    (lambda c: c.doctor(), "/doctor", {}),
]


@pytest.mark.parametrize("call,path,query", GET_SHAPES, ids=[p for _, p, _ in GET_SHAPES])
def test_get_methods_send_query_params(client, fake_service, call, path, query):
    call(client)
    assert (fake_service.last.method, fake_service.last.path, fake_service.last.query) == (
        "GET",
        path,
        query,
    )


def test_snapshot_options_become_camelcase_query_with_boolean_strings(client, fake_service):
    client.snapshot(
        target_id="t1", interactive=True, max_chars=500, efficient=True, refs=False, depth=None
    )
    assert fake_service.last.query == {
        "targetId": "t1",
        "interactive": "true",
        "maxChars": "500",
        "mode": "efficient",
        "refs": "false",
    }


def test_start_headless_is_a_query_flag(client, fake_service):
    client.start(headless=True)
    assert (fake_service.last.path, fake_service.last.query, fake_service.last.body) == (
        "/start",
        {"headless": "true"},
        None,
    )


def test_delete_routes_quote_their_path_segment(client, fake_service):
    client.close_tab("t/2")
    assert (fake_service.last.method, fake_service.last.path) == ("DELETE", "/tabs/t%2F2")
    client.delete_profile("work")
    assert (fake_service.last.method, fake_service.last.path) == ("DELETE", "/profiles/work")


def test_profile_is_sent_as_query_and_a_call_overrides_the_client_default(fake_service):
    with Client(fake_service.url, profile="work") as c:
        c.tabs()
        assert fake_service.last.query == {"profile": "work"}
        c.navigate("https://example.com", profile="other")
        assert fake_service.last.query == {"profile": "other"}


def test_answer_is_returned_decoded(client, fake_service):
    fake_service.answer("GET", "/tabs", {"tabs": [{"tabId": "t1", "url": "about:blank"}]})
    assert client.tabs() == {"tabs": [{"tabId": "t1", "url": "about:blank"}]}


# -- auth ------------------------------------------------------------------------------------------
def test_token_is_read_from_clawd_home_auth_token(fake_service, tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "auth-token").write_text("s3cret\n")
    with Client(fake_service.url) as c:
        c.status()
    assert fake_service.last.headers["Authorization"] == "Bearer s3cret"


def test_explicit_token_wins_over_the_file(fake_service, tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "auth-token").write_text("from-file")
    with Client(fake_service.url, token="explicit") as c:
        c.status()
    assert fake_service.last.headers["Authorization"] == "Bearer explicit"


def test_password_is_sent_and_a_stale_token_file_is_not(fake_service, tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "auth-token").write_text("stale")
    with Client(fake_service.url, password="pw") as c:
        c.status()
    assert fake_service.last.headers["X-Clawd-Password"] == "pw"
    assert "Authorization" not in fake_service.last.headers


def test_no_credentials_sends_no_auth_headers(client, fake_service):
    client.status()
    assert "Authorization" not in fake_service.last.headers


# -- errors ----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "status,code,cls",
    [
        (404, "TAB_NOT_FOUND", errors.TabNotFound),
        (409, "REF_STALE", errors.RefStale),
        (400, "NAVIGATION_BLOCKED", errors.NavigationBlocked),
        (401, "UNAUTHORIZED", errors.Unauthorized),
        (403, "ACT_EVALUATE_DISABLED", errors.ActEvaluateDisabled),
        (504, "CDP_TIMEOUT", errors.CdpTimeout),
        (502, "CDP_ERROR", errors.CdpError),
        (500, "INTERNAL", errors.ClawdError),
    ],
)
def test_error_answer_raises_the_class_of_its_code(client, fake_service, status, code, cls):
    fake_service.answer(
        "POST", "/act", {"error": "it went wrong", "code": code, "ref": "e3"}, status=status
    )
    with pytest.raises(cls) as info:
        client.click("e3")
    assert type(info.value) is cls
    assert (info.value.message, info.value.code, info.value.http_status) == (
        "it went wrong",
        code,
        status,
    )
    assert info.value.details == {"ref": "e3"}


def test_unknown_code_maps_by_status_and_keeps_the_code(client, fake_service):
    fake_service.answer(
        "GET", "/tabs", {"error": "new kind of conflict", "code": "SOMETHING_NEW"}, status=409
    )
    with pytest.raises(errors.Conflict) as info:
        client.tabs()
    assert info.value.code == "SOMETHING_NEW"


def test_config_error_answer_keeps_its_problems(client, fake_service):
    fake_service.answer(
        "GET",
        "/",
        {"error": "bad", "code": "CONFIG_INVALID", "problems": ["$.a: wrong"]},
        status=500,
    )
    with pytest.raises(errors.ConfigError) as info:
        client.status()
    assert info.value.problems == ["$.a: wrong"]


def test_non_json_error_answer_still_raises_by_status(client, fake_service):
    fake_service.answer("GET", "/tabs", b"<html>gateway</html>", status=404)
    with pytest.raises(errors.NotFound) as info:
        client.tabs()
    assert info.value.http_status == 404
    assert "gateway" in info.value.message


def test_closed_port_raises_service_unreachable():
    url = f"http://127.0.0.1:{closed_port()}"
    with Client(url) as c, pytest.raises(ServiceUnreachable) as info:
        c.status()
    assert info.value.code == "SERVICE_UNREACHABLE" and info.value.http_status == 503
    assert url in info.value.message


def test_slow_answer_raises_request_timeout(fake_service):
    fake_service.answer("GET", "/", {}, delay=1.0)
    with Client(fake_service.url, timeout=0.2) as c, pytest.raises(errors.RequestTimeout):
        c.status()


def test_long_server_side_waits_extend_the_read_timeout(fake_service):
    fake_service.answer("POST", "/wait/download", {"ok": True}, delay=0.5)
    with Client(fake_service.url, timeout=0.2) as c:
        assert c.wait_download(timeout_ms=1000) == {"ok": True}


# -- media -----------------------------------------------------------------------------------------
def test_fetch_media_streams_the_bytes_to_a_file(client, fake_service, tmp_path):
    fake_service.answer("GET", "/media/shot.png", b"\x89PNG" + b"x" * 200_000)
    out = client.fetch_media("/media/shot.png", tmp_path / "sub" / "page.png")
    assert out == tmp_path / "sub" / "page.png"
    assert out.read_bytes() == b"\x89PNG" + b"x" * 200_000


def test_fetch_media_into_a_directory_keeps_the_media_name(client, fake_service, tmp_path):
    fake_service.answer("GET", "/media/doc.pdf", b"%PDF")
    out = client.fetch_media(f"{fake_service.url}/media/doc.pdf", tmp_path)
    assert out == tmp_path / "doc.pdf" and out.read_bytes() == b"%PDF"


def test_fetch_media_missing_raises_media_not_found(client, fake_service, tmp_path):
    fake_service.answer(
        "GET", "/media/gone.png", {"error": "no such media", "code": "MEDIA_NOT_FOUND"}, status=404
    )
    with pytest.raises(errors.MediaNotFound):
        client.fetch_media("/media/gone.png", tmp_path / "x.png")
    assert not (tmp_path / "x.png").exists()
