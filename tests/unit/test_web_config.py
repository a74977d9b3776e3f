"""The web tier's configuration: web.fetch, web.search with its providers, web.ssrfPolicy
inheriting browser.ssrfPolicy key by key, the OpenClaw spellings, and secrets masked."""

from __future__ import annotations

import pytest

from clawd.config.loader import config_from_data, config_to_dict, defaults, schema, validate
from clawd.config.model import SsrfPolicy, WebConfig


def test_web_and_tools_object_defaults_agree_with_their_members():
    derived = defaults()
    assert schema()["properties"]["web"]["default"] == derived["web"]
    assert schema()["properties"]["tools"]["default"] == derived["tools"]


def test_defaults_are_the_documented_ones():
    web = config_from_data({}, env={}).web
    assert web == WebConfig()
    fetch, search = web.fetch, web.search
    assert (fetch.enabled, fetch.readability, fetch.max_chars, fetch.max_response_bytes) == (
        True,
        True,
        50000,
        2000000,
    )
    assert (fetch.max_redirects, fetch.timeout_seconds, fetch.cache_ttl_minutes) == (3, 30, 15)
    assert "Chrome/" in fetch.user_agent and fetch.firecrawl.enabled is False
    assert (search.enabled, search.provider, search.count) == (True, None, 5)


def test_web_ssrf_policy_defaults_to_the_browsers():
    config = config_from_data(
        {"browser": {"ssrfPolicy": {"allowedHostnames": ["10.0.0.5"], "strict": True}}}, env={}
    )
    assert config.web.ssrf_policy.effective(config.browser.ssrf_policy) == SsrfPolicy(
        allowed_hostnames=("10.0.0.5",), strict=True
    )


def test_web_ssrf_policy_keys_override_one_by_one():
    config = config_from_data(
        {
            "browser": {
                "ssrfPolicy": {"allowedHostnames": ["10.0.0.5"], "hostnameAllowlist": ["*.a.test"]}
            },
            "web": {"ssrfPolicy": {"allowedHostnames": [], "allowPrivateNetwork": True}},
        },
        env={},
    )
    effective = config.web.ssrf_policy.effective(config.browser.ssrf_policy)
    assert effective == SsrfPolicy(
        dangerously_allow_private_network=True,
        allowed_hostnames=(),
        hostname_allowlist=("*.a.test",),
    )


def test_openclaw_spellings_of_the_language_options_are_aliases():
    spelled = {"search_lang": "de", "ui_lang": "de-DE"}
    config = config_from_data({"web": {"search": spelled}}, env={})
    assert (config.web.search.search_lang, config.web.search.ui_lang) == ("de", "de-DE")
    assert validate({"web": {"search": {"search_lang": "de", "searchLang": "fr"}}})[0].startswith(
        "$.web.search.search_lang: is an alias of searchLang"
    )


@pytest.mark.parametrize(
    "section, bad",
    [
        ({"fetch": {"maxChars": 99}}, "maxChars"),
        ({"fetch": {"maxChars": 200001}}, "maxChars"),
        ({"fetch": {"firecrawl": {"proxy": "tor"}}}, "proxy"),
        ({"search": {"count": 11}}, "count"),
        ({"search": {"provider": "bing"}}, "provider"),
        ({"search": {"freshness": "lastweek"}}, "freshness"),
        ({"search": {"brave": {"model": "x"}}}, "brave"),
        ({"search": {"grok": {"baseUrl": "ftp://x"}}}, "baseUrl"),
    ],
)
def test_bad_web_settings_are_named_with_their_path(section, bad):
    problems = validate({"web": section})
    assert len(problems) == 1 and bad in problems[0] and problems[0].startswith("$.web.")


def test_every_api_key_is_secret_in_config_show():
    keys = {
        "fetch": {"firecrawl": {"apiKey": "fc-1"}},
        "search": {
            name: {"apiKey": f"{name}-1"}
            for name in ("brave", "gemini", "kimi", "perplexity", "grok")
        },
    }
    shown = config_to_dict(config_from_data({"web": keys}, env={}))
    assert "-1'" not in repr(shown)
    assert shown["web"]["fetch"]["firecrawl"]["apiKey"] == "***"
    assert {shown["web"]["search"][n]["apiKey"] for n in keys["search"]} == {"***"}
