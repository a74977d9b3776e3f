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
# Latin letters by their names, for those neither NFKD nor the skeleton folds to ASCII: small
# capitals (ᴇ ɴ ᴅ), regional indicators (🇪 🇳 🇩), negative squared ones (🅴), open, reversed and
# turned letters (Ɛ Ǝ ǝ) and the few letters whose names spell them out (Ŋ is ENG)
_LETTER_NAME = re.compile(
    r"\b(?:LATIN|REGIONAL INDICATOR SYMBOL) (?:[A-Z]+ )*?LETTER (?:[A-Z]+ )*?"
    r"(?P<letter>[A-Z]|ENG|ETH|SCHWA)(?: WITH [A-Z -]+)?\Z"
)
_SPELLED_LETTERS = {"ENG": "N", "ETH": "D", "SCHWA": "E"}
# What digits and ASCII signs a reader takes for letters (leetspeak; the skeleton reads 1, | and
# I as l): in a marker's words each letter is matched with its look-alikes
_READ_AS = {"0": "O", "1": "IL", "2": "Z", "3": "E", "4": "A", "5": "S", "6": "G", "7": "T"}
_READ_AS |= {"8": "B", "9": "G", "|": "IL", "I": "L", "L": "I"}

# What may stand between the letters of a marker's words and between its words: up to eight of
# anything that is neither a letter, a digit nor an angle bracket (spaces, _ - . : / , + ~ | •
# and the like: "E X T", "END:EXTERNAL", markdown's END\_EXTERNAL), an ASCII character written
# as an escape counting as one (%5F, &#95;, &#x5f;, &lowbar;, \u005f, \x5f). Each run is
# possessive and is followed by a letter it cannot hold, so a match is one forward pass.
_ESCAPE = r"%[0-9A-F]{2}|&#(?:X[0-9A-F]{1,6}|[0-9]{1,7});|&[A-Z]{2,8};"
_ESCAPE += r"|\\X[0-9A-F]{2}|\\U[0-9A-F]{4}"
_SEP = rf"(?:{_ESCAPE}|[^\w<>]|_)"
_GAP = f"{_SEP}{{0,8}}+"
# before a letter a separator may stand for (| for I or L) the gap gives back what it took:
# at most eight tries
_GAP_GIVING = f"{_SEP}{{0,8}}"
_GIVEN = "".join(_READ_AS[sign] for sign in _READ_AS if re.fullmatch(_SEP, sign))


def _letter(letter: str) -> str:
    return f"[{_alike(letter)}]" if len(_alike(letter)) > 1 else letter


def _alike(letter: str) -> str:
    """letter and what reads as it, escaped for a character class."""
    return letter + re.escape("".join(s for s, letters in _READ_AS.items() if letter in letters))


def _spelled(word: str) -> str:
    gaps = (_GAP_GIVING if letter in _GIVEN else _GAP for letter in word[1:])
    return _letter(word[0]) + "".join(gap + _letter(letter) for gap, letter in zip(gaps, word[1:]))


def _near(word: str) -> set[str]:
    """word and its spellings one dropped, doubled or swapped letter away."""
    forms = {word}
    for i, letter in enumerate(word):
        forms |= {word[:i] + word[i + 1 :], word[:i] + letter + word[i:]}
        forms.add(word[:i] + word[i + 1 : i + 2] + letter + word[i + 2 :])
    return forms


def _prefix_tree(forms: set[str]) -> str:
    """forms as one pattern that shares their prefixes, so each character of a text is tried
    against each letter once rather than once a form."""
    rests: dict[str, set[str]] = {}
    for form in forms:
        rests.setdefault(form[0], set()).add(form[1:])
    branches = []
    for first, after in sorted(rests.items()):
        longer = after - {""}
        more = f"(?:{_GAP}{_prefix_tree(longer)})" if longer else ""
        branches.append(_letter(first) + more + ("?" if longer and "" in after else ""))
    return branches[0] if len(branches) == 1 else f"(?:{'|'.join(branches)})"


# every marker look-alike holds a word that reads as UNTRUSTED: a text without one is left alone
_UNTRUSTED = re.compile(_prefix_tree(_near("UNTRUSTED")))
# Each such word has a U, and what follows its first U is looked for first: a pattern that
# begins with one letter runs at C speed between them (with U or N first, 0.7 ms for a
# 50,000-character snapshot; from U, 0.2). A marker begins at most eleven letters and their
# gaps before it (END_EXTERNAL_).
_FROM_U = re.compile(_prefix_tree({form[form.index("U") :] for form in _near("UNTRUSTED")}))
_BEFORE_U = 11 * (1 + 8 * len("&#X00005F;"))
_MARKER = re.compile(
    rf"(?P<end>{_spelled('END')}{_GAP})?"
    rf"(?P<w1>{_spelled('EXTERNAL')})(?P<s1>{_GAP})"
    rf"(?P<w2>{_spelled('UNTRUSTED')})(?P<s2>{_GAP})"
    rf"(?P<w3>{_spelled('CONTENT')})"
)
_WORDS = (("w1", "EXTERNAL"), ("w2", "UNTRUSTED"), ("w3", "CONTENT"))
# tried once where a marker's words end; quotes may arrive backslash-escaped (snapshot names are
# JSON-quoted)
_MARKER_TAIL = re.compile(
    rf"""(?P<id>\s*+{_letter("I")}D\s*+[=:]\s*+\\?["']?[^"'<>\s\\]*+\\?["']?)?"""
    r"""(?P<close>(?:(?:[^\w<>]|_)*+>)++)?"""
)
# A near variant (END_EXT_UNTRUSTED_CONTENT, <<<UNTRUSTD_TEXT>>>) is a word that reads as
# UNTRUSTED in a bracketed token, on its line and this close: two '<' before it, joined to it
# or closed by a '>' after it, or two '>' joined to its end; or a word joined to an END before
# it. Joined is with no space between: prose ("End untrusted sessions", "<< Back to untrusted
# hosts", "Untrusted >> Settings") stays.
_NEAR_WINDOW = 40
_OPENERS = re.compile(r"<(?:[\s\\]*+<)++")
_END_WORD = re.compile(rf"(?<![A-Z]){_spelled('END')}{_SEP}")
_NEAR_CLOSE = re.compile(r"""[^<>\n]{0,40}+(?:[\s"'\\]*+>)++""")
_CLOSED = re.compile(r"[^\s<>]{0,40}+>(?:\s*+>)++")
_TOKEN = re.compile(r"""[^\s<>"'\\]{0,40}+""")  # the word's run of letters and signs
_UNSPACED = re.compile(r"\S*+")
_NOT_WORD = re.compile(r"(?:[^\w>]|_)*+")
# the '<'s before a marker are looked for this far back: a longer run keeps its far end, which
# is no marker, and no run is read twice
_OPEN_WINDOW = 64


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
    # a marker written backwards, or turned around on screen by a bidi override (the fold drops
    # the override, leaving the letters backwards), reads forwards in the reversed text
    size = len(folded)
    backwards = [(size - end, size - start) for start, end in _spans(folded[::-1])]
    spans = _merged(_spans(folded) + backwards)
    if not spans:
        return text
    origin = _origins(text)
    pieces, copied = [], 0  # copied: how far into text
    for start, end in spans:
        # the invisible controls around a marker (a bidi override) go with it
        begin, stop = _invisible_before(text, origin[start], copied), origin[end - 1] + 1
        pieces += [text[copied:begin], SANITIZED]
        copied = _invisible_after(text, stop)
    return "".join(pieces) + text[copied:]


def _invisible_before(text: str, at: int, floor: int) -> int:
    while at > floor and unicodedata.category(text[at - 1]) == "Cf":
        at -= 1
    return at


def _invisible_after(text: str, at: int) -> int:
    while at < len(text) and unicodedata.category(text[at]) == "Cf":
        at += 1
    return at


def _spans(folded: str) -> list[tuple[int, int]]:
    """Where in folded the markers and their near variants stand."""
    after_u = _FROM_U.search(folded)
    if after_u is None:
        return []
    begin = max(0, after_u.start() - _BEFORE_U)
    exact = list(_marker_spans(folded, begin))
    hits = _UNTRUSTED.finditer(folded, begin)
    return exact + list(_near_spans(folded, exact, hits))


def _marker_spans(folded: str, at: int):
    """Where in folded, from at on, the markers spelled with all three words stand, in order."""
    floor = 0  # where the last match ends: no '<' before it opens the next
    while (words := _MARKER.search(folded, at)) is not None:
        tail = _MARKER_TAIL.match(folded, words.end())
        start = _opening(folded, floor, words.start())
        if _looks_like_marker(words, tail, opened=start < words.start()):
            yield start, tail.end()
        at = floor = max(tail.end(), words.start() + 1)


def _near_spans(folded: str, exact: list[tuple[int, int]], hits):
    """Where the near variants stand that no marker span holds, in order."""
    floor, k = 0, 0  # floor: where the last cut ends; exact[k]: the next marker span
    for hit in hits:
        while k < len(exact) and exact[k][1] <= hit.start():
            floor, k = max(floor, exact[k][1]), k + 1
        if hit.start() < floor or (k < len(exact) and exact[k][0] <= hit.start()):
            continue
        if (span := _near_marker(folded, floor, hit.start(), hit.end())) is not None:
            floor = span[1]
            yield span


def _near_marker(folded: str, floor: int, start: int, end: int) -> tuple[int, int] | None:
    """The span of the near variant around the UNTRUSTED-like word at start:end, if it is one."""
    if folded[start] != "U" and start and folded[start - 1] in string.ascii_uppercase:
        return None  # the end of a longer word (eNTRUSTED); one from its U may end any
    line = max(floor, start - _NEAR_WINDOW)
    line = folded.rfind("\n", line, start) + 1 or line
    head = folded[line:start][::-1]  # read backwards from the word: each run is one match
    joined = start - _UNSPACED.match(head).end()  # where the word's unspaced run begins
    openers = _OPENERS.search(folded, folded.rfind(">", line, start) + 1 or line, start)
    close = _NEAR_CLOSE.match(folded, end) if openers else None
    if openers and openers.start() < joined and close is None:
        openers = None  # "<< Back to untrusted hosts": neither joined to it nor closed
    ended = _END_WORD.search(folded, joined, start)
    closed = _CLOSED.match(folded, end)
    if not (openers or ended or closed):
        return None
    begin = min([m.start() for m in (openers, ended) if m] + [start - _TOKEN.match(head).end()])
    close = close or closed or _MARKER_TAIL.match(folded, _TOKEN.match(folded, end).end())
    return _opening(folded, floor, begin), close.end()


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """spans in order, overlapping ones joined."""
    joined: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if joined and start <= joined[-1][1]:
            joined[-1] = (joined[-1][0], max(end, joined[-1][1]))
        else:
            joined.append((start, end))
    return joined


def _opening(folded: str, floor: int, start: int) -> int:
    """Where the '<'s just before a marker's words begin (start when there are none): the run
    of non-word characters before start is read backwards, once."""
    head = folded[max(floor, start - _OPEN_WINDOW) : start]
    run = _NOT_WORD.match(head[::-1]).end()
    first = head.find("<", len(head) - run)
    return start if first == -1 else start - len(head) + first


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
    (UTS #39 confusables skeleton), nothing where it shows no ink, a space for whitespace, a
    mark for a modifier letter that is no letter of ours (ˍ)."""
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
            return _one_letter(reading).upper()
    return "·" if unicodedata.category(char) == "Lm" else char.upper()


def _one_letter(reading: str) -> str:
    """A reading with one letter or digit in signs is that letter: ⒠ decomposes to (e)."""
    letters = [c for c in reading if c.isalnum()]
    return letters[0] if len(letters) == 1 else reading


def _shows_nothing(char: str) -> bool:
    if unicodedata.category(char) in _INVISIBLE or char in _BLANK:
        return True
    icu = _icu()
    return icu.Char.hasBinaryProperty(char, icu.UProperty.DEFAULT_IGNORABLE_CODE_POINT)


def _readings(char: str):
    """Candidate readings of a non-ASCII character, the first ASCII one wins: its compatibility
    form (full-width, mathematical, circled, parenthesized), its confusables skeleton (in any
    case: Cherokee small letters, Komi ԁ), then a Latin letter its name, or its skeleton's,
    gives (ᴇ, Ɛ, Ŋ; ə by ǝ)."""
    yield _unmarked(char)
    checker = _spoof_checker()
    skeletons = [checker.getSkeleton(0, form) for form in (char, char.lower(), char.upper())]
    for skeleton in skeletons:
        # the skeleton's prototype of I, l, 1 and | is l: in an upper-case reading, I
        yield _unmarked(skeleton).replace("l", "I")
    for named in (char, *skeletons):
        yield _named_letter(named)


def _named_letter(char: str) -> str:
    """The Latin letter a single character's Unicode name gives, or the character."""
    named = _LETTER_NAME.search(unicodedata.name(char, "")) if len(char) == 1 else None
    return _SPELLED_LETTERS.get(named["letter"], named["letter"]) if named else char


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
