"""Strict mode: every request a page makes is judged (Fetch), and DNS answers are pinned by the
proxy the managed Chromium must use. `site.test` is known only to clawd's resolver: a page from
it loads only if Chromium connects where clawd resolved, never resolving the name itself."""

from __future__ import annotations

import socket
import time

import pytest

from clawd.security.ssrf import system_resolver
from tests.support.browser import service_config
from tests.support.service import RunningService
from tests.support.site import answer


def _resolver(host):
    if host == "site.test":
        return ["127.0.0.1"]
    return system_resolver(host)


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    config = service_config(
        tmp_path_factory.mktemp("strict"),
        extra={
            "browser": {
                "ssrfPolicy": {"allowedHostnames": ["127.0.0.1", "site.test"], "strict": True}
            }
        },
    )
    running = RunningService(config, resolver=_resolver)
    client = running.client()
    client.start()
    yield running, client
    running.close()


def test_pages_load_through_the_pinning_proxy(strict, site):
    running, client = strict
    opened = client.open(f"http://site.test:{site.port}/index.html")
    assert opened["title"] == "clawd test site"
    assert running.service.proxy is not None


def _strict_page(site, tag):
    bad = f"localhost:{site.port}"
    path = f"/strict-page-{tag}"
    site.route(
        path,
        lambda h: answer(
            h,
            200,
            f"""<title>strict</title>
        <img src="http://{bad}/index.html?img-{tag}">
        <iframe src="http://{bad}/index.html?frame-{tag}"></iframe>
        <script>
          fetch("http://{bad}/index.html?fetch-{tag}").catch(() => {{}});
          try {{ new WebSocket("ws://{bad}/index.html?ws-{tag}"); }} catch (e) {{}}
          try {{ new EventSource("http://{bad}/index.html?sse-{tag}"); }} catch (e) {{}}
          setTimeout(() => fetch("/index.html?allowed-{tag}"), 300);
        </script>""",
        ),
    )
    return path


def _wait_hit(site, needle, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not any(needle in h for h in site.hits):
        assert time.monotonic() < deadline, f"{needle} never arrived"
        time.sleep(0.02)


def _leaks(site, tag):
    kinds = ("?img", "?frame", "?fetch", "?ws", "?sse")
    return sorted(h for h in site.hits if any(f"{k}-{tag}" in h for k in kinds))


def test_every_kind_of_request_to_a_blocked_host_is_stopped(strict, site):
    running, client = strict
    client.open(site.url(_strict_page(site, "strict")))
    _wait_hit(site, "?allowed-strict")
    assert _leaks(site, "strict") == []


def test_without_strict_subresources_are_not_policed(client, site):
    """The control: the same page in the default mode does reach the blocked host."""
    client.open(site.url(_strict_page(site, "lax")))
    _wait_hit(site, "?allowed-lax")
    _wait_hit(site, "?img-lax")
    assert "?frame-lax" not in " ".join(site.hits)  # documents are policed in every mode


# A STUN request to a UDP port of our own: ICE gathering sends one unless WebRTC is kept to what
# the proxy carries. Resolves with the gathering done (or after 4 s without it).
_STUN = """async () => {
  const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:127.0.0.1:%d'}]});
  pc.createDataChannel('probe');
  const gathered = new Promise(done => {
    pc.onicegatheringstatechange = () => pc.iceGatheringState === 'complete' && done();
    setTimeout(done, 4000);
  });
  await pc.setLocalDescription(await pc.createOffer());
  await gathered;
  pc.close();
  return true;
}"""


@pytest.fixture
def udp_listener():
    listener = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    listener.bind(("127.0.0.1", 0))
    listener.setblocking(False)
    yield listener
    listener.close()


def _datagrams(listener) -> int:
    got = 0
    while True:
        try:
            listener.recv(2048)
        except BlockingIOError:
            return got
        got += 1


def test_webrtc_sends_no_udp_past_the_proxy_in_strict_mode(strict, udp_listener):
    running, client = strict
    client.open("about:blank")
    port = udp_listener.getsockname()[1]
    assert client.evaluate(_STUN % port, timeout_ms=15000)["result"] is True
    assert _datagrams(udp_listener) == 0


def test_without_strict_webrtc_reaches_a_loopback_udp_port(client, udp_listener):
    """The control: the same page in the default mode does send its STUN request."""
    client.open("about:blank")
    port = udp_listener.getsockname()[1]
    assert client.evaluate(_STUN % port, timeout_ms=15000)["result"] is True
    assert _datagrams(udp_listener) >= 1
