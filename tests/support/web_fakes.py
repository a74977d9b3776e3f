"""Loopback fakes of the search providers and Firecrawl (DESIGN.md §13 shapes). One server plays
all of them, each under its own path prefix, so a test points web.search.<provider>.baseUrl at
`fake.base(provider)`. Each fake checks the request it receives (path, headers, body fields)
and answers 400 {"error": "fake: ..."} when the request is wrong, so a bad request shows up as
WEB_SEARCH_FAILED in the test; `fake.requests` keeps every request for closer looks.
`fake.queue(provider, status, body)` makes the next answers of a provider whatever a test needs
(401, 429, 500, malformed JSON)."""

from __future__ import annotations

import json
import threading
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler

from tests.support.servers import QuietServer

KEYS = {
    "brave": "brave-key-123",
    "perplexity": "pplx-key-456",
    "grok": "xai-key-789",
    "gemini": "gemini-key-abc",
    "kimi": "kimi-key-def",
    "firecrawl": "fc-key-ghi",
}
PREFIXES = {
    "brave": "/brave/res/v1",
    "perplexity": "/perplexity",
    "grok": "/grok/v1",
    "gemini": "/gemini/v1beta",
    "kimi": "/kimi/v1",
    "firecrawl": "/firecrawl/v2/scrape",
}


@dataclass
class Seen:
    provider: str
    method: str
    path: str  # below the provider's prefix
    query: dict
    headers: dict
    body: object = None


@dataclass
class Canned:
    status: int
    body: bytes
    headers: dict = field(default_factory=dict)


class FakeProviders:
    def __init__(self):
        self.requests: list[Seen] = []
        self._queued: dict[str, list[Canned]] = {}
        self._lock = threading.Lock()
        self.server = QuietServer(("127.0.0.1", 0), _handler_for(self))
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True, name="fakes").start()

    def base(self, provider: str) -> str:
        return self.url + PREFIXES[provider]

    def queue(self, provider: str, status: int, body: object = None, headers: dict | None = None):
        raw = body if isinstance(body, bytes) else json.dumps(body).encode()
        with self._lock:
            self._queued.setdefault(provider, []).append(Canned(status, raw, headers or {}))

    def seen(self, provider: str) -> list[Seen]:
        return [r for r in self.requests if r.provider == provider]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def answer(self, seen: Seen) -> Canned:
        with self._lock:
            queued = self._queued.get(seen.provider)
            if queued:
                return queued.pop(0)
        try:
            body = ANSWERS[seen.provider](self, seen)
        except AssertionError as exc:
            return Canned(400, json.dumps({"error": f"fake: {exc}"}).encode())
        return Canned(200, json.dumps(body).encode())


def _handler_for(fakes: FakeProviders):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            self._serve(None)

        def do_POST(self):
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                self._serve(json.loads(raw or b"null"))
            except ValueError:
                self._send(Canned(400, b'{"error": "fake: the body is not JSON"}'))

        def _serve(self, body):
            split = urllib.parse.urlsplit(self.path)
            provider = next((p for p, pre in PREFIXES.items() if split.path.startswith(pre)), None)
            if provider is None:
                return self._send(Canned(404, b'{"error": "fake: no such provider"}'))
            seen = Seen(
                provider,
                self.command,
                split.path[len(PREFIXES[provider]) :],
                dict(urllib.parse.parse_qsl(split.query)),
                {k.lower(): v for k, v in self.headers.items()},
                body,
            )
            fakes.requests.append(seen)
            self._send(fakes.answer(seen))

        def _send(self, canned: Canned):
            self.send_response(canned.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(canned.body)))
            for name, value in canned.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(canned.body)

        def log_message(self, *args):
            pass

    return Handler


def _bearer(seen: Seen, provider: str) -> None:
    assert seen.headers.get("authorization") == f"Bearer {KEYS[provider]}", "wrong Authorization"


def _brave(fakes, seen: Seen) -> dict:
    assert (seen.method, seen.path) == ("GET", "/web/search"), f"wrong call {seen.path}"
    assert seen.headers.get("x-subscription-token") == KEYS["brave"], "wrong X-Subscription-Token"
    assert seen.query.get("q"), "no q"
    count = int(seen.query.get("count", 10))
    return {
        "type": "search",
        "web": {
            "results": [
                {
                    "title": f"Result {i} for {seen.query['q']}",
                    "url": f"https://example.com/{i}",
                    "description": f"Snippet {i}",
                    "age": "2 days ago",
                }
                for i in range(1, count + 1)
            ]
        },
    }


def _perplexity(fakes, seen: Seen) -> dict:
    assert (seen.method, seen.path) == ("POST", "/chat/completions"), f"wrong path {seen.path}"
    _bearer(seen, "perplexity")
    assert seen.body.get("model"), "no model"
    messages = seen.body.get("messages")
    assert len(messages) == 1 and messages[0]["role"] == "user", "not one user message"
    return {
        "choices": [{"message": {"role": "assistant", "content": "Sonar says: tides [1]."}}],
        "citations": ["https://tides.example.org/a", "https://tides.example.org/b"],
        "search_results": [
            {
                "title": "Tide tables",
                "url": "https://tides.example.org/a",
                "date": "2025-06-01",
                "snippet": "Tables for the year",
            }
        ],
    }


def _grok(fakes, seen: Seen) -> dict:
    assert (seen.method, seen.path) == ("POST", "/responses"), f"wrong path {seen.path}"
    _bearer(seen, "grok")
    assert seen.body.get("tools") == [{"type": "web_search"}], "no web_search tool"
    assert seen.body["input"][0]["role"] == "user", "no user input"
    cite = "[[1]](https://tides.example.org/x)"
    text = f"Low tide is at dawn {cite}. Go early."
    start = text.index(cite)
    return {
        "output": [
            {"type": "web_search_call", "status": "completed"},
            {
                "type": "message",
                "role": "assistant",
                "content": [
                    {
                        "type": "output_text",
                        "text": text,
                        "annotations": [
                            {
                                "type": "url_citation",
                                "url": "https://tides.example.org/x",
                                "title": "Tides",
                                "start_index": start,
                                "end_index": start + len(cite),
                            }
                        ],
                    }
                ],
            },
        ],
        "citations": ["https://tides.example.org/x", "https://tides.example.org/y"],
    }


def _gemini(fakes, seen: Seen) -> dict:
    assert seen.method == "POST" and seen.path.startswith("/models/"), f"wrong path {seen.path}"
    assert seen.path.endswith(":generateContent"), "not generateContent"
    assert seen.headers.get("x-goog-api-key") == KEYS["gemini"], "wrong x-goog-api-key"
    assert seen.body.get("tools") == [{"google_search": {}}], "no google_search tool"
    assert seen.body["contents"][0]["parts"][0]["text"], "no query text"
    chunks = [
        {"web": {"uri": "https://vertex.example/redirect/1", "title": "tides.org"}},
        {"web": {"uri": "https://vertex.example/redirect/2", "title": "sea.org"}},
    ]
    parts = [{"text": "Gemini: "}, {"text": "tides at dawn."}]
    return {
        "candidates": [
            {"content": {"parts": parts}, "groundingMetadata": {"groundingChunks": chunks}}
        ]
    }


def _kimi(fakes, seen: Seen) -> dict:
    assert (seen.method, seen.path) == ("POST", "/chat/completions"), f"wrong path {seen.path}"
    _bearer(seen, "kimi")
    tools = [{"type": "builtin_function", "function": {"name": "$web_search"}}]
    assert seen.body.get("tools") == tools, "no $web_search builtin tool"
    messages = seen.body["messages"]
    if messages[-1]["role"] == "user":
        call = {
            "id": "call-1",
            "type": "builtin_function",
            "function": {"name": "$web_search", "arguments": '{"q": "tides"}'},
        }
        return {
            "choices": [
                {
                    "finish_reason": "tool_calls",
                    "message": {"role": "assistant", "content": "", "tool_calls": [call]},
                }
            ]
        }
    tool = messages[-1]
    assert tool == {
        "role": "tool",
        "tool_call_id": "call-1",
        "name": "$web_search",
        "content": '{"q": "tides"}',
    }, f"wrong tool echo {tool}"
    return {
        "choices": [
            {
                "finish_reason": "stop",
                "message": {
                    "role": "assistant",
                    "content": "Kimi: see https://tides.example.org/k for tables.",
                },
            }
        ]
    }


def _firecrawl(fakes, seen: Seen) -> dict:
    assert seen.method == "POST" and seen.path == "", f"wrong path {seen.path}"
    _bearer(seen, "firecrawl")
    assert seen.body.get("formats") == ["markdown"], "formats is not [markdown]"
    for name in ("url", "onlyMainContent", "maxAge", "proxy"):
        assert name in seen.body, f"no {name}"
    return {
        "success": True,
        "data": {
            "markdown": "# Behind the wall\n\nThe real article text.",
            "metadata": {
                "title": "Behind the wall",
                "statusCode": 200,
                "sourceURL": seen.body["url"],
            },
        },
    }


ANSWERS = {
    "brave": _brave,
    "perplexity": _perplexity,
    "grok": _grok,
    "gemini": _gemini,
    "kimi": _kimi,
    "firecrawl": _firecrawl,
}


def search_config(fakes: FakeProviders, **search) -> dict:
    """web.search for config_from_data: every provider pointed at the fakes, with its key."""
    providers = {
        name: {"apiKey": KEYS[name], "baseUrl": fakes.base(name)}
        for name in ("brave", "perplexity", "grok", "gemini", "kimi")
    }
    return {**providers, **search}
