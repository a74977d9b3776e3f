"""Grok through xAI's responses API: `POST {baseUrl}/responses` with a bearer key, `{model,
input: [{role: "user", content: query}], tools: [{type: "web_search"}]}` -> the answer from the
`output[]` item of type `message` (its `output_text` content), citations from its url_citation
annotations and a top-level `citations[]` when present. Unless inlineCitations is on, the inline
citation links Grok writes into the answer are taken out (they are listed apart anyway)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from clawd.config.model import GrokConfig
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

NAME = "grok"
ENV_KEYS = ("XAI_API_KEY",)
BASE_URL = "https://api.x.ai/v1"
MODEL = "grok-4-1-fast"
HONOURS: frozenset[str] = frozenset()
# [[1]](https://...) as Grok writes citations into its text
# a link stops at the next `(` too: each try ends there (it read to the end: quadratic)
_INLINE = re.compile(r"\s?\[\[\d++\]\]\([^()\s]*+\)")


def endpoint(config: GrokConfig, env: Mapping[str, str] | None) -> Endpoint | None:
    key, _ = key_from(config.api_key, env, ENV_KEYS)
    if not key:
        return None
    return Endpoint(
        NAME,
        key,
        config.base_url or BASE_URL,
        config.model or MODEL,
        {"inlineCitations": config.inline_citations},
    )


def search(http: ProviderHttp, query: Query) -> Found:
    body = {
        "model": http.endpoint.model,
        "input": [{"role": "user", "content": query.text}],
        "tools": [{"type": "web_search"}],
    }
    data = http.post(
        "/responses", body=body, headers={"Authorization": f"Bearer {http.endpoint.key}"}
    )
    texts = _output_texts(data)
    notes = [
        n
        for t in texts
        for n in t.get("annotations") or []
        if isinstance(n, dict) and n.get("type") == "url_citation"
    ]
    top = [{"url": u} if isinstance(u, str) else u for u in data.get("citations") or []]
    citations = unique_citations([_citation(n) for n in notes] + top)
    keep_inline = http.endpoint.extra.get("inlineCitations", False)
    answer = "".join(t["text"] if keep_inline else _stripped(t) for t in texts).strip()
    return Found(results=as_results(citations), answer=answer, citations=citations)


def _output_texts(data: dict) -> list[dict]:
    output = data.get("output")
    if not isinstance(output, list):
        raise bad_shape(NAME, "no output[]")
    messages = [i for i in output if isinstance(i, dict) and i.get("type") == "message"]
    texts = [
        c
        for item in messages
        for c in item.get("content") or []
        if isinstance(c, dict) and c.get("type") == "output_text" and isinstance(c.get("text"), str)
    ]
    if not texts:
        raise bad_shape(NAME, "no output item of type message with output_text")
    return texts


def _citation(note: dict) -> dict:
    citation = {"url": str(note.get("url") or "")}
    if note.get("title"):
        citation["title"] = str(note["title"])
    return citation


def _stripped(content: dict) -> str:
    """The text without its inline citations: the annotated spans, then any left in the text."""
    text = content["text"]
    notes = [
        n
        for n in content.get("annotations") or []
        if isinstance(n, dict) and _valid_span(n, len(text))
    ]
    spans = sorted(((n["start_index"], n["end_index"]) for n in notes), reverse=True)
    for start, end in spans:
        if _INLINE.fullmatch(text[start:end]) or text[start:end].startswith("[["):
            text = text[:start].rstrip(" ") + text[end:]
    return _INLINE.sub("", text)


def _valid_span(note: dict, length: int) -> bool:
    start, end = note.get("start_index"), note.get("end_index")
    return isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= length
