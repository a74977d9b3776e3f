"""The pinned, policed fetch under web_fetch: schemes, credentials, the policy on every hop, DNS
pinning, redirects, the byte limit, the overall time limit, TLS. Pages come from the test site
on 127.0.0.1; other names go through a stub resolver; nothing leaves the machine."""

from __future__ import annotations

import dataclasses
import http.server
import pathlib
import ssl
import threading
import time

import pytest

from clawd import errors
from clawd.web.watchdog import Deadline
from tests.support.servers import QuietServer
from tests.support.site import answer
from tests.support.webtier import MappingConnector, StubDns, tier

TLS = pathlib.Path(__file__).resolve().parents[1] / "support" / "tls"


@pytest.fixture
def web():
    return tier()


def hop(path: str, location: str):
    return path, (lambda h: answer(h, 302, "", headers={"Location": location}))


# -- URLs web_fetch refuses before any request ---------------------------------------------------
@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.com/x",
        "javascript:alert(1)",
        "data:text/html,hi",
        "about:blank",
        "ws://127.0.0.1/",
        "example.com",
        "",
        "   ",
    ],
)
def test_non_http_urls_are_refused_with_web_invalid_url(web, url):
    with pytest.raises(errors.WebInvalidUrl):
        web.reader.read(url)


@pytest.mark.parametrize("userinfo", ["user:secret@", "user@", ":pw@"])
def test_urls_with_credentials_are_refused(web, site, userinfo):
    before = len(site.hits)
    with pytest.raises(errors.WebInvalidUrl, match="credentials"):
        web.reader.read(site.url("/web/article.html").replace("http://", f"http://{userinfo}"))
    assert len(site.hits) == before


def test_blocked_first_hop_never_reaches_the_site(site):
    strict = tier(allowed=())
    before = len(site.hits)
    with pytest.raises(errors.NavigationBlocked, match="private, loopback"):
        strict.reader.read(site.url("/web/article.html"))
    assert len(site.hits) == before


def test_a_name_that_resolves_to_loopback_is_blocked(site):
    dns = StubDns({"evil.test": ["127.0.0.1"]})
    web = tier(resolver=dns, allowed=())
    with pytest.raises(errors.NavigationBlocked, match="resolves to a private"):
        web.reader.read(f"http://evil.test:{site.port}/web/article.html")


def test_a_name_that_does_not_resolve_fails_closed_with_502(site):
    web = tier(resolver=StubDns({}))
    with pytest.raises(errors.HostUnresolved) as caught:
        web.reader.read("http://nowhere.test/")
    assert caught.value.http_status == 502


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost/",
        "http://0177.0.0.1/",
        "http://169.254.169.254/",
        "http://[::1]/",
        "http://metadata.google.internal/",
    ],
)
def test_private_and_obfuscated_hosts_are_blocked(url):
    with pytest.raises(errors.NavigationBlocked):
        tier(resolver=StubDns({}), allowed=()).reader.read(url)


# -- DNS pinning ---------------------------------------------------------------------------------
@pytest.fixture
def evil():
    """A loopback server standing for something private: no fetch may ever reach it."""
    hits = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            answer(self, 200, "SECRET", "text/plain")

        def log_message(self, *args):
            pass

    server = QuietServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1], hits
    server.shutdown()
    server.server_close()


def test_dns_pinning_connects_to_the_address_that_was_judged(site, evil):
    """A rebinding resolver answers a public address first and loopback after that: the fetch
    resolves once, judges that answer, and connects there, never to loopback."""
    evil_port, evil_hits = evil

    def public(h):
        answer(h, 200, f"public page; host={h.headers['Host']}", "text/plain")

    site.route("/web/dyn/public-page", public)
    dns = StubDns({"rebind.test": [["93.184.216.34"], ["127.0.0.1"]]})
    connect = MappingConnector({"93.184.216.34": ("127.0.0.1", site.port)})
    web = tier(resolver=dns, connect=connect, allowed=())
    result = web.reader.read(f"http://rebind.test:{evil_port}/web/dyn/public-page", render="never")
    assert result["text"] == f"public page; host=rebind.test:{evil_port}"  # Host keeps the name
    assert dns.calls == ["rebind.test"]
    assert connect.asked == [("93.184.216.34", evil_port)]
    assert evil_hits == []


def test_an_answer_with_a_public_and_a_loopback_address_is_blocked(evil):
    evil_port, evil_hits = evil
    web = tier(resolver=StubDns({"mixed.test": ["93.184.216.34", "127.0.0.1"]}), allowed=())
    with pytest.raises(errors.NavigationBlocked):
        web.reader.read(f"http://mixed.test:{evil_port}/")
    assert evil_hits == []


@pytest.fixture
def tls_site():
    """HTTPS on 127.0.0.2 with the test certificate (valid for localhost and 127.0.0.1 only)."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            answer(self, 200, f"tls ok; host={self.headers['Host']}", "text/plain")

        def log_message(self, *args):
            pass

    server = QuietServer(("127.0.0.2", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(TLS / "cert.pem", TLS / "key.pem")
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_tls_checks_the_name_while_connecting_to_the_pinned_address(tls_site):
    """The certificate names localhost, not 127.0.0.2: the check passes only because it is made
    against the URL's name, and the connection reached 127.0.0.2 only through the pin."""
    dns = StubDns({"localhost": ["127.0.0.2"]})
    web = tier(resolver=dns, verify=str(TLS / "cert.pem"), allowed=("localhost",))
    result = web.reader.read(f"https://localhost:{tls_site}/", render="never")
    assert result["text"] == f"tls ok; host=localhost:{tls_site}"


def test_a_certificate_for_another_name_fails_as_tls(tls_site):
    web = tier(
        resolver=StubDns({"other.test": ["127.0.0.2"]}),
        verify=str(TLS / "cert.pem"),
        allowed=("other.test",),
    )
    with pytest.raises(errors.WebFetchFailed, match="TLS") as caught:
        web.reader.read(f"https://other.test:{tls_site}/")
    assert caught.value.details["stage"] == "tls"


def test_a_refused_connection_fails_as_connect(evil):
    web = tier(
        resolver=StubDns({"down.test": ["93.184.216.34"]}), connect=MappingConnector({}), allowed=()
    )
    with pytest.raises(errors.WebFetchFailed, match="could not connect") as caught:
        web.reader.read("http://down.test/")
    assert caught.value.details["stage"] == "connect" and caught.value.http_status == 502


# -- redirects ------------------------------------------------------------------------------------
def test_redirects_are_followed_to_the_final_url(web, site):
    site.route(*hop("/web/dyn/r/a", "/web/dyn/r/b"))
    site.route(*hop("/web/dyn/r/b", "/web/article.html"))
    result = web.reader.read(site.url("/web/dyn/r/a"))
    assert result["url"] == site.url("/web/article.html")
    assert "Tide Pools" in result["title"]


def test_a_redirect_loop_is_a_clear_502(web, site):
    site.route(*hop("/web/dyn/loop/a", "/web/dyn/loop/b"))
    site.route(*hop("/web/dyn/loop/b", "/web/dyn/loop/a"))
    with pytest.raises(errors.WebFetchFailed, match=r"more than 3 redirects \(a redirect loop\)"):
        web.reader.read(site.url("/web/dyn/loop/a"))


def test_a_blocked_third_redirect_hop_is_named_and_never_requested(site, evil):
    evil_port, evil_hits = evil
    for path, to in (
        ("/web/dyn/h/1", "/web/dyn/h/2"),
        ("/web/dyn/h/2", "/web/dyn/h/3"),
        ("/web/dyn/h/3", f"http://localhost:{evil_port}/admin"),
    ):
        site.route(*hop(path, to))
    with pytest.raises(errors.NavigationBlocked, match="redirect hop 3") as caught:
        tier().reader.read(site.url("/web/dyn/h/1"))
    assert "localhost" in caught.value.message and evil_hits == []


@pytest.mark.parametrize("location", ["file:///etc/passwd", "http://u:p@127.0.0.1/x"])
def test_a_redirect_to_another_scheme_or_with_credentials_is_blocked(web, site, location):
    site.route(*hop("/web/dyn/odd", location))
    with pytest.raises(errors.NavigationBlocked, match="redirect hop 1"):
        web.reader.read(site.url("/web/dyn/odd"))


def test_max_redirects_zero_refuses_the_first_redirect(site):
    site.route(*hop("/web/dyn/once", "/web/article.html"))
    with pytest.raises(errors.WebFetchFailed, match="more than 0 redirects"):
        tier({"fetch": {"maxRedirects": 0}}).reader.read(site.url("/web/dyn/once"))


# -- limits ---------------------------------------------------------------------------------------
def test_a_body_over_the_byte_limit_is_truncated_not_an_error(site):
    site.route("/web/dyn/big.txt", lambda h: answer(h, 200, "x" * 5000, "text/plain"))
    result = tier({"fetch": {"maxResponseBytes": 1024}}).reader.read(site.url("/web/dyn/big.txt"))
    assert result["truncated"] is True and result["text"] == "x" * 1024


def test_decoding_the_body_is_bounded_by_the_fetchs_own_deadline(site):
    """Hostile bytes under a slow codec must not hold the service past web.fetch.timeoutSeconds:
    the body is decoded against the deadline the fetch ran under."""
    body = "\u00e9t\u00e9 ".encode("latin-1") * 1000
    site.route("/web/dyn/latin.txt", lambda h: answer(h, 200, body, "text/plain; charset=latin1"))
    fetched = tier().reader.fetcher.get(site.url("/web/dyn/latin.txt"))
    assert fetched.deadline is not None and fetched.text() == "\u00e9t\u00e9 " * 1000
    late = dataclasses.replace(fetched, deadline=Deadline(0))
    with pytest.raises(errors.WebTimeout):
        late.text()


def test_a_body_of_exactly_the_byte_limit_is_not_truncated(site):
    site.route("/web/dyn/exact.txt", lambda h: answer(h, 200, "y" * 1024, "text/plain"))
    limited = tier({"fetch": {"maxResponseBytes": 1024}})
    result = limited.reader.read(site.url("/web/dyn/exact.txt"))
    assert result["truncated"] is False and len(result["text"]) == 1024


def trickle(stop: threading.Event, head_first: bool):
    def handler(h):
        if not head_first:
            stop.wait(5)  # the headers never come in time
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", "1000")
        h.end_headers()
        try:
            while not stop.is_set():
                h.wfile.write(b"a")
                h.wfile.flush()
                stop.wait(0.05)  # a byte every 50 ms: each read has data, none ends
        except OSError:
            pass

    return handler


@pytest.mark.parametrize("head_first", [True, False])
def test_a_server_that_trickles_past_the_time_limit_gets_web_timeout(site, head_first):
    stop = threading.Event()
    path = f"/web/dyn/trickle-{head_first}"
    site.route(path, trickle(stop, head_first))
    started = time.monotonic()
    try:
        with pytest.raises(errors.WebTimeout) as caught:
            tier({"fetch": {"timeoutSeconds": 1}}).reader.read(site.url(path))
    finally:
        stop.set()
    assert time.monotonic() - started < 3.0
    assert caught.value.http_status == 504


def test_the_user_agent_and_accept_headers_are_sent(site):
    seen = {}

    def echo(h):
        seen.update({"ua": h.headers["User-Agent"], "accept": h.headers["Accept"]})
        answer(h, 200, "ok", "text/plain")

    site.route("/web/dyn/headers", echo)
    tier({"fetch": {"userAgent": "clawd-test/1"}}).reader.read(site.url("/web/dyn/headers"))
    assert seen == {"ua": "clawd-test/1", "accept": "text/markdown, text/html;q=0.9, */*;q=0.1"}


def test_a_disabled_fetch_answers_403(site):
    with pytest.raises(errors.WebFetchDisabled) as caught:
        tier({"fetch": {"enabled": False}}).reader.read(site.url("/web/article.html"))
    assert caught.value.http_status == 403


def test_web_ssrf_policy_keys_override_the_browsers_one_by_one(site):
    closed = tier({"ssrfPolicy": {"allowedHostnames": []}})  # browser allows 127.0.0.1
    with pytest.raises(errors.NavigationBlocked):
        closed.reader.read(site.url("/web/article.html"))
    opened = tier({"ssrfPolicy": {"allowPrivateNetwork": True}}, allowed=())
    assert opened.reader.read(site.url("/web/article.html"))["status"] == 200


def test_the_watchdog_ends_a_short_deadline_that_came_after_a_long_one():
    from clawd.web.watchdog import Deadline
    from tests.support.page_eval import wait_until

    with Deadline(60) as long, Deadline(0.2) as short:
        wait_until(lambda: short.expired, timeout=3, message="the short fetch to expire")
        assert not long.expired
        with pytest.raises(errors.WebTimeout):
            short.check()


def test_a_stalled_body_is_web_timeout_when_its_socket_times_out_before_the_watchdog(
    site, monkeypatch
):
    """Under load the socket's own read timeout can fire before the watchdog thread gets to
    run (seen at load 74: 502 WEB_FETCH_FAILED "timed out"). requests reports a body read that
    times out as a ConnectionError; the deadline, not the watchdog's flag, says what it was."""
    from clawd.web import watchdog

    monkeypatch.setattr(watchdog.WATCHDOG, "add", lambda deadline: None)  # never on time
    stop = threading.Event()

    def stall(h):
        h.send_response(200)
        h.send_header("Content-Type", "text/plain")
        h.send_header("Content-Length", "100")
        h.end_headers()
        stop.wait(5)

    site.route("/web/dyn/stalled-body", stall)
    try:
        with pytest.raises(errors.WebTimeout) as caught:
            tier({"fetch": {"timeoutSeconds": 1}}).reader.read(site.url("/web/dyn/stalled-body"))
    finally:
        stop.set()
    assert caught.value.http_status == 504, caught.value
