"""Network routes on real Chromium: a mocked API answer the page shows, an aborted request the page
sees fail, and routes that try to reach a blocked address still blocked (the policy is judged
first). Routes are the profile's: a tab opened after the route obeys it too."""

from __future__ import annotations

import pytest

from clawd import errors
from tests.support.cli import cli_of
from tests.support.page_eval import evaluate, wait_until
from tests.support.site import answer
from tests.support.tabs import opened_tab

REAL = '{"items": ["real"]}'


@pytest.fixture
def routed(client, site):
    """The net app page in a fresh tab, its API answering for real; every route removed after."""
    site.route("/net/api/items.json", lambda h: answer(h, 200, REAL, "application/json"))
    with opened_tab(client, site.url("/net/app.html")) as tab:
        try:
            yield tab
        finally:
            for route in client.routes()["routes"]:
                client.remove_route(route["routeId"])


def show(service, client, tab) -> str:
    return evaluate(service, client, tab["tabId"], "show('/net/api/items.json')")


def test_fulfilled_route_is_the_answer_the_page_shows(client, service, site, routed):
    hits = len(site.hits)
    added = client.add_route(
        "**/net/api/items.json",
        "fulfill",
        status=201,
        headers={"Content-Type": "application/json"},
        body='{"items": ["mocked", "answer"]}',
    )
    assert added["routeId"] and added["action"] == "fulfill"
    assert show(service, client, routed) == "201: mocked, answer"
    assert "/net/api/items.json" not in site.hits[hits:]  # the server was never asked
    assert client.routes()["routes"][0]["matched"] == 1


def test_aborted_route_is_a_failure_the_page_sees(client, service, site, routed):
    client.add_route("**/net/api/*", "abort", resource_type="fetch")
    assert show(service, client, routed) == "failed: TypeError"
    rows = client.requests(filter="/net/api/items.json", target_id=routed["tabId"])["requests"]
    assert rows[-1]["ok"] is False


def test_a_route_applies_to_tabs_opened_after_it(client, service, site, routed):
    client.add_route("/net/api/items.json", "fulfill", body='{"items": ["later"]}')
    with opened_tab(client, site.url("/net/app.html")) as later:
        assert show(service, client, later) == "200: later"


def test_route_used_up_after_times_then_the_network_answers(client, service, routed):
    client.add_route("**/items.json", "fulfill", body='{"items": ["once"]}', times=1)
    assert show(service, client, routed) == "200: once"
    assert client.routes()["routes"] == []
    assert show(service, client, routed) == "200: real"


def test_removed_route_answers_no_more(client, service, routed):
    route = client.add_route("**/items.json", "fulfill", body='{"items": ["gone"]}')
    client.remove_route(route["routeId"])
    assert show(service, client, routed) == "200: real"
    with pytest.raises(errors.NetworkRouteNotFound):
        client.remove_route(route["routeId"])


def test_method_filter_leaves_other_methods_alone(client, service, routed):
    client.add_route("**/items.json", "fulfill", method="post", body='{"items": ["posted"]}')
    assert show(service, client, routed) == "200: real"
    posted = evaluate(
        service, client, routed["tabId"], "load('/net/api/items.json', {method: 'POST'})"
    )
    assert posted == '200 {"items": ["posted"]}'


def test_fulfill_body_from_an_uploaded_file(client, service, routed, tmp_path):
    source = tmp_path / "mock-items.json"
    source.write_text('{"items": ["from", "file"]}')
    client.put_upload(source)
    client.add_route("**/items.json", "fulfill", body_path="mock-items.json")
    assert show(service, client, routed) == "200: from, file"


def test_continue_sets_headers_and_rewrites_to_an_allowed_url(client, service, site, routed):
    seen = {}

    def echo(handler):
        seen["probe"] = handler.headers.get("X-Probe")
        answer(handler, 200, '{"items": ["rewritten"]}', "application/json")

    site.route("/net/api/other.json", echo)
    client.add_route(
        "**/items.json",
        "continue",
        headers={"X-Probe": "routed"},
        rewrite_url=site.url("/net/api/other.json"),
    )
    assert show(service, client, routed) == "200: rewritten"
    assert seen["probe"] == "routed"


def test_route_rewriting_to_a_blocked_address_is_still_blocked(client, service, site, routed):
    """localhost is refused by the policy, and is this very machine: the site would see it."""
    site.route("/net/secret", lambda h: answer(h, 200, '{"items": ["secret"]}', "text/plain"))
    blocked = f"http://localhost:{site.port}/net/secret"
    client.add_route("**/items.json", "continue", rewrite_url=blocked)
    hits = len(site.hits)
    assert show(service, client, routed) == "failed: TypeError"
    assert "/net/secret" not in site.hits[hits:]


def test_route_fulfilling_a_blocked_document_never_answers_it(client, service, site, routed):
    """The policy judges the frame's request before any route: the mock is never served."""
    client.add_route("**/net/blocked.html", "fulfill", body="<title>mocked</title>")
    blocked = f"http://localhost:{site.port}/net/blocked.html"
    evaluate(
        service,
        client,
        routed["tabId"],
        "document.body.appendChild(Object.assign(document.createElement('iframe'),"
        f" {{src: {blocked!r}}})) && true",
    )
    wait_until(
        lambda: [
            r
            for r in client.requests(filter="blocked.html", target_id=routed["tabId"])["requests"]
            if r["ok"] is False
        ],
        message="the frame's request to fail",
    )
    assert client.routes()["routes"][0]["matched"] == 0


@pytest.mark.parametrize(
    "fields, named",
    [
        ({"url": " ", "action": "abort"}, "url"),
        ({"url": "**/x", "action": "abort", "body": "no"}, "body"),
        ({"url": "**/x", "action": "fulfill", "resourceType": "Pictures"}, "resourceType"),
        ({"url": "**/x", "action": "fulfill", "headers": ["a"]}, "headers"),
        ({"url": "**/x", "action": "fulfill", "status": 99}, "status"),
        ({"url": "**/x", "action": "continue", "rewriteUrl": "file:///etc/passwd"}, "rewriteUrl"),
        ({"url": "**/x", "action": "fulfill", "bodyPath": "../auth-token"}, "bodyPath"),
        ({"url": "**/x", "action": "teleport"}, "action"),
    ],
)
def test_bad_route_is_a_400_naming_its_field(client, routed, fields, named):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.request("POST", "/route", json=fields)
    assert caught.value.http_status == 400
    assert named in caught.value.message
    assert client.routes()["routes"] == []


def test_cli_route_add_list_remove(client, service, routed):
    status, out, _ = cli_of(
        service,
        "route",
        "add",
        "**/items.json",
        "fulfill",
        "--header",
        "Content-Type: application/json",
        "--body",
        '{"items": ["cli"]}',
        "--times",
        "2",
    )
    assert status == 0 and "routeId: r" in out
    assert show(service, client, routed) == "200: cli"
    status, out, _ = cli_of(service, "route", "list")
    assert status == 0 and "fulfill -> 200  **/items.json  (1 matched, 1 left)" in out
    route_id = client.routes()["routes"][0]["routeId"]
    assert cli_of(service, "route", "remove", route_id).status == 0
    assert cli_of(service, "route", "remove", route_id).status == 4  # not found
    status, _, err = cli_of(service, "route", "add", "**/x", "fulfill", "--header", "nocolon")
    assert status == 2 and "--header" in err


def test_route_fulfilling_a_blocked_subresource_never_answers_it(client, service, site, routed):
    """Outside strict mode too: a request paused for a route is judged before the route acts."""
    client.add_route(
        "**/net/mocked.json",
        "fulfill",
        headers={"Access-Control-Allow-Origin": "*"},
        body='{"items": ["served"]}',
    )
    blocked = f"http://localhost:{site.port}/net/mocked.json"
    assert evaluate(service, client, routed["tabId"], f"load({blocked!r})") == "failed: TypeError"
    assert client.routes()["routes"][0]["matched"] == 0
    allowed = site.url("/net/mocked.json")  # the same route, an address the policy allows
    got = evaluate(service, client, routed["tabId"], f"load({allowed!r})")
    assert got == '200 {"items": ["served"]}'
