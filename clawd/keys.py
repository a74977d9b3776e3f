"""The key definitions table (a US keyboard): what `Input.dispatchKeyEvent` needs for a key name
(`key`, `code`, `windowsVirtualKeyCode`, `text`), modifier bits, and parsing chords such as
`Control+A` or `Shift+Tab`. No CDP calls here; page/act/input.py sends the events."""

from __future__ import annotations

import string
import sys
from dataclasses import dataclass

from clawd import errors

# Input.dispatchKeyEvent `modifiers` bits
MODIFIER_BITS = {"Alt": 1, "Control": 2, "Meta": 4, "Shift": 8}
MODIFIER_ALIASES = {
    "alt": "Alt",
    "option": "Alt",
    "control": "Control",
    "ctrl": "Control",
    "meta": "Meta",
    "cmd": "Meta",
    "command": "Meta",
    "super": "Meta",
    "shift": "Shift",
    "controlormeta": "ControlOrMeta",
}
MODIFIER_KEYS = {
    "Alt": (18, "AltLeft"),
    "Control": (17, "ControlLeft"),
    "Meta": (91, "MetaLeft"),
    "Shift": (16, "ShiftLeft"),
}


@dataclass(frozen=True)
class KeyDef:
    key: str  # KeyboardEvent.key
    code: str  # KeyboardEvent.code
    key_code: int  # windowsVirtualKeyCode / keyCode
    text: str = ""  # what the key types, "" for keys that type nothing
    shifted: str = ""  # the character with Shift held (for punctuation and digits)
    location: int = 0


def _named() -> dict[str, KeyDef]:
    table = {
        "Enter": KeyDef("Enter", "Enter", 13, "\r"),
        "Tab": KeyDef("Tab", "Tab", 9),
        "Backspace": KeyDef("Backspace", "Backspace", 8),
        "Delete": KeyDef("Delete", "Delete", 46),
        "Escape": KeyDef("Escape", "Escape", 27),
        "Space": KeyDef(" ", "Space", 32, " "),
        "ArrowUp": KeyDef("ArrowUp", "ArrowUp", 38),
        "ArrowDown": KeyDef("ArrowDown", "ArrowDown", 40),
        "ArrowLeft": KeyDef("ArrowLeft", "ArrowLeft", 37),
        "ArrowRight": KeyDef("ArrowRight", "ArrowRight", 39),
        "Home": KeyDef("Home", "Home", 36),
        "End": KeyDef("End", "End", 35),
        "PageUp": KeyDef("PageUp", "PageUp", 33),
        "PageDown": KeyDef("PageDown", "PageDown", 34),
        "Insert": KeyDef("Insert", "Insert", 45),
        "CapsLock": KeyDef("CapsLock", "CapsLock", 20),
        "ContextMenu": KeyDef("ContextMenu", "ContextMenu", 93),
        "Pause": KeyDef("Pause", "Pause", 19),
        "PrintScreen": KeyDef("PrintScreen", "PrintScreen", 44),
        "NumLock": KeyDef("NumLock", "NumLock", 144),
        "ScrollLock": KeyDef("ScrollLock", "ScrollLock", 145),
    }
    for name, (key_code, code) in MODIFIER_KEYS.items():
        table[name] = KeyDef(name, code, key_code, location=1)
    for n in range(1, 25):
        table[f"F{n}"] = KeyDef(f"F{n}", f"F{n}", 111 + n)
    return table


def _characters() -> dict[str, KeyDef]:
    table: dict[str, KeyDef] = {}
    for ch in string.ascii_lowercase:
        upper = ch.upper()
        table[ch] = KeyDef(ch, f"Key{upper}", ord(upper), ch, upper)
        table[upper] = KeyDef(upper, f"Key{upper}", ord(upper), upper, upper)
    for digit, shifted in zip("0123456789", ")!@#$%^&*("):
        table[digit] = KeyDef(digit, f"Digit{digit}", ord(digit), digit, shifted)
        table[shifted] = KeyDef(shifted, f"Digit{digit}", ord(digit), shifted, shifted)
    punctuation = [
        ("-", "_", "Minus", 189),
        ("=", "+", "Equal", 187),
        ("[", "{", "BracketLeft", 219),
        ("]", "}", "BracketRight", 221),
        ("\\", "|", "Backslash", 220),
        (";", ":", "Semicolon", 186),
        ("'", '"', "Quote", 222),
        (",", "<", "Comma", 188),
        (".", ">", "Period", 190),
        ("/", "?", "Slash", 191),
        ("`", "~", "Backquote", 192),
    ]
    for plain, shifted, code, key_code in punctuation:
        table[plain] = KeyDef(plain, code, key_code, plain, shifted)
        table[shifted] = KeyDef(shifted, code, key_code, shifted, shifted)
    table[" "] = KeyDef(" ", "Space", 32, " ")
    table["\n"] = table["\r"] = KeyDef("Enter", "Enter", 13, "\r")
    table["\t"] = KeyDef("Tab", "Tab", 9)
    return table


NAMED = _named()
CHARACTERS = _characters()
_NAMED_LOWER = {name.lower(): name for name in NAMED}
_NAMED_LOWER.update(
    {
        "esc": "Escape",
        "return": "Enter",
        "del": "Delete",
        "up": "ArrowUp",
        "down": "ArrowDown",
        "left": "ArrowLeft",
        "right": "ArrowRight",
        "spacebar": "Space",
    }
)

SHIFTED_CHARS = frozenset(
    c
    for c, d in CHARACTERS.items()
    if d.text and d.text == d.shifted and not c.isdigit() and c not in string.ascii_lowercase
)


def control_or_meta() -> str:
    return "Meta" if sys.platform == "darwin" else "Control"


def key_def(name: str) -> KeyDef:
    """The definition of one key: a named key (`Enter`, `ArrowDown`, `F5`, case-insensitive) or a
    single character. Other characters type themselves with no key code."""
    if name in NAMED:
        return NAMED[name]
    if name in CHARACTERS:
        return CHARACTERS[name]
    if name.lower() in _NAMED_LOWER:
        return NAMED[_NAMED_LOWER[name.lower()]]
    if len(name) == 1:
        return KeyDef(name, "", 0, name)
    raise errors.ActInvalidRequest(
        f"key: unknown key {name!r}; use a key name such as Enter, Tab, "
        "ArrowDown, Escape, F5, a single character, or a chord like Control+A"
    )


def modifier_name(name: str) -> str | None:
    canonical = MODIFIER_ALIASES.get(name.lower())
    if canonical == "ControlOrMeta":
        return control_or_meta()
    return canonical


def modifier_mask(names) -> int:
    mask = 0
    for name in names:
        canonical = modifier_name(name)
        if canonical is None:
            raise errors.ActInvalidRequest(
                f"modifiers: unknown modifier {name!r}; use "
                "Alt, Control, ControlOrMeta, Meta or Shift"
            )
        mask |= MODIFIER_BITS[canonical]
    return mask


@dataclass(frozen=True)
class Chord:
    modifiers: tuple[str, ...]  # canonical modifier names, in press order
    key: KeyDef

    @property
    def mask(self) -> int:
        return modifier_mask(self.modifiers)


def parse_chord(text: str) -> Chord:
    """`Enter`, `Control+A`, `Shift+Tab`, `ControlOrMeta+Shift+ArrowLeft`, `+` (the plus key)."""
    if not isinstance(text, str) or not text:
        raise errors.ActInvalidRequest("key must be a non-empty string such as Enter or Control+A")
    if len(text) == 1:
        return Chord((), key_def(text))
    parts = text.split("+")
    if parts[-1] == "" and len(parts) >= 2:  # "Control++": the plus key itself
        parts = parts[:-2] + ["+"]
    *mods, last = parts
    canonical = []
    for mod in mods:
        name = modifier_name(mod.strip())
        if name is None:
            raise errors.ActInvalidRequest(
                f"key: {mod!r} in {text!r} is not a modifier "
                "(Alt, Control, ControlOrMeta, Meta, Shift)"
            )
        canonical.append(name)
    if len(last) == 1 and last.isalpha() and "Shift" not in canonical:
        last = last.lower()  # Control+A is the a key with Control held (e.key "a")
    last_mod = modifier_name(last.strip()) if mods else None
    if last_mod is not None and last_mod != "ControlOrMeta":
        return Chord(tuple(canonical), NAMED[last_mod])
    return Chord(tuple(canonical), key_def(last.strip() or last))


def key_event_params(key: KeyDef, mask: int) -> dict:
    """The shared fields of the keyDown/keyUp events of `key` with modifier bits `mask`."""
    shift = bool(mask & MODIFIER_BITS["Shift"])
    text = key.shifted if shift and key.shifted else key.text
    if mask & ~MODIFIER_BITS["Shift"]:
        text = ""  # with Control/Alt/Meta held a key is a shortcut and types nothing
    shown = text if (shift and key.shifted and len(key.key) == 1) else key.key
    params = {
        "key": shown,
        "code": key.code,
        "windowsVirtualKeyCode": key.key_code,
        "nativeVirtualKeyCode": key.key_code,
        "modifiers": mask,
        "location": key.location,
    }
    if text:
        params["text"] = params["unmodifiedText"] = text
    return params
