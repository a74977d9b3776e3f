"""What every search provider module shares: the query, what a provider found, where it is
reached (key, base URL, model), and its HTTP calls with their failures mapped to the codes of
docs/architecture.md. API keys never reach a message or a log line: every message is scrubbed."""

from __future__ import annotations

import logging
import os
import time
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from clawd import errors
from clawd.security import redact
from clawd.security.csrf import is_loopback_host

if TYPE_CHECKING:
    import requests

log = logging.getLogger("clawd.web")

MESSAGE_CHARS = 300


@dataclass(frozen=True)
class Query:
    text: str
    count: int
    country: str | None = None
    search_lang: str | None = None
    ui_lang: str | None = None
    freshness: str | None = None


@dataclass
class Found:
    """A provider's answer in clawd's shape: results [{title, url, snippet, published?}],
    an answer when the provider writes one, and citations [{url, title?}]."""

    results: list[dict] = field(default_factory=list)
    answer: str | None = None
    citations: list[dict] = field(default_factory=list)


@dataclass(frozen=True)
class Endpoint:
    """Where a provider is reached. `extra` carries provider-only settings (inlineCitations)."""

    provider: str
    key: str
    base_url: str
    model: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def url(self, path: str) -> str:
        return self.base_url.rstrip("/") + path


def key_from(
    configured: str | None, env: Mapping[str, str] | None, names: tuple[str, ...]
) -> tuple[str | None, str | None]:
    """(key, the variable it came from or None for the config file)."""
    if configured:
        return configured, None
    env = os.environ if env is None else env
    for name in names:
        if env.get(name):
            return env[name], name
    return None, None


def unique_citations(citations: list[dict]) -> list[dict]:
    """Citations with a url, each url once, in their order."""
    seen, out = set(), []
    for citation in citations:
        url = citation.get("url") if isinstance(citation, dict) else None
        if url and url not in seen:
            seen.add(url)
            out.append(citation)
    return out


def as_results(citations: list[dict]) -> list[dict]:
    """Results made of citations, for providers that answer in prose and cite sources."""
    return [
        {"title": c.get("title") or c["url"], "url": c["url"], "snippet": ""} for c in citations
    ]


def bad_shape(provider: str, what: str) -> errors.WebSearchFailed:
    return errors.WebSearchFailed(
        f"{provider} answered in an unexpected shape ({what})", provider=provider
    )


class ProviderHttp:
    """The HTTP calls of one search: one session, one deadline for all of them (Kimi asks up to
    three times)."""

    def __init__(self, endpoint: Endpoint, timeout: float):
        self.endpoint = endpoint
        self.timeout = timeout
        self._end = time.monotonic() + timeout
        import requests  # at the first search: the idle service does not carry it (issue 16)

        self._session = requests.Session()
        # an environment proxy meant for the outside must not swallow a loopback base URL
        host = urllib.parse.urlsplit(endpoint.base_url).hostname or ""
        self._session.trust_env = not is_loopback_host(host)

    def close(self) -> None:
        self._session.close()

    def get(self, path: str, *, params: dict, headers: dict) -> dict:
        return self._call("GET", path, headers=headers, params=params)

    def post(self, path: str, *, body: dict, headers: dict) -> dict:
        return self._call("POST", path, headers=headers, json=body)

    def _call(self, method: str, path: str, **kw: Any) -> dict:
        import requests

        left = self._end - time.monotonic()
        if left <= 0:
            raise self._timeout()
        try:
            response = self._session.request(method, self.endpoint.url(path), timeout=left, **kw)
        except requests.Timeout:
            raise self._timeout() from None
        except requests.RequestException as exc:
            raise errors.WebSearchFailed(
                self.scrub(f"could not reach {self._name()}: {type(exc).__name__}"),
                provider=self.endpoint.provider,
            ) from None
        log.info("web search %s %s: HTTP %d", self.endpoint.provider, method, response.status_code)
        return self._decoded(response)

    def _decoded(self, response: requests.Response) -> dict:
        status = response.status_code
        if status >= 400:
            raise self._refusal(response)
        try:
            data = response.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            raise errors.WebSearchFailed(
                f"{self._name()} answered HTTP {status} with something that is not a JSON object",
                provider=self.endpoint.provider,
                status=status,
            )
        return data

    def _refusal(self, response: requests.Response) -> errors.ClawdError:
        status, name = response.status_code, self._name()
        said = _cut(self.scrub(_provider_message(response)))
        details = {"provider": self.endpoint.provider, "status": status}
        if status in (401, 403):
            return errors.WebSearchAuth(
                f"{name} refused the API key (HTTP {status}): {said}", **details
            )
        if status == 429:
            return errors.WebSearchRateLimited(
                f"{name} is rate limiting us (HTTP 429): {said}",
                retryAfter=_retry_after(response),
                **details,
            )
        return errors.WebSearchFailed(f"{name} answered HTTP {status}: {said}", **details)

    def _timeout(self) -> errors.WebTimeout:
        return errors.WebTimeout(
            f"{self._name()} did not answer within {self.timeout:g} s (web.search.timeoutSeconds)",
            provider=self.endpoint.provider,
        )

    def _name(self) -> str:
        return self.endpoint.provider

    def scrub(self, text: str) -> str:
        """`text` without the key (or a cut copy of it), in case a provider echoes what it was
        sent."""
        return redact.scrub(text, (self.endpoint.key,))


def _provider_message(response: requests.Response) -> str:
    """The provider's own message, whole: it is scrubbed before it is cut (a key cut at the end
    of a message is still a leak)."""
    try:
        data = response.json()
    except ValueError:
        return (response.text or "").strip()
    return _message_in(data)


def _cut(message: str) -> str:
    return message[:MESSAGE_CHARS] or "(no message)"


def _message_in(data: Any) -> str:
    """The error message the common API shapes carry: {error: {message}}, {error: "..."},
    {message}, [{error: {...}}] (Gemini), {detail}."""
    if isinstance(data, list) and data:
        return _message_in(data[0])
    if not isinstance(data, dict):
        return str(data)
    for key in ("error", "message", "detail", "title"):
        value = data.get(key)
        if isinstance(value, dict):
            return _message_in(value)
        if isinstance(value, str) and value:
            return value
    return ""


def _retry_after(response: requests.Response) -> int | None:
    raw = response.headers.get("Retry-After", "").strip()
    if raw.isdigit():
        return int(raw)
    try:
        from email.utils import parsedate_to_datetime

        return max(0, int(parsedate_to_datetime(raw).timestamp() - time.time()))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
