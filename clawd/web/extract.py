"""Text out of a fetched body: HTML through trafilatura (main content; markdown keeps headings,
lists, links and tables), the whole body's text when it finds nothing, JSON pretty-printed,
markdown and plain text as they are. trafilatura is imported on first use: it takes longer to
import than the whole service takes to start."""

from __future__ import annotations

import html
import json
import logging
import re
import threading
from dataclasses import dataclass

from clawd import errors

MODES = ("markdown", "text")

_TITLE = re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL)
_OG_TITLE = re.compile(
    r"""<meta\b[^>]*?property\s*=\s*["']og:title["'][^>]*?content\s*=\s*"""
    r"""["']([^"']*)["']""",
    re.IGNORECASE,
)
_SPACES = re.compile(r"\s+")
_MD_TITLE = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
_SCRIPT = re.compile(r"<script\b", re.IGNORECASE)
_import_lock = threading.Lock()
log = logging.getLogger("clawd.web")


@dataclass(frozen=True)
class Extracted:
    text: str
    title: str
    extractor: str  # markdown | trafilatura | fallback | json | text


def extract(
    body: str, kind: str, mode: str, *, url: str | None = None, main_content: bool = True
) -> Extracted:
    """`kind` is decode.kind_of's answer; binary bodies are refused with 415."""
    if kind == "html":
        return extract_html(body, mode, url=url, main_content=main_content)
    if kind == "markdown":
        return Extracted(body, _markdown_title(body), "markdown")
    if kind == "json":
        return _json(body)
    if kind == "text":
        return Extracted(body, "", "text")
    raise errors.WebUnsupportedContent(
        "web_fetch reads HTML, markdown, JSON and text; this is "
        "binary content (an image, a download)"
    )


def extract_html(
    page: str, mode: str, *, url: str | None = None, main_content: bool = True
) -> Extracted:
    title = html_title(page)
    text = _main_content(page, mode, url) if main_content else ""
    if text:
        return Extracted(text, title, "trafilatura")
    return Extracted(whole_text(page), title, "fallback")


def _main_content(page: str, mode: str, url: str | None) -> str:
    trafilatura = _trafilatura()
    try:
        text = trafilatura.extract(page, url=url, **options(mode))
    except Exception as exc:  # hostile pages reach a third-party parser: any failure of it
        _log_failure(url, exc)  # (lxml's, a RecursionError) leaves the fallback to read the body
        return ""
    return (text or "").strip()


def options(mode: str) -> dict:
    """trafilatura's options for a mode. Its defaults otherwise (the balanced, full cascade:
    never `fast`, which skips the fallback extractors and loses text), except that reader
    comments are left out: they are not the page's content, and leaving them out also lets
    trafilatura prune comment sections before it looks for the main text."""
    common = {"include_comments": False, "include_tables": True, "include_images": False}
    if mode == "markdown":
        return {
            **common,
            "output_format": "markdown",
            "include_formatting": True,
            "include_links": True,
        }
    return {**common, "output_format": "txt"}


def whole_text(page: str) -> str:
    """The whole body's text (trafilatura's own html2txt; scripts and styles left out)."""
    try:
        return (_trafilatura().html2txt(page, clean=True) or "").strip()
    except Exception as exc:  # as above: whatever the parser raises, the answer is no text
        _log_failure(None, exc)
        return ""


def html_title(page: str) -> str:
    found = _TITLE.search(page) or _OG_TITLE.search(page)
    return _SPACES.sub(" ", html.unescape(found.group(1))).strip() if found else ""


def has_scripts(page: str) -> bool:
    return _SCRIPT.search(page) is not None


def _markdown_title(text: str) -> str:
    found = _MD_TITLE.search(text[:65536])
    return found.group(1).strip() if found else ""


def _json(body: str) -> Extracted:
    try:
        pretty = json.dumps(json.loads(body), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):
        # cut short by maxResponseBytes, not JSON after all, or nested past Python's stack:
        # the text as it came
        return Extracted(body, "", "text")
    return Extracted(pretty, "", "json")


def _trafilatura():
    with _import_lock:  # two first requests at once must not both half-import it
        import trafilatura
    return trafilatura


def warm_up() -> None:
    """Import trafilatura now (a benchmark or a service that wants its first fetch fast)."""
    _trafilatura()


def _log_failure(url: str | None, exc: Exception) -> None:
    log.warning("extracting %s failed: %s: %s", url or "a page", type(exc).__name__, exc)
