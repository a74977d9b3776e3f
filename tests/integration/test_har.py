"""HAR recordings on real Chromium, read back with haralyzer (a HAR reader from PyPI): the entries
and bodies match what the page requested and what the site answered, with redirects and failed
requests; bodies omitted, embedded or attached as asked."""

from __future__ import annotations

import base64
import json
import pathlib

import pytest
from haralyzer import HarParser

from clawd import errors
from tests.support.browser import free_port
from tests.support.cli import cli_of
from tests.support.page_eval import evaluate
from tests.support.site import SITE_ROOT, answer
from tests.support.tabs import opened_tab

DATA = '{"answer": 42, "text": "caf\u00e9"}'
PIXEL = (SITE_ROOT / "debug" / "pixel.png").read_bytes()
CSS = (SITE_ROOT / "net" / "style.css").read_bytes()


@pytest.fixture
def har_site(site):
    site.route("/net/api/data.json", lambda h: answer(h, 200, DATA, "application/json"))
    site.route(
        "/net/api/old.json",
        lambda h: answer(h, 302, "", headers={"Location": "/net/api/data.json"}),
    )
    return site


@pytest.fixture
def blank_tab(client, har_site):
    with opened_tab(client, har_site.url("/net/app.html")) as tab:
        yield tab


def record(client, service, site, tab, content: str, **start) -> dict:
    """Record the har page's load, then a fetch, a redirect and a refused connection."""
    client.har_start(content=content, target_id=tab["tabId"], **start)
    client.navigate(site.url("/net/har.html"), target_id=tab["tabId"])
    for path in ("/net/api/data.json", "/net/api/old.json", refused_url()):
        evaluate(service, client, tab["tabId"], f"load({path!r})")
    stopped = client.har_stop(target_id=tab["tabId"])
    return stopped


def refused_url() -> str:
    """A port nothing listens on (the session's one: the recording and the test agree)."""
    global _REFUSED
    _REFUSED = _REFUSED or f"http://127.0.0.1:{free_port()}/refused"
    return _REFUSED


_REFUSED = ""


def entries_by_url(har: dict) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for entry in har["log"]["entries"]:
        out.setdefault(entry["request"]["url"], []).append(entry)
    return out


def test_har_entries_and_bodies_match_the_pages_requests(client, service, har_site, blank_tab):
    stopped = record(client, service, har_site, blank_tab, "embed")
    path = pathlib.Path(stopped["path"])
    assert path.parent.name == "har" and path.stat().st_mode & 0o777 == 0o600
    parser = HarParser.from_file(str(path))
    assert parser.version == "1.2" and parser.creator["name"] == "clawd"
    page = next(p for p in parser.pages if p.url == har_site.url("/net/har.html"))
    urls = {e.url for e in page.entries}
    assert {
        har_site.url(p) for p in ("/net/har.html", "/net/style.css", "/debug/pixel.png")
    } <= urls
    har = json.loads(path.read_text())
    by_url = entries_by_url(har)
    css = by_url[har_site.url("/net/style.css")][0]
    assert css["response"]["content"]["text"].encode() == CSS
    pixel = by_url[har_site.url("/debug/pixel.png")][0]["response"]["content"]
    assert pixel["encoding"] == "base64" and base64.b64decode(pixel["text"]) == PIXEL
    data = [e for e in by_url[har_site.url("/net/api/data.json")] if e["response"]["status"]]
    assert all(json.loads(e["response"]["content"]["text"]) == json.loads(DATA) for e in data)
    assert len(data) == 2  # fetched once directly, once at the end of the redirect


def test_har_records_redirects_and_failed_requests(client, service, har_site, blank_tab):
    har = json.loads(
        pathlib.Path(record(client, service, har_site, blank_tab, "omit")["path"]).read_text()
    )
    by_url = entries_by_url(har)
    hop = by_url[har_site.url("/net/api/old.json")][0]["response"]
    assert hop["status"] == 302 and hop["redirectURL"] == har_site.url("/net/api/data.json")
    refused = by_url[refused_url()][0]["response"]
    assert refused["status"] == 0 and "ERR_CONNECTION_REFUSED" in refused["_error"]
    for entry in har["log"]["entries"]:
        timings = entry["timings"]
        assert all(timings[k] >= 0 for k in ("send", "wait", "receive"))
        assert "text" not in entry["response"]["content"]
        assert entry["pageref"] in {p["id"] for p in har["log"]["pages"]}
    for entry in HarParser(har).pages[-1].entries:
        assert entry.startTime is not None and entry.status is not None


def test_har_attach_writes_bodies_beside_the_file(client, service, har_site, blank_tab):
    path = pathlib.Path(record(client, service, har_site, blank_tab, "attach")["path"])
    har = json.loads(path.read_text())
    content = entries_by_url(har)[har_site.url("/debug/pixel.png")][0]["response"]["content"]
    assert "text" not in content
    assert (path.parent / content["_file"]).read_bytes() == PIXEL


def test_har_url_filter_keeps_only_matching_requests(client, service, har_site, blank_tab):
    stopped = record(client, service, har_site, blank_tab, "omit", url_filter="**/net/api/*")
    har = json.loads(pathlib.Path(stopped["path"]).read_text())
    assert har["log"]["entries"]
    assert all("/net/api/" in e["request"]["url"] for e in har["log"]["entries"])


def test_har_start_twice_and_stop_without_start_are_409(client, blank_tab):
    tab = blank_tab["tabId"]
    with pytest.raises(errors.HarNotRunning):
        client.har_stop(target_id=tab)
    client.har_start(target_id=tab)
    with pytest.raises(errors.HarRunning):
        client.har_start(target_id=tab)
    with pytest.raises(errors.InvalidPath):
        client.har_stop(path="../escape.har", target_id=tab)
    assert client.har_stop(target_id=tab)["path"].endswith(".har")  # still recording: it stops


def test_har_bad_url_filter_is_a_400_naming_it(client, blank_tab):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.har_start(url_filter="**/***", target_id=blank_tab["tabId"])
    assert "urlFilter" in caught.value.message


def test_cli_har_start_and_stop(service, har_site, blank_tab):
    tab = blank_tab["tabId"]
    status, out, _ = cli_of(service, "har", "start", "--target", tab, "--content", "embed")
    assert status == 0 and "recording: yes" in out
    status, out, _ = cli_of(service, "har", "stop", "--target", tab, "--path", "cli/run.har")
    assert status == 0 and out.strip().endswith("har/cli/run.har")
    assert json.loads(pathlib.Path(out.strip()).read_text())["log"]["version"] == "1.2"


def test_closing_a_recording_tab_drops_its_har(client, har_site):
    tab = client.open(har_site.url("/net/har.html"))
    client.har_start(content="embed", target_id=tab["tabId"])
    client.close_tab(tab["tabId"])
    with pytest.raises(errors.TabNotFound):
        client.har_stop(target_id=tab["tabId"])


def test_har_holds_the_cookies_the_network_stack_sent_and_received(
    client, service, har_site, blank_tab
):
    sent_cookie = []

    def login(h):
        h.send_response(200)
        h.send_header("Content-Length", "0")
        h.send_header("Set-Cookie", "sid=s3cret; Path=/; HttpOnly")
        h.send_header("Set-Cookie", "theme=dark; Path=/; Max-Age=3600")
        h.send_header("Set-Cookie", "stray=1; Domain=example.com; Path=/")  # refused
        h.end_headers()

    def whoami(h):
        sent_cookie.append(h.headers.get("Cookie"))
        answer(h, 200, "you", "text/plain")

    har_site.route("/net/api/login", login)
    har_site.route("/net/api/whoami", whoami)
    tab = blank_tab["tabId"]
    client.har_start(content="omit", target_id=tab)
    client.navigate(har_site.url("/net/har.html"), target_id=tab)
    for path in ("/net/api/login", "/net/api/whoami"):
        evaluate(service, client, tab, f"load({path!r})")
    har = json.loads(pathlib.Path(client.har_stop(target_id=tab)["path"]).read_text())
    assert HarParser(har).pages  # a HAR its readers take
    by_url = entries_by_url(har)
    login_response = by_url[har_site.url("/net/api/login")][0]["response"]
    set_cookies = [h["value"] for h in login_response["headers"] if h["name"] == "Set-Cookie"]
    assert "sid=s3cret; Path=/; HttpOnly" in set_cookies and len(set_cookies) == 3
    cookies = {c["name"]: c for c in login_response["cookies"]}
    assert cookies["sid"]["value"] == "s3cret" and cookies["sid"]["httpOnly"] is True
    assert cookies["theme"]["expires"].endswith("Z") and "comment" not in cookies["theme"]
    assert cookies["stray"]["comment"].startswith("not stored")
    request = by_url[har_site.url("/net/api/whoami")][0]["request"]
    sent = [h["value"] for h in request["headers"] if h["name"].lower() == "cookie"]
    assert sent == sent_cookie and "sid=s3cret" in sent[0]  # what the site really got
    cookie = next(c for c in request["cookies"] if c["name"] == "sid")
    assert cookie["value"] == "s3cret" and cookie["httpOnly"] is True and cookie["path"] == "/"
    assert {"sid", "theme"} <= {c["name"] for c in request["cookies"]}


def test_har_gives_each_redirect_hop_its_own_cookies(client, service, har_site, blank_tab):
    har_site.route(
        "/net/api/hop",
        lambda h: answer(
            h, 302, "", headers={"Location": "/net/api/landed", "Set-Cookie": "hop=1; Path=/"}
        ),
    )
    har_site.route("/net/api/landed", lambda h: answer(h, 200, "here", "text/plain"))
    tab = blank_tab["tabId"]
    evaluate(service, client, tab, "document.cookie = 'hop=; Max-Age=0; Path=/'")
    client.har_start(target_id=tab)
    evaluate(service, client, tab, "load('/net/api/hop')")
    har = json.loads(pathlib.Path(client.har_stop(target_id=tab)["path"]).read_text())
    by_url = entries_by_url(har)
    first = by_url[har_site.url("/net/api/hop")][0]
    landed = by_url[har_site.url("/net/api/landed")][0]
    assert [c["name"] for c in first["response"]["cookies"]] == ["hop"]
    assert "hop" not in {c["name"] for c in first["request"]["cookies"]}
    assert {c["name"]: c["value"] for c in landed["request"]["cookies"]}["hop"] == "1"
    assert landed["response"]["cookies"] == []
