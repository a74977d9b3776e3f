"""web_search (docs/architecture.md): finding pages through a search provider's HTTP API, never by
driving a browser to a search engine. One module a provider (brave, gemini, kimi, perplexity,
grok); this one picks the provider, checks the options, keeps the cache and shapes the answer
{ok, provider, query, results, answer?, citations?, ignored?, cached, tookMs}."""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Mapping
from types import ModuleType

from clawd import errors
from clawd.config.model import WebSearchConfig
from clawd.web.cache import TtlCache
from clawd.web.search import brave, gemini, grok, kimi, perplexity
from clawd.web.search.base import Endpoint, Found, ProviderHttp, Query

# the auto-detection order: the first with a key is used when none is configured or asked for
PROVIDERS: dict[str, ModuleType] = {m.NAME: m for m in (brave, gemini, kimi, perplexity, grok)}
OPTIONS = ("country", "search_lang", "ui_lang", "freshness")
MAX_COUNT = 10
MAX_QUERY = 2000
_PATTERNS = {
    "country": re.compile(r"[A-Za-z]{2}|ALL"),
    "search_lang": re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{2,4})?"),
    "ui_lang": re.compile(r"[A-Za-z]{2,3}(-[A-Za-z]{2,4})?"),
    "freshness": re.compile(r"pd|pw|pm|py|\d{4}-\d{2}-\d{2}to\d{4}-\d{2}-\d{2}"),
}
_EXAMPLES = {
    "country": "a two-letter country code such as DE",
    "search_lang": "such as en or pt-br",
    "ui_lang": "such as en-US",
    "freshness": "pd, pw, pm, py or YYYY-MM-DDtoYYYY-MM-DD",
}


class WebSearch:
    def __init__(
        self,
        config: WebSearchConfig,
        *,
        env: Mapping[str, str] | None = None,
        cache: TtlCache | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.config = config
        self._env = env
        self.cache = cache or TtlCache(config.cache_ttl_minutes * 60)
        self._clock = clock

    def search(
        self,
        query: str,
        *,
        count: int | None = None,
        provider: str | None = None,
        **options: str | None,
    ) -> dict:
        """`options`: country, search_lang, ui_lang, freshness (None: web.search's own)."""
        started = self._clock()
        if not self.config.enabled:
            raise errors.WebSearchDisabled("web_search is disabled (web.search.enabled: false)")
        asked = self._query(query, count, options)
        endpoint = self.endpoint(provider)
        key = (endpoint.provider, endpoint.model, asked)
        answer = self.cache.get(key)
        cached = answer is not None
        if answer is None:
            answer = self._run(endpoint, asked)
            self.cache.put(key, answer)
        return {**answer, "cached": cached, "tookMs": round((self._clock() - started) * 1000, 1)}

    # -- which provider --------------------------------------------------------------------------
    def endpoint(self, provider: str | None = None) -> Endpoint:
        """The provider asked for, else the configured one, else the first with a key."""
        name = provider or self.config.provider
        if name is not None:
            return self._named(name)
        for name, module in PROVIDERS.items():
            found = module.endpoint(getattr(self.config, name), self._env)
            if found is not None:
                return found
        variables = ", ".join(v for m in PROVIDERS.values() for v in m.ENV_KEYS)
        raise errors.WebSearchNotConfigured(
            "no search provider has an API key: set one under web.search.<provider>.apiKey or in "
            f"the environment ({variables})"
        )

    def _named(self, name: str) -> Endpoint:
        module = PROVIDERS.get(name)
        if module is None:
            raise errors.InvalidRequest(
                f"unknown search provider {name!r}; one of {', '.join(PROVIDERS)}"
            )
        found = module.endpoint(getattr(self.config, name), self._env)
        if found is None:
            raise errors.WebSearchNotConfigured(
                f"the {name} search provider has no API key: set web.search.{name}.apiKey or "
                f"{' or '.join(module.ENV_KEYS)}",
                provider=name,
            )
        return found

    def configured(self) -> list[str]:
        """The providers that have a key (for status lines; never the keys themselves)."""
        return [
            n
            for n, m in PROVIDERS.items()
            if m.endpoint(getattr(self.config, n), self._env) is not None
        ]

    # -- the query ------------------------------------------------------------------------------
    def _query(self, text: object, count: int | None, options: Mapping[str, str | None]) -> Query:
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise errors.InvalidRequest(f"unknown search option {unknown[0]!r}")
        if not isinstance(text, str) or not text.strip():
            raise errors.InvalidRequest("query must be a non-empty string")
        if len(text) > MAX_QUERY:
            raise errors.InvalidRequest(f"query is longer than {MAX_QUERY} characters")
        count = self.config.count if count is None else count
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_COUNT:
            raise errors.InvalidRequest(
                f"count must be a whole number from 1 to {MAX_COUNT}, not {count!r}"
            )
        chosen = {name: self._option(name, options.get(name)) for name in OPTIONS}
        return Query(text.strip(), count, **chosen)

    def _option(self, name: str, value: str | None) -> str | None:
        value = getattr(self.config, name) if value is None else value
        if value is None:
            return None
        if not isinstance(value, str) or not _PATTERNS[name].fullmatch(value):
            raise errors.InvalidRequest(f"{name} must be {_EXAMPLES[name]}, not {value!r}")
        return value

    # -- asking ---------------------------------------------------------------------------------
    def _run(self, endpoint: Endpoint, query: Query) -> dict:
        module = PROVIDERS[endpoint.provider]
        http = ProviderHttp(endpoint, self.config.timeout_seconds)
        try:
            found = module.search(http, query)
        finally:
            http.close()
        return _answer(endpoint.provider, query, found, module.HONOURS)


def _answer(provider: str, query: Query, found: Found, honours: frozenset[str]) -> dict:
    answer = {
        "ok": True,
        "provider": provider,
        "query": query.text,
        "results": found.results[: query.count],
    }
    if found.answer:
        answer["answer"] = found.answer
    if found.citations:
        answer["citations"] = found.citations
    ignored = [o for o in OPTIONS if getattr(query, o) is not None and o not in honours]
    if ignored:
        answer["ignored"] = ignored
    return answer
