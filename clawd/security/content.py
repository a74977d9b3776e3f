"""Untrusted page content wrapped between random-id markers, with look-alike markers neutralized.

Wrapping only labels content for the agent; it never removes instruction-like text (it logs it).
"""

from __future__ import annotations

import logging
import re
import secrets
import unicodedata
from dataclasses import dataclass
from functools import cached_property, lru_cache

log = logging.getLogger("clawd.security")

START = "EXTERNAL_UNTRUSTED_CONTENT"
END = "END_EXTERNAL_UNTRUSTED_CONTENT"
SANITIZED = "[[MARKER_SANITIZED]]"

# Characters a reader takes for '<', '>', a quote, or a word separator, beyond what NFKC folds.
_LOOKALIKES = {
    **dict.fromkeys("‹«〈⟨˂ᐸ〈❮❬⦉⦑⧼《＜﹤", "<"),
    "≪": "<<",
    "⋘": "<<<",
    **dict.fromkeys("›»〉⟩˃ᐳ〉❯❭⦊⦒⧽》＞﹥", ">"),
    "≫": ">>",
    "⋙": ">>>",
    **dict.fromkeys("“”„‟″＂", '"'),
    **dict.fromkeys("‐‑‒–—―−﹘﹣－", "-"),
    **dict.fromkeys("＿‗", "_"),
}
# Cyrillic and Greek letters that pass for the Latin capitals of the marker words.
_CONFUSABLES = str.maketrans(
    {
        "А": "A",
        "В": "B",
        "Е": "E",
        "К": "K",
        "М": "M",
        "Н": "H",
        "О": "O",
        "Р": "P",
        "С": "C",
        "Т": "T",
        "Х": "X",
        "У": "Y",
        "І": "I",
        "Ѕ": "S",
        "Ј": "J",
        "Ԁ": "D",
        "Ԛ": "Q",
        "Ԝ": "W",
        "Α": "A",
        "Β": "B",
        "Ε": "E",
        "Ζ": "Z",
        "Η": "H",
        "Ι": "I",
        "Κ": "K",
        "Μ": "M",
        "Ν": "N",
        "Ο": "O",
        "Ρ": "P",
        "Τ": "T",
        "Υ": "Y",
        "Χ": "X",
        "Ь": "B",
    }
)

_SEP = r"[\s_\-.·*]*"
_MARKER = re.compile(
    r"(?P<open><[\s<]*)?"
    rf"(?P<end>END{_SEP})?"
    rf"EXTERNAL(?P<s1>{_SEP})UNTRUSTED(?P<s2>{_SEP})CONTENT"
    # quotes may arrive backslash-escaped: snapshot names are JSON-quoted
    r"""(?P<id>\s*ID\s*[=:]\s*\\?["']?[^"'<>\s\\]*\\?["']?)?"""
    r"(?P<close>[\s\"'\\]*>+)?"
)


@dataclass(frozen=True)
class _Suspicious:
    """One instruction-like pattern. A match needs one of `words` in the folded text: the cheap
    substring test keeps large snapshots from paying for every regex. `leading`: every match
    begins with one of them, so the pattern is tried only where one stands (a regex that starts
    with \\b tries every position of a 50,000-character text: 0.8 ms each, measured)."""

    name: str
    words: tuple[str, ...]
    pattern: str
    leading: bool = False

    @cached_property
    def rx(self) -> re.Pattern:
        return re.compile(self.pattern, re.DOTALL)

    def found_in(self, folded: str) -> bool:
        if not self.leading:
            return any(w in folded for w in self.words) and self.rx.search(folded) is not None
        for word in self.words:
            at = folded.find(word)
            while at != -1:
                if self.rx.match(folded, at):
                    return True
                at = folded.find(word, at + 1)
        return False


_SUSPICIOUS = [
    _Suspicious(
        "ignore previous instructions",
        ("IGNORE", "DISREGARD", "FORGET", "OVERRIDE"),
        r"\b(IGNORE|DISREGARD|FORGET|OVERRIDE)\b.{0,30}"
        r"\b(PREVIOUS|PRIOR|ABOVE|EARLIER|ALL|PRECEDING)\b"
        r".{0,30}\b(INSTRUCTIONS?|PROMPTS?|RULES|DIRECTIONS|GUIDELINES|CONTEXT)\b",
        leading=True,
    ),
    _Suspicious("you are now", ("YOU",), r"\bYOU\s+ARE\s+NOW\b", leading=True),
    _Suspicious(
        "new instructions", ("INSTRUCTION",), r"\b(NEW|UPDATED|REAL|ACTUAL)\s+INSTRUCTIONS?\b"
    ),
    _Suspicious("system prompt", ("SYSTEM",), r"\bSYSTEM\s*PROMPT\b", leading=True),
    _Suspicious(
        "role header",
        ("SYSTEM", "ASSISTANT", "DEVELOPER"),
        r"(?m)^\s*(SYSTEM|ASSISTANT|DEVELOPER)\s*:",
    ),
    _Suspicious(
        "chat template token",
        ("IM_", "SYSTEM", "ENDOFTEXT", "INST", "SYS"),
        r"<\|?\s*(IM_START|IM_END|SYSTEM|ENDOFTEXT)\s*\|?>|\[/?INST\]|<</?SYS>>",
    ),
    _Suspicious(
        "pretend / act as",
        ("ACT", "PRETEND", "ROLEPLAY"),
        r"\b(ACT\s+AS|PRETEND\s+(TO\s+BE|YOU\s+ARE)|ROLEPLAY\s+AS)\b",
        leading=True,
    ),
    _Suspicious(
        "jailbreak",
        ("JAILBREAK", "DEVELOPER", "DAN", "DO"),
        r"\b(JAILBREAK|DEVELOPER\s+MODE|DAN\s+MODE|DO\s+ANYTHING\s+NOW)\b",
        leading=True,
    ),
    _Suspicious(
        "secret exfiltration",
        ("REVEAL", "PRINT", "SEND", "LEAK", "EXFILTRATE", "SHARE"),
        r"\b(REVEAL|PRINT|SEND|LEAK|EXFILTRATE|SHARE)\b.{0,40}\b(API\s*KEYS?|PASSWORDS?|SECRETS?|"
        r"TOKENS?|CREDENTIALS?|COOKIES)\b",
        leading=True,
    ),
    _Suspicious(
        "tool invocation",
        ("RUN", "EXECUTE"),
        r"\b(RUN|EXECUTE)\s+(THIS|THE\s+FOLLOWING)\s+(COMMAND|CODE|SCRIPT)\b",
        leading=True,
    ),
]
_ASCII_RUNS = re.compile(r"[\x00-\x7f]+|[^\x00-\x7f]")


def wrap_untrusted(text: str, *, source: str = "web") -> str:
    """text between fresh-id markers; look-alike markers inside it are neutralized.

    `source` (web, console, title, ...) only labels the warning logged for instruction-like text.
    """
    marker_id = secrets.token_hex(8)
    folded = _fold(text)
    found = _suspicious_in(folded)
    if found:
        log.warning(
            "untrusted %s content %s looks like instructions: %s",
            source,
            marker_id,
            ", ".join(found),
        )
    clean = _sanitized(text, folded)
    return f'<<<{START} id="{marker_id}">>>\n{clean}\n<<<{END} id="{marker_id}">>>'


def sanitize_markers(text: str) -> str:
    """Replace anything that reads as a start or end marker with [[MARKER_SANITIZED]]."""
    return _sanitized(text, _fold(text))


def _sanitized(text: str, folded: str) -> str:
    if "UNTRUSTED" not in folded:  # every marker look-alike folds to contain it
        return text
    origin = _origins(text)
    pieces, copied = [], 0
    for match in _MARKER.finditer(folded):
        if not _looks_like_marker(match):
            continue
        start, end = origin[match.start()], origin[match.end() - 1] + 1
        pieces += [text[copied:start], SANITIZED]
        copied = end
    if not pieces:
        return text
    return "".join(pieces) + text[copied:]


def suspicious_patterns(text: str) -> list[str]:
    """Names of instruction-like patterns in text, in a fixed order, each at most once."""
    return _suspicious_in(_fold(text))


def _suspicious_in(folded: str) -> list[str]:
    return [pattern.name for pattern in _SUSPICIOUS if pattern.found_in(folded)]


def _looks_like_marker(match: re.Match) -> bool:
    # Prose ("external untrusted content") stays; brackets, END, an id, or identifier-style
    # joining (EXTERNAL_UNTRUSTED_CONTENT, externaluntrustedcontent) make it a marker.
    if match["open"] or match["end"] or match["id"] or match["close"]:
        return True
    return not any(c.isspace() for c in match["s1"] + match["s2"])


def _fold(text: str) -> str:
    """An uppercase ASCII-ish reading of text (look-alikes, full-width and accented letters as
    their plain ones; invisible characters dropped)."""
    if text.isascii():
        return text.upper()  # the common case, and snapshots are large
    return "".join(
        piece.upper() if piece.isascii() else _fold_char(piece)
        for piece in _ASCII_RUNS.findall(text)
    )


def _origins(text: str) -> list[int] | range:
    """For each character of _fold(text), its index in text: asked only when a marker
    look-alike is there to cut out (building it was a third of wrapping a 50,000-character
    page)."""
    if text.isascii():
        return range(len(text))
    origin: list[int] = []
    for run in _ASCII_RUNS.finditer(text):
        start, piece = run.start(), run.group()
        if piece.isascii():
            origin.extend(range(start, start + len(piece)))
        else:
            origin.extend([start] * len(_fold_char(piece)))
    return origin


@lru_cache(maxsize=4096)
def _fold_char(char: str) -> str:
    if char.isascii():
        return char.upper()
    if char in _LOOKALIKES:
        return _LOOKALIKES[char]
    if unicodedata.category(char) in ("Cf", "Mn", "Me"):
        return ""  # zero-width, bidi controls, combining marks: invisible
    decomposed = unicodedata.normalize("NFKD", char)
    kept = "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me"))
    return kept.translate(_CONFUSABLES).upper().translate(_CONFUSABLES)
