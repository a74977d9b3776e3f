"""Snapshot deltas (GET /snapshot?delta=true): what changed in a tab's snapshot text
since its last snapshot of the same document and scope, as lines added, removed and changed, each
with its ref and its parent's line. The snapshot is taken whole as always (its refs are exactly a
full snapshot's); only the answer is shorter. A line is compared without its ref, so a re-render
that put back the same content is `unchanged` (with the refs it renamed)."""

from __future__ import annotations

import difflib
import re
import threading
from dataclasses import astuple, dataclass, replace

from clawd import errors
from clawd.browser.tab import StateKey

REF = re.compile(r" \[ref=([a-z0-9]+)\]")
# A line is compared without its ref (a re-render's new element, same content) and without the
# focus marker (it moves with every click; the answer's `active` says where it went)
UNCOMPARED = re.compile(r" \[ref=[a-z0-9]+\]| \[active\]")
UNCHANGED = "(unchanged since the last snapshot)"


@dataclass(frozen=True)
class Last:
    """The text of a tab's latest snapshot, the document and the scope it was taken of."""

    text: str
    document: str
    scope: tuple


class Lasts:
    def __init__(self):
        self._lock = threading.Lock()
        self.last: Last | None = None

    def swap(self, new: Last) -> Last | None:
        with self._lock:
            old, self.last = self.last, new
            return old


LAST = StateKey("snapshot.delta.last", lambda tab: Lasts())


def scope_of(options) -> tuple:
    """What makes two snapshots comparable: every option that shapes the text."""
    return astuple(replace(options, wrap=False, labels=False, timeout_ms=0))


def ask_document(tab):
    """The tab's document (its main frame's loader changes with every navigation), asked
    before the snapshot is taken and read after it: no round trip of its own."""
    return tab.session.send("Page.getFrameTree")


def document_of(pending, timeout: float) -> str:
    try:
        tree = pending.result(timeout)
    except errors.ClawdError:
        return ""  # not known: compared with nothing
    return tree["frameTree"]["frame"].get("loaderId", "")


def answer(tab, body: dict, *, scope: tuple, document: str, asked: bool) -> dict:
    """Keep `body` (a full format=ai snapshot) as the tab's latest; with `asked`, the delta from
    the one before in its place when there is one to compare with and it is shorter."""
    text = body["snapshot"]
    last = tab.state[LAST].swap(Last(text, document, scope))
    if not asked:
        return body
    if not document or last is None or last.document != document or last.scope != scope:
        return {**body, "full": True}
    found = diff(last.text, text)
    if found is None:
        return {**body, "full": True}
    shown = {e["ref"] for key in ("added", "changed") for e in found.get(key, ())}
    refs = {ref: info for ref, info in body.get("refs", {}).items() if ref in shown}
    return {**{k: v for k, v in body.items() if k != "snapshot"}, **found, "refs": refs}


def diff(old: str, new: str) -> dict | None:
    """The delta body between two snapshot texts, or None when it would be longer than `new`."""
    before, after = old.split("\n"), new.split("\n")
    matcher = difflib.SequenceMatcher(None, _bare(before), _bare(after), autojunk=False)
    added, removed, changed, renamed, text = [], [], [], {}, []
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            renamed.update(_renamed(before[i1:i2], after[j1:j2]))
            continue
        hunk = _hunk(before, after, i1, i2, j1, j2)
        added += hunk["added"]
        removed += hunk["removed"]
        changed += hunk["changed"]
        context = hunk["text"][:1]
        if text and context and context[0] == text[-1][0]:  # the parent of the hunk before
            hunk["text"] = hunk["text"][1:]
            text[-1] = text[-1] + hunk["text"]
        else:
            text.append(hunk["text"])
    extra: dict = {"renamed": renamed} if renamed else {}
    if _active(after) != _active(before):
        extra["active"] = _active(after)
    if not text:
        return {"unchanged": True, "snapshot": UNCHANGED, **extra}
    lines = [line for hunk in text for line in hunk]
    out = {"delta": True, "snapshot": "\n".join(lines), "added": added, "removed": removed}
    out.update(changed=changed, **extra)
    return None if len(out["snapshot"]) >= len(new) else out  # what a reader reads


def _bare(lines: list[str]) -> list[str]:
    return [UNCOMPARED.sub("", line) for line in lines]


def _active(lines: list[str]) -> str | None:
    """The ref of the focused element's line (the deepest, in an iframe)."""
    found = [_ref(line) for line in lines if " [active]" in line]
    return found[-1] if found else None


def _ref(line: str) -> str | None:
    found = REF.search(line)
    return found.group(1) if found else None


def _renamed(old: list[str], new: list[str]) -> dict:
    """Refs of equal lines that differ: elements a re-render replaced with the same content."""
    pairs = ((_ref(a), _ref(b)) for a, b in zip(old, new))
    return {a: b for a, b in pairs if a and b and a != b}


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def parent(lines: list[str], index: int) -> str | None:
    """The nearest line above `index` less indented than it: its parent in the tree."""
    depth = _indent(lines[index]) if index < len(lines) else 0
    for i in range(min(index, len(lines)) - 1, -1, -1):
        if lines[i].strip() and _indent(lines[i]) < depth:
            return lines[i]
    return None


def _hunk(before: list[str], after: list[str], i1: int, i2: int, j1: int, j2: int) -> dict:
    """One run of differing lines: those with the same ref on both sides changed, the rest
    removed or added; as text, the parent's line for context, then the lines marked - + ~."""
    old = {_ref(before[i]): i for i in range(i1, i2) if _ref(before[i])}
    kept = {_ref(after[j]) for j in range(j1, j2)} & set(old)
    gone = [i for i in range(i1, i2) if before[i].strip() and _ref(before[i]) not in kept]
    new = [j for j in range(j1, j2) if after[j].strip() and _ref(after[j]) not in kept]
    same = [j for j in range(j1, j2) if _ref(after[j]) in kept]
    context = parent(after, j1) if j1 < len(after) else parent(before, i1)
    text = [f"  {context}"] if context else []
    text += [f"- {before[i]}" for i in gone] + [f"+ {after[j]}" for j in new]
    text += [f"~ {after[j]}" for j in same]
    return {
        "added": [_entry(after, j) for j in new],
        "removed": [_entry(before, i) for i in gone],
        "changed": [
            {**_entry(after, j), "before": before[old[_ref(after[j])]].strip()} for j in same
        ],
        "text": text,
    }


def _entry(lines: list[str], index: int) -> dict:
    entry = {"line": lines[index].strip(), "ref": _ref(lines[index])}
    up = parent(lines, index)
    if up is not None:
        entry["parent"] = up.strip()
    return entry
