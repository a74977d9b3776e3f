"""web_fetch as a whole (docs/architecture.md): the pinned fetch, extraction, Firecrawl for bot
walls, the browser for pages that build their text with scripts, the character limit and the cache.
The answer is the route's JSON: {ok, url, status, contentType, title, extractor, text, length,
truncated, cached, tookMs}; wrapping it as untrusted content is the caller's last step."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from clawd import errors
from clawd.config.model import WebFetchConfig
from clawd.web import extract
from clawd.web.cache import TtlCache
from clawd.web.fetch import Fetched, PageFetcher
from clawd.web.firecrawl import Firecrawl, is_bot_wall
from clawd.web.render import BrowserReader
from clawd.words import EXTRACT_MODES, RENDER_MODES

log = logging.getLogger("clawd.web")

THIN_TEXT = 200  # under this many characters of text, a page with scripts is rendered
MIN_RENDER_S = 2.0  # auto: not worth starting a render with less time than this left


@dataclass(frozen=True)
class Page:
    """What one tier made of the URL, before the character limit."""

    url: str
    status: int
    content_type: str
    title: str
    extractor: str
    text: str
    truncated: bool = False
    note: str | None = None


class WebReader:
    def __init__(
        self,
        config: WebFetchConfig,
        fetcher: PageFetcher,
        *,
        firecrawl: Firecrawl | None = None,
        cache: TtlCache | None = None,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.config = config
        self.fetcher = fetcher
        self.firecrawl = firecrawl or Firecrawl(config.firecrawl)
        self.cache = cache or TtlCache(config.cache_ttl_minutes * 60)
        self._clock = clock

    def read(
        self,
        url: str,
        *,
        mode: str = "markdown",
        max_chars: int | None = None,
        render: str = "auto",
        browser: BrowserReader | None = None,
    ) -> dict:
        """`browser` is None when there is no browser to render with (the caller says why to a
        render always): render auto then keeps the static text."""
        started = self._clock()
        if not self.config.enabled:
            raise errors.WebFetchDisabled("web_fetch is disabled (web.fetch.enabled: false)")
        _check_choice("extractMode", mode, EXTRACT_MODES)
        _check_choice("render", render, RENDER_MODES)
        url = self.fetcher.check_url(url)
        limit = max_chars or self.config.max_chars
        # a rendered answer is kept apart by whose browser read it: no render reads a profile's
        # cookies (render.py), but nothing of one profile's must ever answer another
        key = (url, mode, limit, render, _scope(browser))
        answer = self.cache.get(key)
        cached = answer is not None
        if answer is None:
            answer = _shaped(self._page(url, mode, render, browser, started), limit)
            if "note" not in answer:  # a tier that failed this time may work the next
                self.cache.put(key, answer)
        return {**answer, "cached": cached, "tookMs": round((self._clock() - started) * 1000, 1)}

    # -- the tiers ------------------------------------------------------------------------------
    def _page(self, url, mode, render, browser, started) -> Page:
        if render == "always":
            return self._rendered(_required(browser), url, mode, self._left(started))
        fetched = self.fetcher.get(url)
        page, body = self._extracted(fetched, mode)
        if self.firecrawl.available and is_bot_wall(fetched.status, fetched.headers, body):
            return self._scraped(url, page, self._left(started))
        if render == "auto" and browser is not None and _thin(page, fetched.kind, body):
            return self._auto_rendered(browser, url, mode, page, self._left(started))
        return page

    def _extracted(self, fetched: Fetched, mode: str) -> tuple[Page, str]:
        """The page, and the body it was made from as text."""
        text = fetched.text()
        found = extract.extract(
            text, fetched.kind, mode, url=fetched.url, main_content=self.config.readability
        )
        page = Page(
            fetched.url,
            fetched.status,
            fetched.content_type,
            found.title,
            found.extractor,
            found.text,
            fetched.truncated,
        )
        return page, text

    def _rendered(self, browser: BrowserReader, url: str, mode: str, left: float) -> Page:
        rendered = browser.read(url, max(left, 0.1))
        found = extract.extract_html(
            rendered.html, mode, url=rendered.url, main_content=self.config.readability
        )
        return Page(
            rendered.url,
            rendered.status,
            rendered.content_type,
            rendered.title or found.title,
            "browser",
            found.text,
        )

    def _auto_rendered(self, browser, url, mode, page: Page, left: float) -> Page:
        if left < MIN_RENDER_S:
            return replace(
                page,
                note="the page builds its text with scripts; too little time was left to render it",
            )
        try:
            return self._rendered(browser, url, mode, left)
        except errors.ClawdError as exc:
            log.info("rendering %s failed (%s); keeping the static text", url, exc.code)
            return replace(
                page,
                note=f"rendering the page in the browser failed ({exc.code}: "
                f"{exc.message}); this is its static text",
            )

    def _scraped(self, url: str, page: Page, left: float) -> Page:
        try:
            scraped = self.firecrawl.scrape(url, max(left, 1.0))
        except errors.ClawdError as exc:
            return replace(
                page, note=f"the site answered with a bot wall and Firecrawl failed ({exc.message})"
            )
        return Page(
            scraped.url,
            scraped.status,
            "text/markdown",
            scraped.title,
            "firecrawl",
            scraped.markdown,
        )

    def _left(self, started: float) -> float:
        return self.config.timeout_seconds - (self._clock() - started)


def _thin(page: Page, kind: str, body: str) -> bool:
    return kind == "html" and len(page.text) < THIN_TEXT and extract.has_scripts(body)


def _required(browser: BrowserReader | None) -> BrowserReader:
    if browser is None:
        raise errors.BrowserDisabled("render always needs a browser, and none was given to it")
    return browser


def _scope(browser: BrowserReader | None) -> str | None:
    """Whose browser renders (BrowserReader.scope: the profile); None for none, or for a reader
    that belongs to no profile."""
    return getattr(browser, "scope", None)


def _check_choice(field: str, value: str, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise errors.InvalidRequest(f"{field} must be one of {', '.join(choices)}; not {value!r}")


def _shaped(page: Page, limit: int) -> dict:
    text, cut = page.text, len(page.text) > limit
    if cut:
        text = text[:limit]
    answer = {
        "ok": True,
        "url": page.url,
        "status": page.status,
        "contentType": page.content_type,
        "title": page.title,
        "extractor": page.extractor,
        "text": text,
        "length": len(text),
        "truncated": page.truncated or cut,
    }
    if page.note:
        answer["note"] = page.note
    return answer
