"""Brave Search: `GET {baseUrl}/web/search?q=&count=&country=&search_lang=&ui_lang=&freshness=`
with the key in `X-Subscription-Token`; results from `web.results[]` {title, url, description,
age}. The one provider that honours country, languages and freshness."""

from __future__ import annotations

from collections.abc import Mapping

from clawd.config.model import BraveConfig
from clawd.web.search.base import Endpoint, Found, ProviderHttp, Query, bad_shape, key_from

NAME = "brave"
ENV_KEYS = ("BRAVE_API_KEY",)
BASE_URL = "https://api.search.brave.com/res/v1"
HONOURS = frozenset({"country", "search_lang", "ui_lang", "freshness"})


def endpoint(config: BraveConfig, env: Mapping[str, str] | None) -> Endpoint | None:
    key, _ = key_from(config.api_key, env, ENV_KEYS)
    return Endpoint(NAME, key, config.base_url or BASE_URL) if key else None


def search(http: ProviderHttp, query: Query) -> Found:
    params = {
        "q": query.text,
        "count": query.count,
        "country": query.country,
        "search_lang": query.search_lang,
        "ui_lang": query.ui_lang,
        "freshness": query.freshness,
    }
    data = http.get(
        "/web/search",
        params={k: v for k, v in params.items() if v is not None},
        headers={"X-Subscription-Token": http.endpoint.key, "Accept": "application/json"},
    )
    return Found(results=[_result(item) for item in _items(data)])


def _items(data: dict) -> list[dict]:
    web = data.get("web")
    if web is None:
        return []  # Brave leaves `web` out when nothing was found
    items = web.get("results", []) if isinstance(web, dict) else None
    if not isinstance(items, list) or not all(isinstance(i, dict) and i.get("url") for i in items):
        raise bad_shape(NAME, "web.results is not a list of results with urls")
    return items


def _result(item: dict) -> dict:
    result = {
        "title": str(item.get("title") or ""),
        "url": str(item["url"]),
        "snippet": str(item.get("description") or ""),
    }
    if item.get("age") or item.get("page_age"):
        result["published"] = str(item.get("age") or item.get("page_age"))
    return result
