"""Gemini with Google Search grounding: `POST {baseUrl}/models/<model>:generateContent` with the
key in `x-goog-api-key`, `{contents: [{parts: [{text: query}]}], tools: [{google_search: {}}]}`
-> the answer from `candidates[0].content.parts[].text`, citations from
`candidates[0].groundingMetadata.groundingChunks[].web {uri, title}`."""

from __future__ import annotations

import urllib.parse
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

NAME = "gemini"
ENV_KEYS = ("GEMINI_API_KEY",)
BASE_URL = "https://generativelanguage.googleapis.com/v1beta"
MODEL = "gemini-2.5-flash"
HONOURS: frozenset[str] = frozenset()


def endpoint(config: SearchProviderConfig, env: Mapping[str, str] | None) -> Endpoint | None:
    key, _ = key_from(config.api_key, env, ENV_KEYS)
    return Endpoint(NAME, key, config.base_url or BASE_URL, config.model or MODEL) if key else None


def search(http: ProviderHttp, query: Query) -> Found:
    model = urllib.parse.quote(http.endpoint.model or MODEL, safe="-._")
    body = {"contents": [{"parts": [{"text": query.text}]}], "tools": [{"google_search": {}}]}
    data = http.post(
        f"/models/{model}:generateContent", body=body, headers={"x-goog-api-key": http.endpoint.key}
    )
    candidate = _candidate(data)
    parts = (candidate.get("content") or {}).get("parts") or []
    answer = "".join(
        p["text"] for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)
    )
    citations = unique_citations(_citations(candidate.get("groundingMetadata") or {}))
    return Found(results=as_results(citations), answer=answer.strip(), citations=citations)


def _candidate(data: dict) -> dict:
    candidates = data.get("candidates")
    if not isinstance(candidates, list) or not candidates or not isinstance(candidates[0], dict):
        raise bad_shape(NAME, "no candidates[0]")
    return candidates[0]


def _citations(grounding: dict) -> list[dict]:
    out = []
    for chunk in grounding.get("groundingChunks") or []:
        web = chunk.get("web") if isinstance(chunk, dict) else None
        if isinstance(web, dict) and web.get("uri"):
            out.append(
                {
                    "url": str(web["uri"]),
                    **({"title": str(web["title"])} if web.get("title") else {}),
                }
            )
    return out
