"""Firecrawl, the optional last tier of web_fetch for sites that answer with a bot wall (403, 429
or 503 and a challenge page): `POST {baseUrl} {url, formats: ["markdown"], onlyMainContent,
maxAge, proxy}` with the key as a bearer token -> data.markdown and data.metadata. Off unless
web.fetch.firecrawl.enabled and a key (config or FIRECRAWL_API_KEY)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

import requests

from clawd import errors
from clawd.config.model import FirecrawlConfig

ENV_KEY = "FIRECRAWL_API_KEY"
WALL_STATUSES = frozenset({403, 429, 503})
# What challenge pages of the common bot walls carry (Cloudflare, PerimeterX, Imperva, DDoS-Guard,
# Akamai, DataDome); looked for in the first part of the page only
_WALL_MARKERS = (
    "cf-chl",
    "challenge-platform",
    "just a moment",
    "attention required",
    "captcha",
    "px-captcha",
    "_incapsula_",
    "ddos-guard",
    "verify you are human",
    "are you a robot",
    "access denied",
    "datadome",
)
_WALL_HEADERS = (("cf-mitigated", "challenge"), ("x-datadome", ""), ("x-px", ""))


def is_bot_wall(status: int, headers: Mapping[str, str], page: str) -> bool:
    if status not in WALL_STATUSES:
        return False
    lowered = {k.lower(): str(v).lower() for k, v in headers.items()}
    if any(name in lowered and value in lowered[name] for name, value in _WALL_HEADERS):
        return True
    head = page[:32768].lower()
    return any(marker in head for marker in _WALL_MARKERS)


@dataclass(frozen=True)
class Scraped:
    url: str
    status: int
    title: str
    markdown: str


class Firecrawl:
    def __init__(self, config: FirecrawlConfig, *, env: Mapping[str, str] | None = None):
        self.config = config
        env = os.environ if env is None else env
        self._key = config.api_key or env.get(ENV_KEY) or None

    @property
    def available(self) -> bool:
        return bool(self.config.enabled and self._key)

    def scrape(self, url: str, timeout: float) -> Scraped:
        body = {
            "url": url,
            "formats": ["markdown"],
            "onlyMainContent": self.config.only_main_content,
            "maxAge": self.config.max_age_ms,
            "proxy": self.config.proxy,
        }
        try:
            response = requests.post(
                self.config.base_url,
                json=body,
                timeout=timeout,
                headers={"Authorization": f"Bearer {self._key}"},
            )
        except requests.RequestException as exc:
            raise errors.WebFetchFailed(
                f"Firecrawl did not answer: {type(exc).__name__}", stage="firecrawl"
            ) from None
        return self._scraped(url, response)

    def _scraped(self, url: str, response: requests.Response) -> Scraped:
        try:
            data = response.json().get("data") or {}
            markdown = data["markdown"]
        except (ValueError, AttributeError, KeyError, TypeError):
            raise errors.WebFetchFailed(
                f"Firecrawl answered {response.status_code} without markdown", stage="firecrawl"
            ) from None
        meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
        return Scraped(
            str(meta.get("sourceURL") or meta.get("url") or url),
            _int(meta.get("statusCode"), 200),
            str(meta.get("title") or ""),
            str(markdown or ""),
        )


def _int(value, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default
