"""web_search against loopback fakes of every provider (tests/support/web_fakes.py): the exact
request shapes (the fakes check them), the answers in clawd's shape, auto-detection, ignored
options, the cache, bad input and every provider failure, and keys kept out of every message."""

from __future__ import annotations

import logging

import pytest

from clawd import errors
from clawd.config.loader import config_from_data, config_to_dict
from clawd.config.model import SearchProviderConfig
from clawd.web.search import WebSearch, perplexity
from tests.support.web_fakes import KEYS, FakeProviders, search_config


@pytest.fixture(scope="module")
def fakes():
    f = FakeProviders()
    yield f
    f.close()


def searcher(fakes, env=None, **search) -> WebSearch:
    web = {"search": search_config(fakes, cacheTtlMinutes=0, **search)}
    config = config_from_data({"web": web}, env={})
    return WebSearch(config.web.search, env=env or {})


def only(fakes, *names: str, **search) -> WebSearch:
    """A search where only `names` have keys (the others' keys removed)."""
    config = search_config(fakes, cacheTtlMinutes=0, **search)
    for name in ("brave", "perplexity", "grok", "gemini", "kimi"):
        if name not in names:
            config[name] = {"baseUrl": fakes.base(name)}
    return WebSearch(config_from_data({"web": {"search": config}}, env={}).web.search, env={})


# -- every provider, as documented -------------------------------------------------------------
def test_brave_sends_its_options_and_answers_results(fakes):
    answer = searcher(fakes).search(
        "tide pools",
        provider="brave",
        count=3,
        country="DE",
        search_lang="de",
        ui_lang="de-DE",
        freshness="pw",
    )
    sent = fakes.seen("brave")[-1].query
    assert sent == {
        "q": "tide pools",
        "count": "3",
        "country": "DE",
        "search_lang": "de",
        "ui_lang": "de-DE",
        "freshness": "pw",
    }
    assert answer["provider"] == "brave" and "ignored" not in answer and "answer" not in answer
    assert answer["results"][0] == {
        "title": "Result 1 for tide pools",
        "url": "https://example.com/1",
        "snippet": "Snippet 1",
        "published": "2 days ago",
    }
    assert len(answer["results"]) == 3 and answer["cached"] is False


def test_perplexity_answers_with_citations_and_lists_options_it_ignores(fakes):
    answer = searcher(fakes).search("tides", provider="perplexity", country="DE", freshness="pd")
    body = fakes.seen("perplexity")[-1].body
    assert body == {"model": "sonar-pro", "messages": [{"role": "user", "content": "tides"}]}
    assert answer["answer"] == "Sonar says: tides [1]."
    assert answer["citations"] == [
        {"url": "https://tides.example.org/a"},
        {"url": "https://tides.example.org/b"},
    ]
    assert answer["results"] == [
        {
            "title": "Tide tables",
            "url": "https://tides.example.org/a",
            "snippet": "Tables for the year",
            "published": "2025-06-01",
        }
    ]
    assert answer["ignored"] == ["country", "freshness"]


def test_grok_uses_the_responses_api_and_strips_inline_citations(fakes):
    answer = searcher(fakes).search("tides", provider="grok")
    body = fakes.seen("grok")[-1].body
    assert body["model"] == "grok-4-1-fast"
    assert body["input"] == [{"role": "user", "content": "tides"}]
    assert answer["answer"] == "Low tide is at dawn. Go early."
    assert [c["url"] for c in answer["citations"]] == [
        "https://tides.example.org/x",
        "https://tides.example.org/y",
    ]
    assert answer["citations"][0]["title"] == "Tides"


def test_grok_keeps_inline_citations_when_asked(fakes):
    config = search_config(fakes, cacheTtlMinutes=0)
    config["grok"]["inlineCitations"] = True
    search = WebSearch(config_from_data({"web": {"search": config}}, env={}).web.search, env={})
    answer = search.search("tides", provider="grok")["answer"]
    assert "[[1]](https://tides.example.org/x)" in answer


def test_gemini_grounds_with_google_search(fakes):
    answer = searcher(fakes).search("tides", provider="gemini", search_lang="en")
    seen = fakes.seen("gemini")[-1]
    assert seen.path == "/models/gemini-2.5-flash:generateContent"
    assert seen.body == {
        "contents": [{"parts": [{"text": "tides"}]}],
        "tools": [{"google_search": {}}],
    }
    assert answer["answer"] == "Gemini: tides at dawn."
    assert answer["citations"][0] == {
        "url": "https://vertex.example/redirect/1",
        "title": "tides.org",
    }
    assert answer["ignored"] == ["search_lang"]


def test_kimi_runs_its_web_search_tool_loop(fakes):
    before = len(fakes.seen("kimi"))
    answer = searcher(fakes).search("tides", provider="kimi")
    assert len(fakes.seen("kimi")) - before == 2
    assert answer["answer"] == "Kimi: see https://tides.example.org/k for tables."
    assert answer["citations"] == [{"url": "https://tides.example.org/k"}]


def test_kimi_that_never_stops_searching_fails_after_its_rounds(fakes):
    calls = {
        "finish_reason": "tool_calls",
        "message": {
            "role": "assistant",
            "tool_calls": [{"id": "c", "function": {"name": "$web_search", "arguments": "{}"}}],
        },
    }
    for _ in range(4):
        fakes.queue("kimi", 200, {"choices": [calls]})
    with pytest.raises(errors.WebSearchFailed, match="after 3 rounds"):
        searcher(fakes).search("tides", provider="kimi")


# -- which provider ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "keys, expected",
    [
        (("brave", "gemini", "kimi", "perplexity", "grok"), "brave"),
        (("gemini", "kimi", "perplexity", "grok"), "gemini"),
        (("kimi", "perplexity", "grok"), "kimi"),
        (("perplexity", "grok"), "perplexity"),
        (("grok",), "grok"),
    ],
)
def test_auto_detection_follows_brave_gemini_kimi_perplexity_grok(fakes, keys, expected):
    assert only(fakes, *keys).search("tides")["provider"] == expected


def test_keys_come_from_the_environment_too(fakes):
    config = {
        name: {"baseUrl": fakes.base(name)}
        for name in ("brave", "gemini", "kimi", "grok", "perplexity")
    }
    search = WebSearch(
        config_from_data({"web": {"search": config}}, env={}).web.search,
        env={"KIMI_API_KEY": KEYS["kimi"], "XAI_API_KEY": KEYS["grok"]},
    )
    assert search.configured() == ["kimi", "grok"]
    assert search.search("tides")["provider"] == "kimi"


def test_no_key_anywhere_is_a_400_naming_the_variables():
    search = WebSearch(config_from_data({}, env={}).web.search, env={})
    with pytest.raises(errors.WebSearchNotConfigured) as caught:
        search.search("tides")
    assert caught.value.http_status == 400
    for variable in (
        "BRAVE_API_KEY",
        "GEMINI_API_KEY",
        "KIMI_API_KEY",
        "PERPLEXITY_API_KEY",
        "OPENROUTER_API_KEY",
        "XAI_API_KEY",
    ):
        assert variable in caught.value.message


def test_a_named_provider_without_a_key_is_not_configured(fakes):
    with pytest.raises(errors.WebSearchNotConfigured, match="XAI_API_KEY"):
        only(fakes, "brave").search("tides", provider="grok")


@pytest.mark.parametrize(
    "key, variable, base, model",
    [
        ("sk-or-v1-abc", None, "https://openrouter.ai/api/v1", "perplexity/sonar-pro"),
        ("pplx-abc", None, "https://api.perplexity.ai", "sonar-pro"),
        (None, "OPENROUTER_API_KEY", "https://openrouter.ai/api/v1", "perplexity/sonar-pro"),
        (None, "PERPLEXITY_API_KEY", "https://api.perplexity.ai", "sonar-pro"),
    ],
)
def test_perplexity_goes_through_openrouter_for_an_openrouter_key(key, variable, base, model):
    env = {variable: "k-from-env"} if variable else {}
    found = perplexity.endpoint(SearchProviderConfig(api_key=key), env)
    assert (found.base_url, found.model) == (base, model)


# -- bad input ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"query": ""}, "query must be a non-empty string"),
        ({"query": "   "}, "query must be a non-empty string"),
        ({"query": "q", "count": 0}, "count must be"),
        ({"query": "q", "count": 50}, "count must be"),
        ({"query": "q", "provider": "bing"}, "unknown search provider 'bing'"),
        ({"query": "q", "freshness": "yesterday"}, "freshness must be"),
        ({"query": "q", "country": "Germany"}, "country must be"),
        ({"query": "x" * 2001}, "longer than"),
    ],
)
def test_bad_input_is_a_400_before_any_request(fakes, kwargs, message):
    before = len(fakes.requests)
    with pytest.raises(errors.InvalidRequest, match=message) as caught:
        searcher(fakes).search(kwargs.pop("query"), **kwargs)
    assert caught.value.http_status == 400 and len(fakes.requests) == before


# -- provider failures ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "status, cls, http_status",
    [
        (401, errors.WebSearchAuth, 502),
        (403, errors.WebSearchAuth, 502),
        (500, errors.WebSearchFailed, 502),
        (503, errors.WebSearchFailed, 502),
    ],
)
def test_provider_errors_map_to_their_codes_without_the_key(fakes, status, cls, http_status):
    fakes.queue("brave", status, {"error": {"message": f"bad key {KEYS['brave']} here"}})
    with pytest.raises(cls) as caught:
        searcher(fakes).search("tides", provider="brave")
    assert caught.value.http_status == http_status and caught.value.details["status"] == status
    assert "bad key *** here" in caught.value.message
    assert KEYS["brave"] not in str(caught.value.to_dict())


def test_a_429_is_rate_limited_with_retry_after(fakes):
    fakes.queue("gemini", 429, [{"error": {"message": "quota exhausted"}}], {"Retry-After": "7"})
    with pytest.raises(errors.WebSearchRateLimited) as caught:
        searcher(fakes).search("tides", provider="gemini")
    assert caught.value.http_status == 429
    assert caught.value.to_dict()["retryAfter"] == 7 and "quota exhausted" in caught.value.message


@pytest.mark.parametrize(
    "provider, body",
    [
        ("brave", b"<html>not json</html>"),
        ("perplexity", {"choices": []}),
        ("grok", {"output": [{"type": "message", "content": []}]}),
        ("gemini", {"candidates": "nope"}),
        ("kimi", {"choices": [{"finish_reason": "tool_calls", "message": {"role": "assistant"}}]}),
        ("brave", {"web": {"results": [{"title": "no url"}]}}),
        ("perplexity", b"[1, 2]"),
    ],
)
def test_malformed_provider_json_is_web_search_failed(fakes, provider, body):
    fakes.queue(provider, 200, body)
    with pytest.raises(errors.WebSearchFailed) as caught:
        searcher(fakes).search("tides", provider=provider)
    assert caught.value.http_status == 502


def test_an_unreachable_provider_is_web_search_failed(fakes):
    config = search_config(fakes, cacheTtlMinutes=0)
    config["brave"]["baseUrl"] = "http://127.0.0.1:9/nothing-listens"
    search = WebSearch(config_from_data({"web": {"search": config}}, env={}).web.search, env={})
    with pytest.raises(errors.WebSearchFailed, match="could not reach brave"):
        search.search("tides", provider="brave")


def test_keys_stay_out_of_logs_and_config_show(fakes, caplog):
    caplog.set_level(logging.DEBUG)
    fakes.queue("kimi", 401, {"error": {"message": "nope"}})
    with pytest.raises(errors.WebSearchAuth):
        searcher(fakes).search("tides", provider="kimi")
    searcher(fakes).search("tides", provider="brave")
    assert not any(key in caplog.text for key in KEYS.values())
    shown = config_to_dict(config_from_data({"web": {"search": search_config(fakes)}}, env={}))
    assert not any(key in repr(shown) for key in KEYS.values())
    assert shown["web"]["search"]["grok"]["apiKey"] == "***"


# -- the cache ------------------------------------------------------------------------------------
def test_a_repeated_search_is_answered_from_the_cache(fakes):
    config = config_from_data({"web": {"search": search_config(fakes)}}, env={})
    search = WebSearch(config.web.search, env={})
    before = len(fakes.seen("brave"))
    first = search.search("cached tides", provider="brave")
    second = search.search("cached tides", provider="brave")
    third = search.search("cached tides", provider="brave", count=2)
    assert (first["cached"], second["cached"], third["cached"]) == (False, True, False)
    assert len(fakes.seen("brave")) - before == 2 and second["results"] == first["results"]


def test_a_disabled_search_answers_403(fakes):
    with pytest.raises(errors.WebSearchDisabled):
        searcher(fakes, enabled=False).search("tides")
