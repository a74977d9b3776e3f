"""Describing an image with a vision model: the request and answer shapes of OpenAI, OpenRouter,
Anthropic, Gemini and Ollama (docs/architecture.md), one HTTP call each, with every way it can fail
turned into a `DescriberFailed` whose reason names what happened. API keys never reach a reason or a
log line: a provider's own message is scrubbed of the key before it is kept."""

from __future__ import annotations

import base64
import json
import logging
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawd.config.model import VisionModel
from clawd.security import redact
from clawd.security.csrf import is_loopback_host
from clawd.web.search.base import key_from

if TYPE_CHECKING:
    import requests

log = logging.getLogger("clawd.vision")

ANTHROPIC_VERSION = "2023-06-01"
MESSAGE_CHARS = 200  # of a provider's error message kept in a reason
_CHUNK = 1 << 16


class DescriberFailed(Exception):
    """A describer gave no usable description; str() is the reason, safe to show and log."""


@dataclass(frozen=True)
class Call:
    """One request: the path below baseUrl, its headers and JSON body."""

    path: str
    headers: dict
    body: dict


@dataclass(frozen=True)
class Provider:
    name: str
    base_url: str
    key_variables: tuple[str, ...]  # empty: no key needed (Ollama)
    request: Callable[[VisionModel, str, str, str, str | None], Call]  # entry, prompt, mime, b64
    answer: Callable[[dict], str]  # the text, or DescriberFailed


# -- request shapes ------------------------------------------------------------------------------
def _chat_completions(entry: VisionModel, prompt: str, mime: str, data: str, key) -> Call:
    content = [
        {"type": "text", "text": prompt},
        {"type": "image_url", "image_url": {"url": f"data:{mime};base64,{data}"}},
    ]
    return Call(
        "/chat/completions",
        {"Authorization": f"Bearer {key}"},
        {"model": entry.model, "messages": [{"role": "user", "content": content}]},
    )


def _anthropic(entry: VisionModel, prompt: str, mime: str, data: str, key) -> Call:
    content = [
        {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}},
        {"type": "text", "text": prompt},
    ]
    return Call(
        "/v1/messages",
        {"x-api-key": key, "anthropic-version": ANTHROPIC_VERSION},
        {
            "model": entry.model,
            "max_tokens": entry.max_tokens,
            "messages": [{"role": "user", "content": content}],
        },
    )


def _gemini(entry: VisionModel, prompt: str, mime: str, data: str, key) -> Call:
    model = urllib.parse.quote(entry.model or "", safe="-._~")
    parts = [{"text": prompt}, {"inline_data": {"mime_type": mime, "data": data}}]
    return Call(
        f"/v1beta/models/{model}:generateContent",
        {"x-goog-api-key": key},
        {"contents": [{"parts": parts}]},
    )


def _ollama(entry: VisionModel, prompt: str, mime: str, data: str, key) -> Call:
    headers = {"Authorization": f"Bearer {key}"} if key else {}  # an Ollama behind a proxy
    message = {"role": "user", "content": prompt, "images": [data]}
    return Call(
        "/api/chat", headers, {"model": entry.model, "stream": False, "messages": [message]}
    )


# -- answer shapes -------------------------------------------------------------------------------
IMAGE_ANSWER = "the model answered with an image, not text"
_IMAGE_PARTS = {"image", "image_url", "output_image", "inline_data", "inlineData"}


def _chat_text(data: dict) -> str:
    message = _dig(data, "choices", 0, "message", what="choices[0].message")
    if not isinstance(message, dict):
        raise DescriberFailed("unexpected answer: choices[0].message is not an object")
    content = message.get("content")
    if not content and isinstance(message.get("refusal"), str):
        raise DescriberFailed(f"the model refused: {message['refusal'][:MESSAGE_CHARS]}")
    if isinstance(content, list):  # content parts, as some compatible APIs answer
        content = _joined(content, lambda p: p.get("text") if p.get("type") == "text" else None)
    if not content and (message.get("images") or _is_data_image(content)):
        raise DescriberFailed(IMAGE_ANSWER)
    if content is not None and not isinstance(content, str):
        raise DescriberFailed("unexpected answer: choices[0].message.content is not text")
    return content or ""


def _anthropic_text(data: dict) -> str:
    blocks = _dig(data, "content", what="content[]")
    return _joined(blocks, lambda b: b.get("text") if b.get("type") == "text" else None)


def _gemini_text(data: dict) -> str:
    candidates = data.get("candidates")
    if not candidates:
        blocked = (data.get("promptFeedback") or {}).get("blockReason")
        raise DescriberFailed(
            f"the model refused the image ({blocked})" if blocked else "the answer has no candidate"
        )
    first = candidates[0] if isinstance(candidates, list) else None
    if isinstance(first, dict) and not first.get("content") and first.get("finishReason"):
        raise DescriberFailed(f"the model stopped without text ({first['finishReason']})")
    parts = _dig(data, "candidates", 0, "content", "parts", what="candidates[0].content.parts")
    return _joined(parts, lambda p: p.get("text"))


def _ollama_text(data: dict) -> str:
    message = _dig(data, "message", what="message")
    if not isinstance(message, dict):
        raise DescriberFailed("unexpected answer: message is not an object")
    content = message.get("content")
    if not content and message.get("images"):
        raise DescriberFailed(IMAGE_ANSWER)
    if content is not None and not isinstance(content, str):
        raise DescriberFailed("unexpected answer: message.content is not text")
    return content or ""


def _joined(parts: Any, text_of: Callable[[dict], Any]) -> str:
    """The text parts joined; DescriberFailed(IMAGE_ANSWER) when there are only image parts."""
    if not isinstance(parts, list):
        raise DescriberFailed("unexpected answer: the parts are not a list")
    parts = [p for p in parts if isinstance(p, dict)]
    texts = [t for t in map(text_of, parts) if isinstance(t, str) and t.strip()]
    if not texts and any(_IMAGE_PARTS & {p.get("type"), *p} for p in parts):
        raise DescriberFailed(IMAGE_ANSWER)
    return "\n".join(texts)


def _is_data_image(content: Any) -> bool:
    return isinstance(content, str) and content.lstrip().startswith("data:image/")


def _dig(data: Any, *path: Any, what: str) -> Any:
    for key in path:
        try:
            data = data[key]
        except (KeyError, IndexError, TypeError):
            raise DescriberFailed(f"unexpected answer: no {what}") from None
    return data


PROVIDERS = {
    "openai": Provider(
        "openai", "https://api.openai.com/v1", ("OPENAI_API_KEY",), _chat_completions, _chat_text
    ),
    "openrouter": Provider(
        "openrouter",
        "https://openrouter.ai/api/v1",
        ("OPENROUTER_API_KEY",),
        _chat_completions,
        _chat_text,
    ),
    "anthropic": Provider(
        "anthropic",
        "https://api.anthropic.com",
        ("ANTHROPIC_API_KEY",),
        _anthropic,
        _anthropic_text,
    ),
    "gemini": Provider(
        "gemini",
        "https://generativelanguage.googleapis.com",
        ("GEMINI_API_KEY",),
        _gemini,
        _gemini_text,
    ),
    "ollama": Provider("ollama", "http://127.0.0.1:11434", (), _ollama, _ollama_text),
}


# -- the call ------------------------------------------------------------------------------------
def describe(
    entry: VisionModel,
    image: bytes,
    mime: str,
    prompt: str,
    *,
    timeout: float,
    max_bytes: int,
    env: Mapping[str, str] | None = None,
) -> str:
    """The model's description of `image` (at most max_bytes of UTF-8); DescriberFailed says why
    there is none."""
    provider = PROVIDERS.get(entry.provider or "")
    if provider is None:
        raise DescriberFailed(f"unknown provider {entry.provider!r}; one of {', '.join(PROVIDERS)}")
    key, _ = key_from(entry.api_key, env, provider.key_variables)
    if provider.key_variables and not key:
        raise DescriberFailed(f"no API key: set apiKey or {' or '.join(provider.key_variables)}")
    call = provider.request(entry, prompt, mime, base64.b64encode(image).decode("ascii"), key)
    base = (entry.base_url or provider.base_url).rstrip("/")
    try:
        data = _post(base + call.path, call, timeout, max_bytes, key)
        text = provider.answer(data).strip()
    except DescriberFailed as exc:
        raise DescriberFailed(_scrub(str(exc), key)) from None
    if not text:
        raise DescriberFailed("the model answered no text")
    size = len(text.encode("utf-8"))
    if size > max_bytes:
        raise DescriberFailed(
            f"the description is {size} bytes, over the cap of {max_bytes} (vision.maxBytes)"
        )
    return text


def _post(url: str, call: Call, timeout: float, max_bytes: int, key: str | None) -> Any:
    import requests  # at the first describe: the idle service does not carry it (issue 16)

    deadline = time.monotonic() + timeout
    with requests.Session() as session:
        # an environment proxy meant for the outside must not swallow a loopback base URL
        session.trust_env = not is_loopback_host(urllib.parse.urlsplit(url).hostname or "")
        try:
            with session.post(
                url, json=call.body, headers=call.headers, timeout=timeout, stream=True
            ) as response:
                raw = _read(response, deadline, limit=8 * max_bytes + 65536)
        except (requests.Timeout, TimeoutError):
            raise _late(timeout) from None
        except requests.RequestException as exc:
            raise DescriberFailed(f"could not reach {_origin(url)}: {type(exc).__name__}") from None
    log.info("vision model at %s: HTTP %d", _origin(url), response.status_code)
    if response.status_code >= 400:
        raise DescriberFailed(_refusal(response.status_code, raw, key))
    try:
        data = response.json() if raw else None
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise DescriberFailed(f"HTTP {response.status_code} with a body that is not a JSON object")
    return data


def _read(response: requests.Response, deadline: float, *, limit: int) -> bytes:
    body = bytearray()
    for chunk in response.iter_content(_CHUNK):
        body += chunk
        if len(body) > limit:
            raise DescriberFailed(f"the answer is larger than {limit} bytes")
        if time.monotonic() > deadline:
            raise TimeoutError
    response._content = bytes(body)  # response.json() reads it from here
    return response._content


def _late(timeout: float) -> DescriberFailed:
    return DescriberFailed(f"no answer within {timeout * 1000:.0f} ms")


def _refusal(status: int, raw: bytes, key: str | None) -> str:
    said = _message(raw, key)
    if status in (401, 403):
        return f"the API key was refused (HTTP {status}): {said}"
    if status == 429:
        return f"rate limited (HTTP 429): {said}"
    return f"HTTP {status}: {said}"


def _message(raw: bytes, key: str | None) -> str:
    """The message of the common error shapes ({error: {message}}, {error: "..."}, {message}),
    scrubbed of the key before it is cut: a key cut at the end of a message is still a leak."""
    try:
        data = json.loads(raw)
    except ValueError:
        data = raw.decode("utf-8", "replace")
    while isinstance(data, (dict, list)) and data:
        data = data[0] if isinstance(data, list) else _first(data)
    text = _scrub(" ".join(str(data or "").split()), key)
    return text[:MESSAGE_CHARS] or "(no message)"


def _first(data: dict) -> Any:
    for key in ("error", "message", "detail"):
        if data.get(key):
            return data[key]
    return ""


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}" + (f":{parts.port}" if parts.port else "")


def _scrub(text: str, key: str | None) -> str:
    """text without the key (or a cut copy of it), in case a provider echoes what it was sent."""
    return redact.scrub(text, (key,))
