"""How web tier answers are wrapped as untrusted content (docs/security.md, docs/architecture.md):
the metadata header (Source, URL, content type, extract mode, truncation) inside the markers, then
the text. The HTTP routes, the CLI and the agent tools all wrap through here."""

from __future__ import annotations

from clawd.security.content import wrap_untrusted
from clawd.untrusted_fields import for_agent

FETCH_SOURCE = "Web Fetch"
SEARCH_SOURCE = "Web Search"
SEARCH_WRAPPED = dict.fromkeys(
    ("answer", "results[].title", "results[].snippet", "citations[].title"), "web search"
)


def fetch_header(answer: dict, mode: str) -> str:
    lines = [
        f"Source: {FETCH_SOURCE}",
        f"URL: {answer.get('url', '')}",
        f"Status: {answer.get('status', '')}",
        f"Content-Type: {answer.get('contentType') or 'unknown'}",
        f"Extract mode: {mode} ({answer.get('extractor', '')})",
        f"Truncated: {'yes' if answer.get('truncated') else 'no'}",
    ]
    if answer.get("title"):
        lines.insert(2, f"Title: {answer['title']}")
    return "\n".join(lines)


def wrap_fetch(answer: dict, mode: str) -> str:
    """The fetched text between fresh markers, its metadata header first."""
    return wrap_untrusted(
        f"{fetch_header(answer, mode)}\n---\n{answer.get('text', '')}", source="web fetch"
    )


def wrapped_fetch_answer(answer: dict, mode: str) -> dict:
    """The route's answer with its text wrapped (header first) and its title too (a title is
    whatever the page says it is); the URL, the content type and the rest sanitized."""
    return for_agent(answer, {"text": lambda _: wrap_fetch(answer, mode), "title": "title"})


def search_text(answer: dict) -> str:
    """A search answer as compact text: the answer (if the provider wrote one), then results."""
    parts = []
    if answer.get("answer"):
        parts.append(answer["answer"].strip())
    for number, result in enumerate(answer.get("results") or [], 1):
        parts.append(_result_lines(number, result))
    cited = [c for c in answer.get("citations") or [] if c.get("url")]
    if cited and not answer.get("results"):
        parts.append("Sources:\n" + "\n".join(f"- {_cited(c)}" for c in cited))
    if answer.get("ignored"):
        parts.append(f"(not honoured by {answer.get('provider')}: {', '.join(answer['ignored'])})")
    return "\n\n".join(parts) or "(no results)"


def _result_lines(number: int, result: dict) -> str:
    url = result.get("url", "")
    lines = [f"{number}. {result.get('title') or url}", f"   {url}"]
    if result.get("published"):
        lines.append(f"   published: {result['published']}")
    if result.get("snippet"):
        lines.append(f"   {result['snippet']}")
    return "\n".join(lines)


def _cited(citation: dict) -> str:
    return f"{citation['title']} <{citation['url']}>" if citation.get("title") else citation["url"]


def wrap_search(answer: dict) -> str:
    header = (
        f"Source: {SEARCH_SOURCE}\nProvider: {answer.get('provider', '')}\n"
        f"Query: {answer.get('query', '')}"
    )
    return wrap_untrusted(f"{header}\n---\n{search_text(answer)}", source="web search")


def wrapped_search_answer(answer: dict) -> dict:
    """Every text a provider or a page wrote (answer, titles, snippets) wrapped on its own; the
    rest (URLs, dates) sanitized."""
    return for_agent(answer, SEARCH_WRAPPED)
