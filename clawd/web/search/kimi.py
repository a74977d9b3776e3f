"""Kimi (Moonshot) with its built-in `$web_search` tool: `POST {baseUrl}/chat/completions` with a
bearer key, `{model, messages, tools: [{type: "builtin_function", function: {name:
"$web_search"}}]}`. While the answer's finish_reason is tool_calls, the assistant message and a
`tool` message echoing each call's arguments go back, and Kimi is asked again (at most 3 more
times); the answer is the final content. Kimi returns no structured citations: the URLs in its
answer are listed as citations."""

from __future__ import annotations

import re
from collections.abc import Mapping

from clawd import errors
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

NAME = "kimi"
ENV_KEYS = ("KIMI_API_KEY", "MOONSHOT_API_KEY")
BASE_URL = "https://api.moonshot.ai/v1"
MODEL = "moonshot-v1-128k"
HONOURS: frozenset[str] = frozenset()
MAX_ROUNDS = 3
TOOLS = [{"type": "builtin_function", "function": {"name": "$web_search"}}]
_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+[^\s<>()\[\]\"'`.,;:!?]")


def endpoint(config: SearchProviderConfig, env: Mapping[str, str] | None) -> Endpoint | None:
    key, _ = key_from(config.api_key, env, ENV_KEYS)
    return Endpoint(NAME, key, config.base_url or BASE_URL, config.model or MODEL) if key else None


def search(http: ProviderHttp, query: Query) -> Found:
    messages: list[dict] = [{"role": "user", "content": query.text}]
    for _ in range(MAX_ROUNDS + 1):
        choice = _choice(
            http.post(
                "/chat/completions",
                headers={"Authorization": f"Bearer {http.endpoint.key}"},
                body={"model": http.endpoint.model, "messages": messages, "tools": TOOLS},
            )
        )
        message = choice["message"]
        if choice.get("finish_reason") != "tool_calls":
            return _found(message)
        messages += [message, *_tool_echoes(message)]
    raise errors.WebSearchFailed(
        f"kimi still wanted to search after {MAX_ROUNDS} rounds", provider=NAME
    )


def _choice(data: dict) -> dict:
    try:
        choice = data["choices"][0]
        if isinstance(choice["message"], dict):
            return choice
    except (KeyError, IndexError, TypeError):
        pass
    raise bad_shape(NAME, "no choices[0].message")


def _tool_echoes(message: dict) -> list[dict]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list) or not calls:
        raise bad_shape(NAME, "finish_reason tool_calls without tool_calls")
    return [_echo(call) for call in calls]


def _echo(call) -> dict:
    try:
        return {
            "role": "tool",
            "tool_call_id": call["id"],
            "name": "$web_search",
            "content": call["function"]["arguments"],
        }
    except (KeyError, TypeError):
        raise bad_shape(NAME, "a tool call without id or function.arguments") from None


def _found(message: dict) -> Found:
    answer = message.get("content")
    if not isinstance(answer, str):
        raise bad_shape(NAME, "no message content")
    citations = unique_citations([{"url": url} for url in _URL.findall(answer)])
    return Found(results=as_results(citations), answer=answer.strip(), citations=citations)
