"""The Python client's web methods: POST /web/fetch and POST /web/search over a
clawd.client.Client, as functions (the CLI and the agent tools call these) and as WebMethods,
a mixin that gives Client the same two as methods (`class Client(WebMethods)`)."""

from __future__ import annotations

from typing import Any


def web_fetch(
    client: Any,
    url: str,
    *,
    extract_mode: str | None = None,
    max_chars: int | None = None,
    render: str | None = None,
    wrap: bool | None = None,
    profile: str | None = None,
    timeout: float | None = None,
) -> dict:
    """Read one page as text: {ok, url, status, contentType, title, extractor, text, length,
    truncated, cached, tookMs}. `text` is wrapped as untrusted content unless wrap=False."""
    body = {
        "url": url,
        "extractMode": extract_mode,
        "maxChars": max_chars,
        "render": render,
        "wrap": wrap,
    }
    return client.request(
        "POST", "/web/fetch", json=_present(body), profile=profile, timeout=timeout
    )


def web_search(
    client: Any,
    query: str,
    *,
    count: int | None = None,
    provider: str | None = None,
    country: str | None = None,
    search_lang: str | None = None,
    ui_lang: str | None = None,
    freshness: str | None = None,
    wrap: bool | None = None,
    timeout: float | None = None,
) -> dict:
    """Search through the configured provider: {ok, provider, query, results, answer?,
    citations?, ignored?, cached, tookMs}; titles, snippets and answers are wrapped as untrusted
    content unless wrap=False."""
    body = {
        "query": query,
        "count": count,
        "provider": provider,
        "country": country,
        "search_lang": search_lang,
        "ui_lang": ui_lang,
        "freshness": freshness,
        "wrap": wrap,
    }
    return client.request("POST", "/web/search", json=_present(body), timeout=timeout)


class WebMethods:
    """Mixed into clawd.client.Client: `client.web_fetch(url)`, `client.web_search(query)`."""

    def web_fetch(self, url: str, **options: Any) -> dict:
        return web_fetch(self, url, **options)

    def web_search(self, query: str, **options: Any) -> dict:
        return web_search(self, query, **options)


def _present(fields: dict) -> dict:
    return {k: v for k, v in fields.items() if v is not None}
