"""Routes in strict mode, where every request is paused already: a route answers after the policy
judged the request, through the pinning proxy's world, and a rewrite to a refused address is
refused there too."""

from __future__ import annotations

import pytest

from tests.support.browser import service_config
from tests.support.page_eval import evaluate
from tests.support.service import RunningService
from tests.support.site import answer
from tests.support.tabs import opened_tab


@pytest.fixture(scope="module")
def strict(tmp_path_factory):
    config = service_config(
        tmp_path_factory.mktemp("strict-routes"),
        extra={"browser": {"ssrfPolicy": {"allowedHostnames": ["site.test"], "strict": True}}},
    )
    running = RunningService(config, resolver=lambda h: ["127.0.0.1"] if h == "site.test" else [])
    client = running.client()
    client.start()
    yield running, client
    client.close()
    running.close()


def test_strict_routes_mock_and_never_reach_a_refused_address(strict, site):
    running, client = strict
    site.route("/net/api/items.json", lambda h: answer(h, 200, '{"items": ["real"]}'))
    site.route("/net/strict-secret", lambda h: answer(h, 200, '{"items": ["secret"]}'))
    with opened_tab(client, f"http://site.test:{site.port}/net/app.html") as tab:
        show = "show('/net/api/items.json')"
        mock = client.add_route("**/items.json", "fulfill", body='{"items": ["strict"]}')
        assert evaluate(running, client, tab["tabId"], show) == "200: strict"
        client.remove_route(mock["routeId"])
        assert evaluate(running, client, tab["tabId"], show) == "200: real"
        hits = len(site.hits)
        client.add_route(
            "**/items.json",
            "continue",
            rewrite_url=f"http://127.0.0.1:{site.port}/net/strict-secret",
        )
        assert evaluate(running, client, tab["tabId"], show) == "failed: TypeError"
        assert "/net/strict-secret" not in site.hits[hits:]
