"""Operations on rendered aria text, line by line (no browser): the interactive list, compact,
depth, absolute urls, truncation, and find. Each line is `<2n spaces>- key[: value]`."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

from clawd import ref_syntax
from clawd.security import linear

TRUNCATION_MARKER = "\n\n[...TRUNCATED - page too large]"
INTERACTIVE_ROLES = frozenset(
    {
        "button",
        "checkbox",
        "combobox",
        "link",
        "listbox",
        "menuitem",
        "menuitemcheckbox",
        "menuitemradio",
        "option",
        "radio",
        "searchbox",
        "slider",
        "spinbutton",
        "switch",
        "tab",
        "textbox",
        "treeitem",
        "iframe",
    }
)
# live regions: short feedback an agent acts on ("3 results found"), kept in the interactive list
LIVE_ROLES = frozenset({"status", "alert", "log"})
SAID_MAX = 100  # the most characters of an unnamed line's text carried onto its flat line
_REF = ref_syntax.IN_TEXT
_ROLE = re.compile(r"^\s*- '?([a-z]+)")
_NAME = re.compile(r'^\s*- \'?[a-z]+ ("(?:[^"\\]|\\.)*")')


@dataclass
class Line:
    text: str
    level: int

    @property
    def ref(self) -> str | None:
        found = _REF.search(self.text)
        return found.group(1) if found else None

    @property
    def role(self) -> str:
        found = _ROLE.match(self.text)
        return found.group(1) if found else ""

    @property
    def is_prop(self) -> bool:
        return self.text.lstrip().startswith("- /")

    @property
    def is_text(self) -> bool:
        return self.text.lstrip().startswith("- text:")

    @property
    def named(self) -> bool:
        return _NAME.match(self.text) is not None

    @property
    def inline_text(self) -> bool:
        key = self.text.split(" [", 1)[0] if not self.named else ""
        return (
            ": " in self.text.rstrip(":")
            and not self.text.endswith(":")
            or bool(key and ": " in key)
        )

    @property
    def interactive(self) -> bool:
        return self.ref is not None and (
            self.role in INTERACTIVE_ROLES or "[cursor=pointer]" in self.text
        )


def parse(text: str) -> list[Line]:
    lines = []
    for raw in text.split("\n"):
        if raw:
            lines.append(Line(raw, (len(raw) - len(raw.lstrip(" "))) // 2))
    return lines


def render(lines: list[Line]) -> str:
    return "\n".join(line.text for line in _fix_colons(lines))


def _fix_colons(lines: list[Line]) -> list[Line]:
    """A line ending with `:` whose children were all dropped ends without it."""
    out = []
    for index, line in enumerate(lines):
        nxt = lines[index + 1] if index + 1 < len(lines) else None
        if line.text.endswith(":") and (nxt is None or nxt.level <= line.level):
            line = Line(line.text[:-1], line.level)
        out.append(line)
    return out


def interactive(lines: list[Line], limit: int | None = None) -> list[Line]:
    """Ref'd interactive lines and live regions with text, flat, no deeper than `limit`; one
    with neither name nor text of its own carries its children's text (an unnamed clickable
    suggestion "Egypt"), since its children are not shown."""
    out = []
    for index, line in enumerate(lines):
        live = line.role in LIVE_ROLES
        if not (line.interactive or live) or (limit is not None and line.level > limit):
            continue
        text = line.text.lstrip(" ").rstrip(":")
        if not line.named and not line.inline_text:
            said = _said_below(lines, index)
            if not said and live:
                continue  # an empty region says nothing yet
            text = f"{text}: {said}" if said else text
        out.append(Line(text, 0))
    return out


def cut_by_depth(lines: list[Line], limit: int) -> int:
    """How many interactive lines are deeper than `limit`."""
    return sum(1 for line in lines if line.interactive and line.level > limit)


def _said_below(lines: list[Line], index: int) -> str:
    """The text of a line's descendants (text, inline text, names), its interactive
    descendants' aside (they have lines of their own); at most SAID_MAX characters."""
    parts: list[str] = []
    level, skip = lines[index].level, None
    for line in lines[index + 1 :]:
        if line.level <= level:
            break
        if skip is not None and line.level > skip:
            continue
        skip = line.level if line.interactive else None
        if skip is None and not line.is_prop:
            parts.append(_said(line))
    said = " ".join(p for p in parts if p)
    return said if len(said) <= SAID_MAX else said[: SAID_MAX - 1] + "…"


def _said(line: Line) -> str:
    text = line.text.strip()[2:]
    if line.named:
        return _unquote(_NAME.match(line.text).group(1))
    if line.is_text:
        return _unquote(text[len("text: ") :])
    if line.inline_text:
        return _unquote(text.split(": ", 1)[1])
    return ""


def depth(lines: list[Line], limit: int) -> list[Line]:
    return [line for line in lines if line.level <= limit]


def compact(lines: list[Line]) -> list[Line]:
    """Drop unnamed structural lines that carry no ref, no text and no ref'd descendant."""
    keep = [True] * len(lines)
    has_ref_below = _ref_below(lines)
    for index, line in enumerate(lines):
        if line.ref or line.is_prop or line.is_text or line.named or has_ref_below[index]:
            continue
        if ": " in line.text:  # inline text (`- paragraph: Some text`)
            continue
        keep[index] = False
    return _drop_orphans(lines, keep)


def _ref_below(lines: list[Line]) -> list[bool]:
    result = [False] * len(lines)
    stack: list[int] = []
    for index, line in enumerate(lines):
        while stack and lines[stack[-1]].level >= line.level:
            stack.pop()
        if line.ref:
            for parent in stack:
                result[parent] = True
        stack.append(index)
    return result


def _drop_orphans(lines: list[Line], keep: list[bool]) -> list[Line]:
    """Dropped lines take their subtree along; kept children of kept parents stay as they are."""
    out = []
    dropped_level = None
    for line, kept in zip(lines, keep):
        if dropped_level is not None and line.level > dropped_level:
            continue
        dropped_level = None
        if kept:
            out.append(line)
        else:
            dropped_level = line.level
    return out


def absolute_urls(lines: list[Line], base: str) -> list[Line]:
    """Links carry `[url=<absolute href>]` (from their `- /url:` child)."""
    out = list(lines)
    for index, line in enumerate(lines):
        if line.role != "link" or index + 1 >= len(lines):
            continue
        child = lines[index + 1]
        if child.level == line.level + 1 and child.text.lstrip().startswith("- /url: "):
            href = _unquote(child.text.lstrip()[len("- /url: ") :])
            url = urllib.parse.urljoin(base, href)
            head, colon = (line.text[:-1], ":") if line.text.endswith(":") else (line.text, "")
            out[index] = Line(_add_attr(head, f"[url={url}]") + colon, line.level)
    return out


def _add_attr(key: str, attr: str) -> str:
    if ": " in key and not key.rstrip().endswith("]"):
        head, value = key.split(": ", 1)
        return f"{head} {attr}: {value}"
    return f"{key} {attr}"


def _unquote(value: str) -> str:
    if len(value) >= 2 and value[0] == '"' and value[-1] == '"':
        return value[1:-1].replace('\\"', '"').replace("\\\\", "\\")
    return value


def truncate(text: str, max_chars: int) -> tuple[str, bool]:
    """Cut on a whole line so that text + marker fits in max_chars (0: no limit)."""
    if not max_chars or len(text) <= max_chars:
        return text, False
    budget = max(0, max_chars - len(TRUNCATION_MARKER))
    cut = text.rfind("\n", 0, budget + 1)
    kept = text[:cut] if cut > 0 else ""
    return kept + TRUNCATION_MARKER, True


def kept_lines(cut: str) -> int:
    """How many lines of the whole text a truncated text kept (where its next page starts)."""
    kept = cut[: -len(TRUNCATION_MARKER)] if cut.endswith(TRUNCATION_MARKER) else cut
    return kept.count("\n") + 1 if kept else 0


def page(text: str, start: int, max_chars: int) -> tuple[str, int | None]:
    """The lines of `text` from line `start` that fit in max_chars with the marker (at least one,
    so that a walk always moves on), and the line the next page starts at (None: the last)."""
    lines = text.split("\n")[start:]
    rest = "\n".join(lines)
    if not max_chars or len(rest) <= max_chars:
        return rest, None
    budget = max_chars - len(TRUNCATION_MARKER)
    count, size = 1, len(lines[0])
    while count < len(lines) and size + 1 + len(lines[count]) <= budget:
        size += 1 + len(lines[count])
        count += 1
    return "\n".join(lines[:count]) + TRUNCATION_MARKER, start + count


def refs_in(text: str) -> set[str]:
    return set(_REF.findall(text))


def find(lines: list[Line], pattern: str, limit: int = 50) -> list[dict]:
    """Lines whose name or text matches (substring, case-insensitive; `/regex/`), with their
    ref and their ancestors' lines."""
    matcher = _matcher(pattern)
    stack: list[Line] = []
    matches = []
    for line in lines:
        while stack and stack[-1].level >= line.level:
            stack.pop()
        if not line.is_prop and matcher(_searchable(line)):
            owner = line if line.ref or not stack else stack[-1]
            matches.append(
                {
                    "line": line.text.strip(),
                    "ref": owner.ref,
                    "path": [a.text.strip().rstrip(":") for a in stack],
                }
            )
            if len(matches) >= limit:
                break
        stack.append(line)
    return matches


def _searchable(line: Line) -> str:
    text = line.text.strip()[2:]
    # linear: spaces are taken from the first of a run only, and a value stops at the next
    # `[` (each start used to read to the end of the line: quadratic on `[a=[a=...`)
    return re.sub(r"(?<!\s)\s*+\[[a-z]++(=[^\][]*+)?\]", "", text)


def _matcher(pattern: str):
    if len(pattern) > 2 and pattern.startswith("/") and pattern.rfind("/") > 0:
        end = pattern.rfind("/")
        # the agent's pattern over the page's text: RE2, linear whatever the pattern
        regex = linear.compile_regex(
            pattern[1:end], ignore_case="i" in pattern[end + 1 :], what="the /regex/"
        )
        return lambda text: regex.search(text) is not None
    needle = pattern.lower()
    return lambda text: needle in text.lower()
