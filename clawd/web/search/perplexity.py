"""Perplexity Sonar, directly (`PERPLEXITY_API_KEY`) or through OpenRouter (`OPENROUTER_API_KEY`,
or a configured key starting with sk-or-): `POST {baseUrl}/chat/completions` with a bearer key,
`{model, messages: [{role: "user", content: query}]}` -> the answer in
`choices[0].message.content`, sources in `search_results[]` and `citations[]` (OpenRouter: the
message's url_citation annotations)."""

from __future__ import annotations

from collections.abc import Mapping

from clawd.config.model import SearchProviderConfig
from clawd.web.search.base import (
    Endpoint,
    Found,
    ProviderHttp,
    Query,
    as_results,
    bad_shape,
    key_from,
    unique_citations,
)

NAME = "perplexity"
ENV_KEYS = ("PERPLEXITY_API_KEY", "OPENROUTER_API_KEY")
DIRECT = ("https://api.perplexity.ai", "sonar-pro")
OPENROUTER = ("https://openrouter.ai/api/v1", "perplexity/sonar-pro")
HONOURS: frozenset[str] = frozenset()


def endpoint(config: SearchProviderConfig, env: Mapping[str, str] | None) -> Endpoint | None:
    key, variable = key_from(config.api_key, env, ENV_KEYS)
    if not key:
        return None
    routed = variable == "OPENROUTER_API_KEY" or (variable is None and key.startswith("sk-or-"))
    base, model = OPENROUTER if routed else DIRECT
    return Endpoint(NAME, key, config.base_url or base, config.model or model)


def search(http: ProviderHttp, query: Query) -> Found:
    body = {"model": http.endpoint.model, "messages": [{"role": "user", "content": query.text}]}
    data = http.post(
        "/chat/completions", body=body, headers={"Authorization": f"Bearer {http.endpoint.key}"}
    )
    message = _message(data)
    citations = _citations(data, message)
    results = [_result(item) for item in data.get("search_results") or [] if _is_source(item)]
    return Found(
        results=results or as_results(citations), answer=message["content"], citations=citations
    )


def _message(data: dict) -> dict:
    try:
        message = data["choices"][0]["message"]
        if isinstance(message.get("content"), str):
            return message
    except (KeyError, IndexError, TypeError, AttributeError):
        pass
    raise bad_shape(NAME, "no choices[0].message.content")


def _citations(data: dict, message: dict) -> list[dict]:
    found = []
    for item in data.get("citations") or []:
        found.append({"url": item} if isinstance(item, str) else _source(item))
    for note in message.get("annotations") or []:
        if isinstance(note, dict) and note.get("type") == "url_citation":
            found.append(_source(note.get("url_citation") or {}))
    return unique_citations(found)


def _source(item) -> dict:
    if not isinstance(item, dict) or not item.get("url"):
        return {}
    source = {"url": str(item["url"])}
    if item.get("title"):
        source["title"] = str(item["title"])
    return source


def _is_source(item) -> bool:
    return isinstance(item, dict) and bool(item.get("url"))


def _result(item: dict) -> dict:
    result = {
        "title": str(item.get("title") or item["url"]),
        "url": str(item["url"]),
        "snippet": str(item.get("snippet") or ""),
    }
    if item.get("date"):
        result["published"] = str(item["date"])
    return result
