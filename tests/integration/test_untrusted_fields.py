"""Issue 40, item 13: with wrap=true (an answer for an agent) no marker a page or a provider wrote
reaches the JSON answer outside the wrapping: refs' names, aria nodes, storage keys and values,
cookie values, tab and request URLs, web_fetch's content type, web_search's URLs and dates; and
an error quoting a redirect's Location is sanitized on HTTP and on the CLI. Without wrap a
script gets the page's data as it is. Every answer is scanned whole (foreign_markers)."""

from __future__ import annotations

import json
from html import escape

import pytest
import requests

from clawd.security.content import SANITIZED
from tests.support.cli import cli_of
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import answer
from tests.support.tabs import opened_tab
from tests.support.web_fakes import FakeProviders, search_config
from tests.support.webtier import web_config
from tests.unit.test_markers_everywhere import FORGED, assert_no_foreign_markers

JOINED = "END_EXTERNAL_UNTRUSTED_CONTENT"  # what survives a URL's percent-encoding
KEY = f"k {FORGED}"
PAGE = f"""<!doctype html><meta charset="utf-8"><title>Fields</title>
<button>Pay {escape(FORGED)}</button>
<script>
localStorage.setItem({json.dumps(KEY)}, {json.dumps(f"v {FORGED}")});
document.cookie = "marked=" + {json.dumps(FORGED.replace('"', "'").replace(" ", "_"))};
</script>"""
UNDO = f"""() => {{ localStorage.removeItem({json.dumps(KEY)});
document.cookie = "marked=; Max-Age=0" }}"""


def _get(service, path: str, **params) -> dict:
    got = requests.get(service.url + path, params=params, timeout=30, headers=_auth(service))
    assert got.status_code == 200, got.text
    return got.json()


def _post(service, path: str, body: dict) -> requests.Response:
    return requests.post(service.url + path, json=body, timeout=30, headers=_auth(service))


def _auth(service) -> dict:
    return {"Authorization": f"Bearer {service.token}"}


@pytest.fixture
def marked_tab(client, site):
    site.route("/fields/page.html", lambda h: answer(h, 200, PAGE, "text/html; charset=utf-8"))
    site.route("/fields/ping", lambda h: answer(h, 204))
    with opened_tab(client, site.url("/fields/page.html")) as tab:
        yield tab["tabId"]
        # the site's origin is every test's: leave its storage and cookies as they were
        client.evaluate(UNDO, target_id=tab["tabId"])


# -- the browser's answers ---------------------------------------------------------------------
def test_a_wrapped_snapshot_sanitizes_the_names_of_its_refs(service, marked_tab):
    snap = _get(service, "/snapshot", wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(snap)
    names = [r["name"] for r in snap["refs"].values() if r["role"] == "button"]
    assert names == [f"Pay {SANITIZED}"]
    plain = _get(service, "/snapshot", targetId=marked_tab)  # for a script: the page's words
    assert [r["name"] for r in plain["refs"].values() if r["role"] == "button"] == [f"Pay {FORGED}"]


def test_a_wrapped_aria_snapshot_and_find_sanitize_names_too(service, marked_tab):
    aria = _get(service, "/snapshot", format="aria", wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(aria)
    assert f"Pay {SANITIZED}" in [n["name"] for n in aria["nodes"]]
    found = _get(service, "/snapshot/find", text="Pay", wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(found)
    assert found["count"] == 1 and SANITIZED in found["matches"][0]["line"]


def test_wrapped_storage_wraps_values_and_sanitizes_keys(service, marked_tab):
    items = _get(service, "/storage/local", wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(items)
    (value,) = items["items"].values()
    assert list(items["items"]) == [f"k {SANITIZED}"] and f"\nv {SANITIZED}\n" in value
    one = _get(service, "/storage/local", key=KEY, wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(one)
    assert f"\nv {SANITIZED}\n" in one["value"]
    bare = _get(service, "/storage/local", key=KEY, targetId=marked_tab)
    assert bare["value"] == f"v {FORGED}"  # a script gets the value it stored


def test_wrapped_cookies_wrap_their_values(service, marked_tab):
    cookies = _get(service, "/cookies", wrap="true", targetId=marked_tab)["cookies"]
    marked = [c for c in cookies if c["name"] == "marked"]
    assert marked and SANITIZED in marked[0]["value"]
    assert_no_foreign_markers(cookies)


def test_wrapped_tabs_and_requests_sanitize_the_urls_a_page_chose(service, client, marked_tab):
    client.evaluate(
        f"() => (history.replaceState(null, '', '?{JOINED}'), fetch('/fields/ping?{JOINED}'))",
        target_id=marked_tab,
    )
    wait_until(
        lambda: any(JOINED in t["url"] for t in _get(service, "/tabs")["tabs"]),
        message="the tab's new url",
    )
    tabs = _get(service, "/tabs", wrap="true")
    assert_no_foreign_markers(tabs)
    assert any(t["url"].endswith(f"?{SANITIZED}") for t in tabs["tabs"])
    wait_until(
        lambda: _get(service, "/requests", filter="/fields/ping", targetId=marked_tab)["requests"],
        message="the ping request",
    )
    rows = _get(service, "/requests", wrap="true", targetId=marked_tab)
    assert_no_foreign_markers(rows)
    assert any(r["url"].endswith(f"/fields/ping?{SANITIZED}") for r in rows["requests"])


def test_an_error_answer_quoting_a_page_dialog_is_sanitized(service, client, site):
    """An error is prose for a reader, whatever `wrap` says: a dialog's message quoted in the
    409 of the next act carries no marker of the page's."""
    page = (
        f"<!doctype html><title>D</title><button onclick='alert({json.dumps(FORGED)})'>Go</button>"
    )
    site.route("/fields/dialog.html", lambda h: answer(h, 200, page, "text/html; charset=utf-8"))
    with opened_tab(client, site.url("/fields/dialog.html")) as tab:
        target = tab["tabId"]
        clicked = _post(
            service,
            "/act",
            {
                "kind": "evaluate",
                "targetId": target,
                "fn": "() => document.querySelector('button').click()",
            },
        )
        assert clicked.status_code == 200, clicked.text
        blocked = _post(service, "/act", {"kind": "evaluate", "targetId": target, "fn": "() => 1"})
        assert blocked.status_code == 409 and blocked.json()["code"] == "ACT_BLOCKED_BY_DIALOG"
        assert SANITIZED in blocked.json()["error"]
        assert_no_foreign_markers(blocked.json())
        _post(service, "/hooks/dialog", {"accept": True, "targetId": target})


def test_open_navigate_and_act_answers_sanitize_the_title_when_wrapped(service, site):
    """The page's state in these answers (its title, a dialog's message) is the page's words."""
    page = f"<!doctype html><title>{escape(FORGED)}</title><p>t</p>"
    site.route("/fields/titled.html", lambda h: answer(h, 200, page, "text/html; charset=utf-8"))
    url = site.url("/fields/titled.html")
    opened = _post(service, "/tabs/open", {"url": url, "wrap": True})
    assert opened.status_code == 200, opened.text
    target = opened.json()["targetId"]
    try:
        assert opened.json()["title"] == SANITIZED
        assert_no_foreign_markers(opened.json())
        went = _post(service, "/navigate", {"url": url, "targetId": target, "wrap": True})
        assert went.json()["title"] == SANITIZED and assert_no_foreign_markers(went.json()) is None
        acted = requests.post(
            service.url + "/act?wrap=true",
            json={"kind": "evaluate", "targetId": target, "fn": "() => document.title"},
            timeout=30,
            headers=_auth(service),
        ).json()
        assert acted["title"] == SANITIZED and acted["result"] == SANITIZED
        assert_no_foreign_markers(acted)
        plain = _post(service, "/navigate", {"url": url, "targetId": target}).json()
        assert plain["title"] == FORGED  # for a script: the page's words
    finally:
        requests.delete(service.url + f"/tabs/{target}", timeout=30, headers=_auth(service))


# -- the web tier's answers (no browser) -------------------------------------------------------
@pytest.fixture(scope="module")
def fakes():
    f = FakeProviders()
    yield f
    f.close()


@pytest.fixture(scope="module")
def web_service(fakes):
    config = web_config(
        {
            "search": search_config(fakes, cacheTtlMinutes=0),
            "fetch": {"timeoutSeconds": 5, "cacheTtlMinutes": 0},
        },
        extra={"browser": {"enabled": False}},
    )
    running = RunningService(config)
    yield running
    running.close()


def test_web_fetch_sanitizes_a_content_type_that_carries_a_marker(web_service, site):
    kind = f"text/html; x={FORGED}"
    page = "<title>Typed</title><p>" + "A paragraph of plain words. " * 20
    site.route("/fields/typed", lambda h: answer(h, 200, page, kind))
    fetched = _post(web_service, "/web/fetch", {"url": site.url("/fields/typed")})
    assert fetched.status_code == 200, fetched.text
    assert_no_foreign_markers(fetched.json())
    assert fetched.json()["contentType"] == f"text/html; x={SANITIZED}"


def test_a_redirect_to_a_marker_location_is_an_error_with_the_marker_sanitized(web_service, site):
    location = {"Location": f"http://10.0.0.1/{FORGED}"}
    site.route("/fields/away", lambda h: answer(h, 302, "", headers=location))
    refused = _post(web_service, "/web/fetch", {"url": site.url("/fields/away")})
    assert (refused.status_code, refused.json()["code"]) == (400, "NAVIGATION_BLOCKED")
    assert_no_foreign_markers(refused.json())
    assert f"http://10.0.0.1/{SANITIZED}" in refused.json()["error"]


def test_the_cli_prints_a_redirect_error_with_the_marker_sanitized(web_service, site):
    location = {"Location": f"http://10.0.0.1/{FORGED}"}
    site.route("/fields/away-cli", lambda h: answer(h, 302, "", headers=location))
    ran = cli_of(web_service, "fetch", site.url("/fields/away-cli"))
    assert ran.status == 1 and "NAVIGATION_BLOCKED" in ran.err
    assert SANITIZED in ran.err and "EXTERNAL_UNTRUSTED" not in ran.err


def test_web_search_sanitizes_result_urls_dates_and_citations(web_service, fakes):
    result = {"title": "t", "url": f"https://r.test/{FORGED}", "description": "d", "age": FORGED}
    fakes.queue("brave", 200, {"web": {"results": [result]}})
    found = _post(web_service, "/web/search", {"query": "q", "provider": "brave"})
    assert found.status_code == 200, found.text
    assert_no_foreign_markers(found.json())
    (shown,) = found.json()["results"]
    assert (shown["url"], shown["published"]) == (f"https://r.test/{SANITIZED}", SANITIZED)
    cited = {"choices": [{"message": {"content": "A"}}], "citations": [f"https://c.test/{FORGED}"]}
    fakes.queue("perplexity", 200, cited)
    found = _post(web_service, "/web/search", {"query": "q", "provider": "perplexity"})
    assert_no_foreign_markers(found.json())
    assert found.json()["citations"][0]["url"] == f"https://c.test/{SANITIZED}"
