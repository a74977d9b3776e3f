"""What an element ref looks like, in one place: `e12` (main frame), `f1e3` (an iframe's), `ax12`
(format=aria), written as `e12`, `@e12`, `ref=e12`, `[ref=e12]`, or bare `12` for `e12` (OpenClaw's
numeric refs, docs/snapshot.md). A leaf module: the server validates with it, the page resolves."""

from __future__ import annotations

import re

CANONICAL = re.compile(r"^(?:(f\d+)?e(\d+)|ax(\d+))$")  # groups: frame prefix, e-number, ax-number
_WRITTEN = re.compile(r"^\[?(?:@|ref=)?((?:f\d+)?e\d+|ax\d+|\d+)\]?$")
REF_MODES = ("aria", "role")  # refs=aria: bound to the element; role: re-found by role+name+nth
IN_TEXT = re.compile(r"\[ref=([a-z0-9]+)\]")  # a ref as a snapshot line prints it


def normalize(text: str) -> str:
    """The canonical form of a written ref (`@e12` -> `e12`, `12` -> `e12`); other text as given,
    trimmed, for the caller to refuse."""
    stripped = (text or "").strip()
    found = _WRITTEN.match(stripped)
    if found is None:
        return stripped
    ref = found.group(1)
    return "e" + ref if ref.isdigit() else ref


def is_ref(text: str) -> bool:
    return CANONICAL.match(normalize(text)) is not None
