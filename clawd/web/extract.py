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

# Every pattern here meets a page's bytes, and is searched once whatever the page holds: the
# title is found by its first opening tag (_title_text), og:title tag by tag (_og_title), so
# neither is tried again from each of 16,000 `<title>`s (a lazy `(.*?)</title>` from every one
# was 8.4 s for 109 KiB, quadratic). tests/unit/test_redos.py holds each to linear time.
_TITLE_OPEN = re.compile(r"<title\b", re.IGNORECASE)
_TITLE_CLOSE = re.compile(r"</title\s*+>", re.IGNORECASE)
_META_OPEN = re.compile(r"<meta\b", re.IGNORECASE)
_OG_PROPERTY = re.compile(r"""property\s*+=\s*+["']og:title["']""", re.IGNORECASE)
_OG_CONTENT = re.compile(r"""content\s*+=\s*+["']""", re.IGNORECASE)
_QUOTE = re.compile(r"""["']""")
_SPACES = re.compile(r"\s+")
# an ATX heading line; its closing #s are cut in _markdown_title, not by a pattern that could
# split a run of spaces in every way (the former `\s*#*\s*$` was cubic on one long line)
_MD_TITLE = re.compile(r"^#[ \t]++([^\n]*)", re.MULTILINE)
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
    found = _title_text(page)
    if found is None:
        found = _og_title(page)
    return _SPACES.sub(" ", html.unescape(found)).strip() if found else ""


def _title_text(page: str) -> str | None:
    """The first <title> element's text. Only the first opening tag can have one: any later
    tag's closing `>` and `</title>` are also after the first's."""
    opening = _TITLE_OPEN.search(page)
    tag_end = page.find(">", opening.end()) if opening else -1
    if tag_end == -1:
        return None
    closing = _TITLE_CLOSE.search(page, tag_end + 1)
    return page[tag_end + 1 : closing.start()] if closing else None


def _og_title(page: str) -> str | None:
    """The content of the first `<meta property="og:title" content="...">`, tag by tag: a tag
    is read up to its first `>`, once (a later `<meta` before that `>` can only find less)."""
    at = 0
    while (meta := _META_OPEN.search(page, at)) is not None:
        tag_end = page.find(">", meta.end())
        if tag_end == -1:
            tag_end = len(page)
        prop = _OG_PROPERTY.search(page, meta.end(), tag_end)
        content = prop and _OG_CONTENT.search(page, prop.end(), tag_end)
        if content:
            closing = _QUOTE.search(page, content.end())
            return page[content.end() : closing.start()] if closing else None
        at = tag_end + 1
    return None


def has_scripts(page: str) -> bool:
    return _SCRIPT.search(page) is not None


def _markdown_title(text: str) -> str:
    found = _MD_TITLE.search(text[:65536])
    if not found:
        return ""
    title = found.group(1).strip()
    closed = title.rstrip("#")  # a closing sequence of #s counts only after a space
    if closed != title and (not closed or closed[-1] in " \t"):
        title = closed.rstrip()
    return title


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
