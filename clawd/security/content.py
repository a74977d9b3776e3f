"""Untrusted page content wrapped between random-id markers, with look-alike markers neutralized.

Wrapping only labels content for the agent; it never removes instruction-like text (it logs it).
Every pattern here meets page text, so each is written to run in time linear in it
(tests/unit/test_redos.py holds them to that; bench/redos.py times them).
"""

from __future__ import annotations

import logging
import re
import secrets
import string
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache, cached_property, lru_cache
from itertools import accumulate

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
# Glyphs with no ink that are neither whitespace nor default-ignorable: Braille's blank pattern
# and the musical null notehead (the Hangul fillers are default-ignorable, dropped with those).
_BLANK = frozenset("\u2800\U0001d159")
_INVISIBLE = frozenset(("Cf", "Mn", "Me"))  # format controls and combining marks
# Letters Unicode names but neither NFKD nor the skeleton folds to ASCII: small capitals (ᴇ ɴ ᴅ)
# and regional indicators (🇪 🇳 🇩)
_LETTER_NAME = re.compile(
    r"(?:SMALL CAPITAL|LATIN CAPITAL LETTER|REGIONAL INDICATOR SYMBOL LETTER) ([A-Z])\Z"
)

# What may stand between the letters of a marker's words (up to three: "E X T E R N A L",
# "E.X.T"), and between its words (any run): spaces, _ - . · *, and a backslash (markdown's
# escaped underscore: END\_EXTERNAL\_...). Each run is possessive and is followed by a letter
# it cannot hold, so a match is one forward pass: nothing is tried again in another split.
_SEP = r"[\s_\-.·*\\]"
# ASCII look-alikes the fold leaves as they are (the skeleton reads 1, | and I as l, 0 as O)
_ALIKE = {"I": "[I1|L]", "L": "[LI1|]", "O": "[O0]"}


def _spelled(word: str) -> str:
    return f"{_SEP}{{0,3}}+".join(_ALIKE.get(letter, letter) for letter in word)


# every marker look-alike holds this word: a text without it is left alone at once
_UNTRUSTED = re.compile(_spelled("UNTRUSTED"))
_MARKER = re.compile(
    rf"(?P<end>{_spelled('END')}{_SEP}*+)?"
    rf"(?P<w1>{_spelled('EXTERNAL')})(?P<s1>{_SEP}*+)"
    rf"(?P<w2>{_spelled('UNTRUSTED')})(?P<s2>{_SEP}*+)"
    rf"(?P<w3>{_spelled('CONTENT')})"
)
_WORDS = (("w1", "EXTERNAL"), ("w2", "UNTRUSTED"), ("w3", "CONTENT"))
# tried once where a marker's words end; quotes may arrive backslash-escaped (snapshot names are
# JSON-quoted)
_MARKER_TAIL = re.compile(
    rf"""(?P<id>\s*+{_ALIKE["I"]}D\s*+[=:]\s*+\\?["']?[^"'<>\s\\]*+\\?["']?)?"""
    r"""(?P<close>(?:[\s"'\\]*+>)++)?"""
)
# the '<'s before a marker are looked for this far back: a longer run keeps its far end, which
# is no marker, and no run is read twice
_OPEN_WINDOW = 64
_OPEN_CHARS = string.whitespace + "<\\"


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
        # within one line: a `\s*` that crossed newlines was tried from every one of them
        r"(?m)^[^\S\n]*+(SYSTEM|ASSISTANT|DEVELOPER)[^\S\n]*+:",
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
    if _UNTRUSTED.search(folded) is None:
        return text
    origin = _origins(text)
    pieces, copied, at = [], 0, 0  # copied: how far into text; at: how far into folded
    while (words := _MARKER.search(folded, at)) is not None:
        tail = _MARKER_TAIL.match(folded, words.end())
        start = _opening(folded, at, words.start())
        if not _looks_like_marker(words, tail, opened=start < words.start()):
            at = words.end()
            continue
        pieces += [text[copied : origin[start]], SANITIZED]
        copied, at = origin[tail.end() - 1] + 1, tail.end()
    if not pieces:
        return text
    return "".join(pieces) + text[copied:]


def _opening(folded: str, floor: int, start: int) -> int:
    """Where the '<'s just before a marker's words begin (start when there are none)."""
    head = folded[max(floor, start - _OPEN_WINDOW) : start]
    run = head[len(head.rstrip(_OPEN_CHARS)) :]
    first = run.find("<")
    return start if first == -1 else start - len(run) + first


def suspicious_patterns(text: str) -> list[str]:
    """Names of instruction-like patterns in text, in a fixed order, each at most once."""
    return _suspicious_in(_fold(text))


def _suspicious_in(folded: str) -> list[str]:
    return [pattern.name for pattern in _SUSPICIOUS if pattern.found_in(folded)]


def _looks_like_marker(words: re.Match, tail: re.Match, *, opened: bool) -> bool:
    # Prose ("external untrusted content") stays; brackets, END, an id, a closing '>', letters
    # spaced out (E X T E R N A L) or identifier-style joining (EXTERNAL_UNTRUSTED_CONTENT,
    # externaluntrustedcontent) make it a marker.
    if opened or words["end"] or tail["id"] or tail["close"]:
        return True
    if any(len(words[group]) > len(word) for group, word in _WORDS):
        return True
    return not any(c.isspace() for c in words["s1"] + words["s2"])


def _fold(text: str) -> str:
    """An uppercase ASCII-ish reading of text (look-alikes, full-width and accented letters as
    their plain ones; invisible characters dropped)."""
    if text.isascii():
        return text.upper()  # the common case, and snapshots are large
    return text.translate(_READINGS)  # one pass in C: 5 times the former run-by-run join


class _Readings(dict):
    """_fold_char by code point, for str.translate: each character is read once, and at most
    65,536 of them are kept (a page cannot make it hold all of Unicode)."""

    def __missing__(self, code: int) -> str:
        reading = _fold_char(chr(code))
        if len(self) < 65536:
            self[code] = reading
        return reading


_READINGS = _Readings({code: chr(code).upper() for code in range(128)})


def _origins(text: str) -> range | _Origins:
    """For each character of _fold(text), its index in text: asked only when a marker
    look-alike is there to cut out."""
    return range(len(text)) if text.isascii() else _Origins(text)


class _Origins:
    """Indices into text by bisection in the running length of its characters' readings, built
    in C (a list of an index per folded character, built in Python, was 20 ms of wrapping a
    50,000-character non-ASCII page with a marker in it)."""

    def __init__(self, text: str):
        self._ends = list(accumulate(map(ord, text.translate(_READING_LENGTHS))))

    def __getitem__(self, index: int) -> int:
        return bisect_right(self._ends, index)


class _ReadingLengths(dict):
    """The length of each character's reading, as a character (for str.translate)."""

    def __missing__(self, code: int) -> str:
        length = chr(len(_READINGS[code]))
        if len(self) < 65536:
            self[code] = length
        return length


_READING_LENGTHS = _ReadingLengths(dict.fromkeys(range(128), "\x01"))


@lru_cache(maxsize=8192)
def _fold_char(char: str) -> str:
    """What a reader takes a character for: upper-case ASCII where it has a look-alike there
    (UTS #39 confusables skeleton), nothing where it shows no ink, a space for whitespace."""
    if char.isascii():
        return char.upper()
    if char in _LOOKALIKES:
        return _LOOKALIKES[char]
    if _shows_nothing(char):
        return ""
    if char.isspace():
        return " "
    for reading in _readings(char):
        if reading.isascii():
            return reading.upper()
    return char.upper()


def _shows_nothing(char: str) -> bool:
    if unicodedata.category(char) in _INVISIBLE or char in _BLANK:
        return True
    icu = _icu()
    return icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)


def _readings(char: str):
    """Candidate readings of a non-ASCII character, the first ASCII one wins: its compatibility
    form (full-width, mathematical, circled), its confusables skeleton (in any case: Cherokee
    small letters, Komi ԁ), then a Latin letter its name gives."""
    yield _unmarked(char)
    checker = _spoof_checker()
    for form in (char, char.lower(), char.upper()):
        # the skeleton's prototype of I, l, 1 and | is l: in an upper-case reading, I
        yield _unmarked(checker.getSkeleton(0, form)).replace("l", "I")
    named = _LETTER_NAME.search(unicodedata.name(char, ""))
    yield named.group(1) if named else char


def _unmarked(text: str) -> str:
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if unicodedata.category(c) not in ("Mn", "Me"))


@cache
def _icu():
    """PyICU, imported on first use: loading ICU takes about 0.1 s, paid by the first text with
    a character outside ASCII, never by the service's start."""
    import icu

    return icu


@cache
def _spoof_checker():
    # one checker for all threads: ICU's skeleton is safe to ask from several at once
    return _icu().SpoofChecker()
