"""Credentials masked out of text that leaves the service: known secrets (a provider's API key, the
service token), cut copies of them, and the shapes credentials take in log lines. URLs given to
the user (cdpUrl) are masked by cdp.discovery.redact; this is for free text.

Each pattern here meets text a peer controls (a request line, a websocket frame, a provider's
answer): none can backtrack, every repetition is possessive or bounded."""

from __future__ import annotations

import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

MASK = "***"
# a copy of a key cut short (a provider's own elision, a message cut at N characters) still holds
# its first characters: this many of them, or more, are masked too
MIN_PREFIX = 8

# headers whose value is a credential; their patterns (letters in any case, the slow kind to scan
# for) run only when the lowered text holds "<name>:" or "bearer"
HEADERS = (
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-clawd-password",
    "x-openclaw-password",
    "x-api-key",
    "x-goog-api-key",
    "x-subscription-token",
)
_HEADER_HINTS = tuple(f"{name}:" for name in HEADERS)
# "Authorization: Bearer x" as HTTP and websockets' debug lines print a header: to the line's end
_HEADER_LINE = re.compile(rf"(?i)(?<![\w-])({'|'.join(HEADERS)}):[ \t]*+[^\r\n]++")
_BEARER = re.compile(r"(?i)\b(bearer)[ \t]++[\w.~+/=-]{8,}+")
_USERINFO = re.compile(r"://[^\s/?#@'\"<>]++@")
_QUERY_PARAM = re.compile(r"([?&])([\w.~-]{1,64}+)=[^&#\s'\"<>]++")
# a quoted field, as JSON and Python print it: {"token": "x"}, {'Cookie': 'a=b'}
_QUOTED_FIELD = re.compile(r"(['\"])([\w.-]{1,64}+)\1(\s*+:\s*+['\"])[^'\"\r\n]++")
# the relay's DevTools websocket path is its only credential (Chromium's GUID path is one too)
_BROWSER_PATH = re.compile(r"(/devtools/browser/)[^\s/?#'\"<>]++")

_SECRET_WORDS = (
    "token",
    "secret",
    "password",
    "passwd",
    "apikey",
    "signature",
    "credential",
    "authorization",
    "cookie",
)
_SECRET_NAMES = frozenset({"sig", "pass", "pwd"})
# as a query parameter, `key` is an API key (Google's ?key=); as a field it is mostly a keyboard key
_SECRET_PARAMS = _SECRET_NAMES | {"key", "auth"}


def scrub(text: str, secrets: Iterable[str | None]) -> str:
    """`text` with each of `secrets` masked, and every copy of MIN_PREFIX or more of its
    characters in a row, from any offset, in any case, or percent-encoded (a provider echoing
    the key's tail, or the URL it was sent in). Scrub before cutting: a cut key still leaks."""
    folded = text.lower()
    for secret in secrets:
        for form in _forms(secret) if secret else ():
            if _present(folded, form):
                text = _scrub_one(text, form)
                folded = text.lower()
    return text


@dataclass(frozen=True)
class _Form:
    """One way a secret may be written, and its aligned 4-character pieces in lower case (any
    MIN_PREFIX characters of it in a row hold one), made once: every log record asks."""

    text: str
    lower: str
    blocks: tuple[str, ...]


@lru_cache(maxsize=256)
def _forms(secret: str) -> tuple[_Form, ...]:
    """The secret, and its percent-encoding where that differs."""
    encoded = urllib.parse.quote(secret, safe="")
    return tuple(_form(text) for text in dict.fromkeys((secret, encoded)))


def _form(text: str) -> _Form:
    lower = text.lower()
    blocks = tuple(dict.fromkeys(lower[i : i + 4] for i in range(0, len(lower) - 3, 4)))
    return _Form(text, lower, blocks or (lower,))


def _present(folded: str, form: _Form) -> bool:
    """Whether any piece of the secret is in the (lower-cased) text: substring tests at C speed
    tell most records there is nothing to look for."""
    for block in form.blocks:
        if block in folded:
            return True
    return False


def _scrub_one(text: str, form: _Form) -> str:
    if len(form.text) < MIN_PREFIX:
        return text.replace(form.text, MASK)
    folded, key = text.lower(), form.lower
    if len(folded) != len(text):  # a character whose lower case is longer: match as written
        folded, key = text, form.text
    parts, start = [], 0
    for begin, end in _copied_spans(folded, key):
        parts += (text[start:begin], MASK)
        start = end
    parts.append(text[start:])
    return "".join(parts)


def _copied_spans(text: str, key: str) -> list[tuple[int, int]]:
    """(begin, end) of the runs of `text` made of MIN_PREFIX-character pieces of `key`."""
    pieces = {key[i : i + MIN_PREFIX] for i in range(len(key) - MIN_PREFIX + 1)}
    spans: list[tuple[int, int]] = []
    for i in range(len(text) - MIN_PREFIX + 1):
        if text[i : i + MIN_PREFIX] in pieces:
            if spans and i <= spans[-1][1]:
                spans[-1] = (spans[-1][0], i + MIN_PREFIX)
            else:
                spans.append((i, i + MIN_PREFIX))
    return spans


def scrub_credentials(text: str) -> str:
    """`text` with the values of credential headers, bearer tokens, URL userinfo, token-like
    query parameters and quoted fields (`"token": "…"`) and DevTools browser paths masked.

    Each shape needs a character most log lines lack (the access line has none): a substring
    test costs a tenth of a regex call, and this runs on every record."""
    lowered = text.lower()
    if "bearer" in lowered:
        text = _BEARER.sub(rf"\1 {MASK}", text)
    if ":" in text:
        if any(hint in lowered for hint in _HEADER_HINTS):
            text = _HEADER_LINE.sub(rf"\1: {MASK}", text)
        if "@" in text:
            text = _USERINFO.sub(f"://{MASK}@", text)
        if '"' in text or "'" in text:
            text = _QUOTED_FIELD.sub(_field, text)
    if "=" in text and ("?" in text or "&" in text):
        text = _QUERY_PARAM.sub(_param, text)
    if "/devtools/browser/" in text:
        text = _BROWSER_PATH.sub(rf"\1{MASK}", text)
    return text


def is_secret_name(name: str, names: frozenset[str] = _SECRET_NAMES) -> bool:
    """Whether a field called `name` holds a credential (token, apiKey, password, sig…)."""
    folded = name.lower().replace("_", "").replace("-", "").replace(".", "")
    return folded in names or any(word in folded for word in _SECRET_WORDS)


def _param(m: re.Match) -> str:
    return f"{m[1]}{m[2]}={MASK}" if is_secret_name(m[2], _SECRET_PARAMS) else m[0]


def _field(m: re.Match) -> str:
    return f"{m[1]}{m[2]}{m[1]}{m[3]}{MASK}" if is_secret_name(m[2]) else m[0]
