"""The web tier through its surfaces, with no browser at all (browser.enabled: false): the HTTP
routes of a real service (every bad input answers its code; no 5xx but the documented 502/504),
the tool policy on HTTP, the CLI handlers and the agent tools. Until routes.py, cli/parser.py and
the agent tool set carry them, the tests put the routes and parsers in place themselves."""

from __future__ import annotations

import json

import pytest
import requests

from clawd.agent.web_tools import WebFetchTool, WebSearchTool, web_tools
from clawd.security.tools import ToolPolicy
from tests.support.cli import cli_of
from tests.support.service import RunningService
from tests.support.web_fakes import KEYS, FakeProviders, search_config
from tests.support.webtier import StubDns, web_config

MARKER = "<<<EXTERNAL_UNTRUSTED_CONTENT"


@pytest.fixture(scope="module")
def fakes():
    f = FakeProviders()
    yield f
    f.close()


def running(config, resolver=None) -> RunningService:
    service = RunningService(config, resolver=resolver)
    return service


@pytest.fixture(scope="module")
def svc(fakes):
    config = web_config(
        {
            "search": search_config(fakes, cacheTtlMinutes=0),
            "fetch": {"timeoutSeconds": 2, "cacheTtlMinutes": 0},
        },
        extra={"browser": {"enabled": False}},
    )
    service = running(config, StubDns({"public.test": ["93.184.216.34"]}))
    yield service
    service.close()


def post(service: RunningService, path: str, body: dict) -> requests.Response:
    return requests.post(
        service.url + path,
        json=body,
        timeout=30,
        headers={"Authorization": f"Bearer {service.token}"},
    )


# -- HTTP ----------------------------------------------------------------------------------------
def test_fetch_route_wraps_the_text_with_its_metadata_header(svc, site):
    answer = post(svc, "/web/fetch", {"url": site.url("/web/article.html")}).json()
    text = answer["text"]
    assert answer["ok"] is True and text.startswith(MARKER)
    for line in (
        "Source: Web Fetch",
        f"URL: {site.url('/web/article.html')}",
        "Content-Type: text/html",
        "Extract mode: markdown (trafilatura)",
        "Truncated: no",
    ):
        assert f"\n{line}\n" in text
    assert "## What lives in the pools" in text
    assert answer["title"].startswith(MARKER) and "Tide Pools" in answer["title"]


def test_fetch_route_wrap_false_is_the_bare_text_for_scripts(svc, site):
    answer = post(
        svc,
        "/web/fetch",
        {
            "url": site.url("/web/article.html"),
            "wrap": False,
            "extractMode": "text",
            "maxChars": 200,
        },
    ).json()
    assert not answer["text"].startswith(MARKER)
    assert (answer["length"], answer["truncated"], answer["cached"]) == (200, True, False)


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({}, 400, "INVALID_REQUEST"),
        ({"url": 5}, 400, "WEB_INVALID_URL"),
        ({"url": ""}, 400, "WEB_INVALID_URL"),
        ({"url": "ftp://example.com/"}, 400, "WEB_INVALID_URL"),
        ({"url": "http://user:pw@127.0.0.1/"}, 400, "WEB_INVALID_URL"),
        ({"url": "http://localhost/"}, 400, "NAVIGATION_BLOCKED"),
        ({"url": "http://nowhere.test/"}, 502, "HOST_UNRESOLVED"),
        ({"url": "SITE/web/article.html", "maxChars": 5}, 400, "INVALID_REQUEST"),
        ({"url": "SITE/web/article.html", "extractMode": "html"}, 400, "INVALID_REQUEST"),
        ({"url": "SITE/web/article.html", "render": "maybe"}, 400, "INVALID_REQUEST"),
        ({"url": "SITE/web/article.html", "bogus": 1}, 400, "INVALID_REQUEST"),
        ({"url": "SITE/web/article.html", "render": "always"}, 503, "BROWSER_DISABLED"),
        ({"url": "SITE/web/dyn/s-image"}, 415, "WEB_UNSUPPORTED_CONTENT"),
        ({"url": "SITE/web/dyn/s-loop"}, 502, "WEB_FETCH_FAILED"),
        ({"url": "SITE/web/dyn/s-stall"}, 504, "WEB_TIMEOUT"),
    ],
)
def test_fetch_route_bad_input_answers_its_code(svc, site, body, status, code):
    from tests.support.site import answer

    site.route("/web/dyn/s-image", lambda h: answer(h, 200, b"GIF89a" + bytes(64), "image/gif"))
    loop = {"Location": "/web/dyn/s-loop"}
    site.route("/web/dyn/s-loop", lambda h: answer(h, 302, "", headers=loop))
    site.route("/web/dyn/s-stall", _stall)
    if isinstance(body.get("url"), str):
        body = {**body, "url": body["url"].replace("SITE", site.url("").rstrip("/"))}
    response = post(svc, "/web/fetch", body)
    assert (response.status_code, response.json()["code"]) == (status, code), response.text
    assert "Traceback" not in response.text


def _stall(handler):
    import threading

    handler.send_response(200)
    handler.send_header("Content-Type", "text/plain")
    handler.send_header("Content-Length", "100")
    handler.end_headers()
    threading.Event().wait(4)  # longer than the service's 2 s limit


def test_a_single_page_app_without_a_browser_keeps_its_static_text(svc, site):
    answer = post(svc, "/web/fetch", {"url": site.url("/web/spa.html"), "wrap": False}).json()
    assert answer["ok"] is True and answer["extractor"] in ("trafilatura", "fallback")
    assert "Lighthouse" not in answer["text"]


def test_search_route_wraps_what_the_provider_wrote(svc):
    answer = post(svc, "/web/search", {"query": "tides", "provider": "perplexity"}).json()
    assert answer["answer"].startswith(MARKER) and answer["results"][0]["title"].startswith(MARKER)
    assert answer["results"][0]["url"] == "https://tides.example.org/a"
    bare = post(
        svc,
        "/web/search",
        {"query": "tides", "provider": "brave", "wrap": False, "searchLang": "en", "count": "2"},
    ).json()
    assert bare["results"][0]["title"] == "Result 1 for tides" and len(bare["results"]) == 2


@pytest.mark.parametrize(
    "body, status, code",
    [
        ({"query": ""}, 400, "INVALID_REQUEST"),
        ({"query": "q", "count": 0}, 400, "INVALID_REQUEST"),
        ({"query": "q", "count": 50}, 400, "INVALID_REQUEST"),
        ({"query": "q", "count": "many"}, 400, "INVALID_REQUEST"),
        ({"query": "q", "provider": "bing"}, 400, "INVALID_REQUEST"),
        ({"query": "q", "freshness": "soon"}, 400, "INVALID_REQUEST"),
    ],
)
def test_search_route_bad_input_answers_400(svc, body, status, code):
    response = post(svc, "/web/search", body)
    assert (response.status_code, response.json()["code"]) == (status, code)


@pytest.mark.parametrize(
    "status, answer_status, code",
    [
        (401, 502, "WEB_SEARCH_AUTH"),
        (429, 429, "WEB_SEARCH_RATE_LIMITED"),
        (500, 502, "WEB_SEARCH_FAILED"),
    ],
)
def test_search_route_provider_failures(svc, fakes, status, answer_status, code):
    fakes.queue("brave", status, {"message": f"no ({KEYS['brave']})"}, {"Retry-After": "3"})
    response = post(svc, "/web/search", {"query": "q", "provider": "brave"})
    assert (response.status_code, response.json()["code"]) == (answer_status, code)
    assert KEYS["brave"] not in response.text
    if status == 429:
        assert response.json()["retryAfter"] == 3


def test_denied_tools_answer_403_tool_denied_on_http(site):
    config = web_config(
        {},
        extra={
            "browser": {"enabled": False},
            "tools": {"allow": ["web_*"], "deny": ["web_search"]},
        },
    )
    service = running(config)
    try:
        assert post(service, "/web/search", {"query": "q"}).json()["code"] == "TOOL_DENIED"
        assert post(service, "/web/search", {"query": "q"}).status_code == 403
        article = {"url": site.url("/web/article.html")}
        assert post(service, "/web/fetch", article).status_code == 200
    finally:
        service.close()


def test_the_tier_and_the_tool_policy_follow_a_config_change(svc):
    import dataclasses

    before = svc.service.web()
    assert svc.service.web() is before
    old = svc.service.config
    denied = dataclasses.replace(old.tools, deny=("web_fetch",))
    svc.service.config = dataclasses.replace(old, tools=denied)
    try:
        assert svc.service.web() is not before
        assert not svc.service.tool_policy().allowed("web_fetch")
        assert (
            post(svc, "/web/fetch", {"url": "http://example.test/"}).json()["code"] == "TOOL_DENIED"
        )
    finally:
        svc.service.config = old


# -- CLI ------------------------------------------------------------------------------------------
def cli(svc, *argv: str) -> str:
    """`clawd-browser` itself, in-process, against the service."""
    ran = cli_of(svc, *argv)
    assert ran.status == 0
    return ran.out


def test_cli_fetch_prints_title_url_and_the_wrapped_text(svc, site):
    printed = cli(svc, "fetch", site.url("/web/article.html"), "--text")
    title, url, blank, first = printed.splitlines()[:4]
    assert (title, url, blank) == (
        "Tide Pools of the Northern Coast | Field Notes",
        site.url("/web/article.html"),
        "",
    )
    assert first.startswith(MARKER) and "Extract mode: text" in printed


def test_cli_fetch_no_wrap_and_json(svc, site):
    assert MARKER not in cli(svc, "fetch", site.url("/web/article.html"), "--no-wrap")
    printed = cli(svc, "fetch", site.url("/web/article.html"), "--json", "--max-chars", "300")
    answer = json.loads(printed)
    assert answer["text"].startswith(MARKER) and answer["truncated"] is True


def test_cli_search_prints_numbered_results(svc):
    printed = cli(svc, "search", "tides", "--provider", "brave", "--count", "2", "--no-wrap")
    assert printed.splitlines()[:2] == ["1. Result 1 for tides", "   https://example.com/1"]
    assert "2. Result 2 for tides" in printed and "3." not in printed


# -- agent tools ----------------------------------------------------------------------------------
def test_web_fetch_tool_answers_wrapped_text_with_the_header(svc, site):
    args = {"url": site.url("/web/article.html"), "extractMode": "text"}
    result = WebFetchTool(svc.client()).run(args)
    assert not result.is_error and result.text.startswith(MARKER)
    assert "Source: Web Fetch" in result.text and "Extract mode: text (trafilatura)" in result.text


def test_web_search_tool_answers_results_as_text(svc):
    result = WebSearchTool(svc.client()).run({"query": "tides", "provider": "gemini", "count": 1})
    assert not result.is_error and "Source: Web Search\nProvider: gemini" in result.text
    assert "Gemini: tides at dawn." in result.text and "1. tides.org" in result.text


@pytest.mark.parametrize(
    "tool, args, code",
    [
        (WebFetchTool, {}, "INVALID_REQUEST"),
        (WebFetchTool, {"url": "https://x.test/", "maxChars": 10}, "INVALID_REQUEST"),
        (WebFetchTool, {"url": "gopher://x/"}, "WEB_INVALID_URL"),
        (WebSearchTool, {"query": "q", "count": 50}, "INVALID_REQUEST"),
        (WebSearchTool, {"query": "q", "extra": 1}, "INVALID_REQUEST"),
    ],
)
def test_web_tools_answer_errors_as_text_with_their_code(svc, tool, args, code):
    result = tool(svc.client()).run(args)
    assert result.is_error and result.code == code and f"error {code}" in result.text


def test_the_agent_tool_set_lists_only_allowed_web_tools(svc):
    assert [t.name for t in web_tools(svc.client())] == ["web_search", "web_fetch"]
    no_search = ToolPolicy((), ("web_search",))
    assert [t.name for t in web_tools(svc.client(), no_search)] == ["web_fetch"]
    assert web_tools(svc.client(), ToolPolicy(("group:browser",), ())) == []
    assert WebFetchTool.schema["required"] == ["url"]
    assert WebSearchTool.schema["required"] == ["query"]


# -- the Python client ----------------------------------------------------------------------------
def test_the_client_has_web_fetch_and_web_search(svc, site):
    from clawd.client import Client

    with Client(svc.url, token=svc.token) as client:
        fetched = client.web_fetch(site.url("/web/article.html"), extract_mode="text", wrap=False)
        found = client.web_search("tides", provider="brave", count=1, wrap=False)
    assert fetched["extractor"] == "trafilatura" and "##" not in fetched["text"]
    assert [r["url"] for r in found["results"]] == ["https://example.com/1"]
