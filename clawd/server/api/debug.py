"""What the page did: console messages, page errors, requests, response bodies, traces. With
wrap=true (for an agent) the page's text is wrapped and every other string sanitized."""

from __future__ import annotations

from clawd.page.observe import console as page_console
from clawd.page.observe import network, tracing
from clawd.server.answers import tab_answer
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked

DEFAULT_BODY_TIMEOUT_MS = 20000
FLUSH_TIMEOUT = 2.0


def _watched_tab(req: Request):
    """The tab, once every event that reached us before this request has been handled, so a
    message the page logged before the call is in the answer."""
    tab = req.tab()
    tab.session.connection.events.flush(FLUSH_TIMEOUT)
    return tab


def console(req: Request) -> dict:
    a = req.args
    level = page_console.parse_level(a.get("level"))
    tab = _watched_tab(req)
    messages = page_console.messages(tab, min_level=level, clear=a.get("clear", False))
    wrapped = {"messages[].text": "console"}
    return as_asked(tab_answer(tab, messages=messages), a.get("wrap", False), wrapped)


def page_errors(req: Request) -> dict:
    tab = _watched_tab(req)
    found = page_console.page_errors(tab, clear=req.args.get("clear", False))
    wrapped = {"errors[].message": "console", "errors[].stack": "console"}
    return as_asked(tab_answer(tab, errors=found), req.args.get("wrap", False), wrapped)


def requests(req: Request) -> dict:
    tab = _watched_tab(req)
    rows = network.requests(
        tab, contains=req.args.get("filter"), clear=req.args.get("clear", False)
    )
    # no free text to wrap: urls and failure texts are sanitized
    return as_asked(tab_answer(tab, requests=rows), req.args.get("wrap", False))


def response_body(req: Request) -> dict:
    a = req.args
    tab = req.tab()
    answer = network.response_body(
        tab,
        a["url"],
        timeout=a.get("timeoutMs", DEFAULT_BODY_TIMEOUT_MS) / 1000,
        max_chars=a.get("maxChars", network.DEFAULT_MAX_CHARS),
    )
    # `response` beside clawd's own keys: what OpenClaw's client reads
    answer["response"] = {k: answer[k] for k in ("url", "status", "headers", "body", "truncated")}
    wrapped = (
        {}
        if answer.get("encoding") == "base64"
        else {"body": "response body", "response.body": "response body"}
    )
    return as_asked(tab_answer(tab, **answer), a.get("wrap", False), wrapped)


def trace_start(req: Request) -> dict:
    tab = req.tab()
    a = req.args
    started = tracing.start(
        tab,
        screenshots=a.get("screenshots", False),
        snapshots=a.get("snapshots", False),
        sources=a.get("sources", False),
    )
    return tab_answer(tab, **started)


def trace_stop(req: Request) -> dict:
    tab = req.tab()
    return tab_answer(tab, **tracing.stop(tab, req.service.layout.traces, req.args.get("path")))
