"""render reads a page in a browser context of its own behind a DNS-pinning proxy: Chromium
resolves no name itself (a rebinding name cannot send it to a loopback service), and nothing of
the profile's (cookies) is in the context, nor does one profile's rendered answer serve another.

Chromium here maps rebind.test to 127.0.0.1 itself (--host-resolver-rules), as a rebinding name's
second answer would; clawd's resolver knows only-clawd.test, which Chromium cannot resolve."""

from __future__ import annotations

import itertools
import threading

import pytest

from clawd import errors
from clawd.security.proxy import CONNECTION_THREAD
from tests.support.browser import ENV_FLAGS, free_ports, require_chromium, service_config
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import answer

PUBLIC = "93.184.216.34"  # a global address: every check passes it
REBIND = "rebind.test"
ONLY_CLAWD = "only-clawd.test"
SECRET = "the vault combination is 31-41-59"
COOKIE = "alice-secret-session"


class RebindingDns:
    """rebind.test at its worst: a public address to every check clawd makes, and 127.0.0.1 to
    the lookup a connection is made from: the pinning proxy's, whose connection threads ask. (Were
    Chromium to connect by its own lookup, its resolver rule hands it 127.0.0.1 instead.)"""

    def __init__(self):
        self.asked: list[tuple[str, str]] = []
        self._lock = threading.Lock()

    def __call__(self, host: str) -> list[str]:
        asker = threading.current_thread().name
        with self._lock:
            self.asked.append((host, asker))
        if host == ONLY_CLAWD:
            return ["127.0.0.1"]
        if host == REBIND:
            return ["127.0.0.1"] if asker == CONNECTION_THREAD else [PUBLIC]
        raise OSError(f"{host}: no such name")

    def proxy_asked(self, host: str) -> bool:
        with self._lock:
            return (host, CONNECTION_THREAD) in self.asked


@pytest.fixture(scope="module")
def pinned(tmp_path_factory, site):
    """A service with two managed profiles (clawd, other) whose Chromium maps rebind.test to
    127.0.0.1; yields (running service, started client, resolver)."""
    require_chromium()
    first, second = free_ports(2)
    config = service_config(
        tmp_path_factory.mktemp("render-pinned"),
        extra={
            "browser": {
                "extraArgs": [*ENV_FLAGS, f"--host-resolver-rules=MAP {REBIND} 127.0.0.1"],
                "ssrfPolicy": {"allowedHostnames": ["127.0.0.1", ONLY_CLAWD]},
                "profiles": {
                    "clawd": {"cdpPort": first, "color": "#FF4500"},
                    "other": {"cdpPort": second, "color": "#0066CC"},
                },
            }
        },
    )
    dns = RebindingDns()
    running = RunningService(config, resolver=dns)
    client = running.client()
    client.start()
    yield running, client, dns
    client.close()
    running.close()


def fetch(client, url: str, profile: str | None = None, **body) -> dict:
    return client.request(
        "POST", "/web/fetch", json={"url": url, "wrap": False, **body}, profile=profile
    )


def _secret_site(site, path: str) -> str:
    """A loopback service's page that must never be read through a rebinding name."""
    site.route(path, lambda h: answer(h, 200, f"<title>vault</title><p>{SECRET}</p>"))
    return path


def test_render_never_reaches_a_rebound_loopback_address(pinned, site):
    running, client, dns = pinned
    path = _secret_site(site, "/render-pinned/vault")
    try:
        outcome = fetch(client, f"http://{REBIND}:{site.port}{path}", render="always")
    except errors.ClawdError as exc:
        outcome = exc
    assert SECRET not in str(outcome)
    assert isinstance(outcome, errors.NavigationBlocked), outcome
    assert not any(hit.startswith(path) for hit in site.hits)  # nothing reached the service
    assert dns.proxy_asked(REBIND)  # the name was resolved by the proxy, not by Chromium


def test_render_reaches_a_name_only_clawds_resolver_knows(pinned, site):
    """Chromium cannot resolve only-clawd.test: the page loads only because the render's
    connections go through the proxy, which resolved it."""
    running, client, dns = pinned
    path = _secret_site(site, "/render-pinned/readable")
    result = fetch(client, f"http://{ONLY_CLAWD}:{site.port}{path}", render="always")
    assert SECRET in result["text"]  # the same page as above, read where the policy allows it
    result = fetch(client, f"http://{ONLY_CLAWD}:{site.port}/web/spa.html", render="always")
    assert result["extractor"] == "browser"
    assert "keepers of the bay lit the lamp at dusk" in result["text"]
    assert dns.proxy_asked(ONLY_CLAWD)


def test_the_render_context_and_its_proxy_are_gone_afterwards(pinned, site):
    running, client, dns = pinned
    browser = running.service.runtime("clawd").browser
    fetch(client, site.url("/web/spa.html"), render="always", maxChars=120)
    with pytest.raises(errors.NavigationBlocked):
        fetch(client, f"http://{REBIND}:{site.port}/render-pinned/gone", render="always")
    contexts = browser.root.call("Target.getBrowserContexts")["browserContextIds"]
    assert contexts == []
    wait_until(
        lambda: not any(t.name == "pinning-proxy" for t in threading.enumerate()),
        message="every render's proxy stopped",
    )


def test_a_render_reads_no_cookie_of_the_profile_and_no_profile_gets_anothers(pinned, site):
    running, client, dns = pinned
    visits = itertools.count(1)

    def page(h):
        cookie = h.headers.get("Cookie") or "no cookie"
        answer(h, 200, f"<title>who</title><p>visit {next(visits)}; {cookie}</p><script>1</script>")

    site.route("/render-pinned/who", page)
    url = site.url("/render-pinned/who")
    client.set_cookie({"name": "session", "value": COOKIE, "url": url}, profile="clawd")
    tab = client.open(url, profile="clawd")  # the control: the profile's own tabs send it
    seen = client.evaluate("() => document.body.innerText", target_id=tab["tabId"], profile="clawd")
    assert COOKIE in seen["result"]

    mine = fetch(client, url, profile="clawd", render="always")
    theirs = fetch(client, url, profile="other", render="always")
    assert COOKIE not in theirs["text"]  # the other profile is not handed this one's answer
    assert theirs["cached"] is False and theirs["text"] != mine["text"]
    assert mine["extractor"] == "browser" and "no cookie" in mine["text"]
    assert fetch(client, url, profile="clawd", render="always")["cached"] is True


def test_an_https_render_of_a_rebinding_name_is_refused_at_its_tunnel(pinned, site):
    """https goes through a CONNECT tunnel: the proxy refuses to open it, and the failed load is
    answered as the proxy's verdict, not as a bare tunnel error."""
    running, client, dns = pinned
    with pytest.raises(errors.NavigationBlocked) as caught:
        fetch(client, f"https://{REBIND}:{site.port}/render-pinned/tunnel", render="always")
    assert REBIND in str(caught.value)


def test_even_a_loopback_address_is_reached_through_the_proxy(pinned, site):
    """Chromium sends loopback around a proxy unless told <-loopback>: the site sees the proxy's
    `Connection: close` where Chromium itself would keep the connection alive."""
    running, client, dns = pinned
    seen: list[str] = []

    def page(h):
        seen.append(h.headers.get("Connection", ""))
        answer(h, 200, "<title>via</title><p>read through the proxy</p><script>1</script>")

    site.route("/render-pinned/via", page)
    fetch(client, site.url("/render-pinned/via"), render="always")
    assert seen and all(value.lower() == "close" for value in seen)


def test_a_rendered_page_saves_no_download(pinned, site):
    """A page that starts a download while it is read leaves no file in the profile's downloads
    (the context denies downloads, and its state goes with it)."""
    running, client, dns = pinned
    site.route(
        "/render-pinned/file.bin",
        lambda h: answer(
            h,
            200,
            "file bytes",
            "application/octet-stream",
            {"Content-Disposition": "attachment; filename=render-pinned.bin"},
        ),
    )
    site.route(
        "/render-pinned/downloads",
        lambda h: answer(
            h,
            200,
            "<p>a file</p><a id=a href='file.bin' download>get</a><script>a.click()</script>",
        ),
    )
    result = fetch(client, site.url("/render-pinned/downloads"), render="always")
    assert result["extractor"] == "browser"
    wait_until(
        lambda: any(hit.startswith("/render-pinned/file.bin") for hit in site.hits),
        message="the page asking for its file",
    )
    assert not any(running.service.layout.downloads.rglob("render-pinned*"))
