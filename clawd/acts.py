"""The act kinds of POST /act (docs/actions.md) as one table: every kind with its fields (type,
limits, whether required, help text, how the command line writes it) and the page function that
runs it. The server validates with it; the agent tool, MCP, the client, the CLI, its man page and
the answer renderer are made from it. A leaf module: it declares, it never touches a page.

Adding a kind: a `Kind(...)` line in KINDS and its page function in clawd/page/act/."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from typing import Any

from clawd import fields, keys
from clawd.fields import (
    BOOL,
    KEY,
    STR,
    STRINGS,
    TEXT,
    Reader,
    as_int,
    as_list,
    as_object,
    choice,
    integer,
    number,
)

MIN_TIMEOUT_MS, MAX_TIMEOUT_MS = 500, 60000
MAX_BATCH, MAX_DEPTH = 100, 5
BUTTONS = ("left", "right", "middle")
MODIFIERS = ("Alt", "Control", "ControlOrMeta", "Meta", "Shift")
LOAD_STATES = ("load", "domcontentloaded", "networkidle")
FILL_TYPES = (
    "checkbox",
    "color",
    "combobox",
    "contenteditable",
    "date",
    "datetime-local",
    "email",
    "listbox",
    "month",
    "number",
    "password",
    "radio",
    "range",
    "search",
    "searchbox",
    "select",
    "slider",
    "switch",
    "tel",
    "text",
    "textarea",
    "textbox",
    "time",
    "url",
    "week",
)


# -- the readers of the act table's own value types (clawd/fields.py has the common ones) --------
def _read_modifiers(value: Any, name: str, error: type) -> list:
    names = (
        [part.strip() for part in value.split("+") if part.strip()]
        if isinstance(value, str)
        else as_list(value, name, error=error)
    )
    for modifier in names:
        if not isinstance(modifier, str) or keys.modifier_name(modifier) is None:
            raise error(
                f"{name}: unknown modifier {modifier!r}; use {', '.join(MODIFIERS[:-1])} or "
                f"{MODIFIERS[-1]}"
            )
    return names


def _read_fill_fields(value: Any, name: str, error: type) -> list[dict]:
    items = as_list(value, name, error=error)
    if not items:
        raise error(f"{name} must list at least one {{ref, value}}")
    return [_read_fill_field(item, f"{name}[{i}]", error) for i, item in enumerate(items)]


def _read_fill_field(item: Any, name: str, error: type) -> dict:
    item = as_object(item, name, error=error)
    unknown = sorted(set(item) - {"ref", "type", "value"})
    if unknown:
        raise error(f"{name}: unknown field {unknown[0]!r}; allowed: ref, type, value")
    if "ref" not in item or "value" not in item:
        raise error(f"{name}.{'ref' if 'ref' not in item else 'value'} is required")
    kind = item.get("type")
    if kind is not None and kind not in FILL_TYPES:
        raise error(f"{name}.type {kind!r} is not one of {', '.join(FILL_TYPES)}")
    value = item["value"]
    if not isinstance(value, (str, bool, int, float, list)):
        raise error(f"{name}.value must be a string, a boolean or a list of strings")
    return {"ref": fields.REF(item["ref"], f"{name}.ref", error), "type": kind, "value": value}


def _read_timeout(value: Any, name: str, error: type) -> int:
    ms = as_int(value, name, minimum=0, error=error)
    return min(MAX_TIMEOUT_MS, max(MIN_TIMEOUT_MS, ms))


_STRING = {"type": "string"}
MODIFIER_LIST = Reader(
    _read_modifiers,
    {"type": "array", "items": {"type": "string", "enum": list(MODIFIERS)}},
    f"list of {', '.join(MODIFIERS)}",
)
FILL_FIELDS = Reader(
    _read_fill_fields,
    {
        "type": "array",
        "items": {
            "type": "object",
            "required": ["ref", "value"],
            "properties": {
                "ref": _STRING,
                "type": _STRING,
                "value": {"type": ["string", "boolean", "number", "array"]},
            },
        },
    },
    "list of {ref, type, value}",
)
ACTIONS = Reader(
    lambda v, f, e: as_list(v, f, error=e),
    {"type": "array", "items": {"type": "object"}},
    "list of act requests",
)
TIMEOUT = Reader(_read_timeout, {"type": "integer"}, "milliseconds")  # clamped to MIN..MAX


@dataclass(frozen=True)
class Cli:
    """How the command line writes a field: a word (`click REF`) or a flag (`--delay-ms MS`).
    A flag with `word` may also be written as a word (`wait CSS` = `wait --selector CSS`)."""

    flag: str | None = None
    metavar: str | None = None
    word: str | None = None


@dataclass(frozen=True)
class Param:
    """One field of an act request, as the API names it, read by its reader (clawd/fields.py)."""

    name: str
    read: Reader
    help: str
    required: bool = False
    cli: Cli | None = None  # None: not on the command line
    script: bool = False  # runs page JavaScript: refused when evaluateEnabled is false

    def schema(self) -> dict:
        """This field's JSON Schema, without a description."""
        return dict(self.read.schema)


@dataclass(frozen=True)
class Kind:
    """One act kind: its fields, the page function that runs it ("module.function" in
    clawd/page/act/; None: the batch runner itself), its CLI command (None: none), the fields its
    answer adds to the page's state (printed by the renderers), and whether the client has a
    method for it (not `close`: Client.close closes the client)."""

    name: str
    help: str
    params: tuple[Param, ...]
    runs: str | None
    command: str | None = None
    answer: tuple[str, ...] = ()
    needs_one_of: tuple[str, ...] = ()
    method: bool = True

    def param(self, name: str) -> Param | None:
        return self._params_by_name.get(name)

    @functools.cached_property
    def _params_by_name(self) -> dict[str, Param]:
        """Its own fields, then the common ones (a name in both is its own)."""
        return {p.name: p for p in (*reversed(COMMON), *reversed(self.params))}

    @property
    def method_name(self) -> str:
        """The client's method for this kind: clickCoords -> click_coords."""
        return snake(self.name)


@dataclass
class Action:
    """A validated act request: its kind, its fields as read, and a batch's actions."""

    kind: str
    args: dict[str, Any]
    children: list[Action] = field(default_factory=list)


def snake(name: str) -> str:
    """The Python spelling of a field name: startRef -> start_ref."""
    return re.sub(r"(?<=[a-z0-9])([A-Z])", lambda m: "_" + m[1].lower(), name)


def camel(name: str) -> str:
    """The API's spelling of a Python name: start_ref -> startRef."""
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _ref(
    help: str = "element ref from the latest snapshot (e12)",
    metavar: str = "REF",
    name: str = "ref",
) -> Param:
    return Param(name, fields.REF, help, required=True, cli=Cli(metavar=metavar))


def _size(name: str, metavar: str) -> Param:
    return Param(
        name,
        integer(1, 20000),
        f"viewport {name} in CSS pixels",
        required=True,
        cli=Cli(metavar=metavar),
    )


REF = _ref()
COMMON = (
    Param("kind", STR, "what to do"),
    Param("targetId", STR, "the tab (default: the tab used last)"),
    Param(
        "timeoutMs",
        TIMEOUT,
        "give up after this many milliseconds (default: browser.actionTimeoutMs)",
        cli=Cli("--timeout-ms", "MS"),
    ),
    Param("profile", STR, "browser profile"),
)
_CLICK = (
    Param("button", choice(*BUTTONS), "mouse button (default: left)", cli=Cli("--button")),
    Param("modifiers", MODIFIER_LIST, "keys held during the click", cli=Cli("--modifiers", "KEY")),
    Param("doubleClick", BOOL, "double-click", cli=Cli("--double")),
    Param(
        "delayMs",
        integer(0, 5000),
        "milliseconds between mouse down and up",
        cli=Cli("--delay-ms", "MS"),
    ),
)
_WAIT = (  # in the order page/act/waits.py waits for them
    Param(
        "timeMs",
        integer(0, 30000),
        "wait this many milliseconds",
        cli=Cli("--time-ms", "MS"),
    ),
    Param("text", TEXT, "until this text appears on the page", cli=Cli("--text", "TEXT")),
    Param(
        "textGone", TEXT, "until this text is gone from the page", cli=Cli("--text-gone", "TEXT")
    ),
    Param(
        "selector",
        STR,
        "until an element matches this CSS selector",
        cli=Cli("--selector", "CSS", word="CSS"),
    ),
    Param("url", STR, "until the page URL matches this glob", cli=Cli("--url", "GLOB")),
    Param(
        "loadState",
        choice(*LOAD_STATES),
        "until the page reaches this load state",
        cli=Cli("--load-state"),
    ),
    Param(
        "fn",
        STR,
        "until this JavaScript function returns a truthy value",
        script=True,
        cli=Cli("--fn", "JS"),
    ),
)

KINDS: dict[str, Kind] = {
    kind.name: kind
    for kind in (
        Kind("click", "click an element", (REF, *_CLICK), runs="actions.click", command="click"),
        Kind(
            "clickCoords",
            "click at viewport coordinates",
            (
                Param(
                    "x",
                    number(0),
                    "CSS pixels from the viewport's left edge",
                    required=True,
                    cli=Cli(metavar="X"),
                ),
                Param(
                    "y",
                    number(0),
                    "CSS pixels from the viewport's top edge",
                    required=True,
                    cli=Cli(metavar="Y"),
                ),
                *_CLICK,
            ),
            runs="actions.click_coords",
            command="click-coords",
        ),
        Kind(
            "type",
            "type text into an element, replacing its text",
            (
                REF,
                Param("text", TEXT, "text to type", required=True, cli=Cli(metavar="TEXT")),
                Param("submit", BOOL, "press Enter afterwards", cli=Cli("--submit")),
                Param(
                    "slowly",
                    BOOL,
                    "one key at a time, for pages that listen to keys",
                    cli=Cli("--slowly"),
                ),
            ),
            runs="actions.type_text",
            command="type",
        ),
        Kind(
            "press",
            "press a key or chord in the focused element",
            (
                Param(
                    "key",
                    KEY,
                    "key or chord such as Enter, Tab, ArrowDown, Control+A",
                    required=True,
                    cli=Cli(metavar="KEY"),
                ),
                Param("ref", fields.REF, "focus this element first", cli=Cli("--ref", "REF")),
                Param(
                    "delayMs",
                    integer(0, 5000),
                    "milliseconds between keydown and keyup",
                    cli=Cli("--delay-ms", "MS"),
                ),
            ),
            runs="actions.press",
            command="press",
        ),
        Kind(
            "hover", "move the mouse over an element", (REF,), runs="actions.hover", command="hover"
        ),
        Kind(
            "scrollIntoView",
            "scroll an element into view",
            (REF,),
            runs="actions.scroll_into_view",
            command="scrollintoview",
        ),
        Kind(
            "drag",
            "drag one element onto another",
            (
                _ref("ref of the element to drag", "START", "startRef"),
                _ref("ref of the element to drop on", "END", "endRef"),
            ),
            runs="actions.drag",
            command="drag",
        ),
        Kind(
            "select",
            "choose options of a select element",
            (
                REF,
                Param(
                    "values",
                    STRINGS,
                    "option values or labels to choose",
                    required=True,
                    cli=Cli(metavar="VALUE"),
                ),
            ),
            runs="actions.select",
            command="select",
            answer=("selected",),
        ),
        Kind(
            "check",
            "check a checkbox, radio or switch; no click when it already is",
            (REF,),
            runs="forms.check",
            command="check",
            answer=("checked", "changed"),
        ),
        Kind(
            "uncheck",
            "uncheck a checkbox or switch; no click when it already is",
            (REF,),
            runs="forms.check",
            command="uncheck",
            answer=("checked", "changed"),
        ),
        Kind(
            "fill",
            "fill several form fields at once",
            (
                Param(
                    "fields",
                    FILL_FIELDS,
                    "the fields, [{ref, type?, value}]: checkboxes and radios take true or false",
                    required=True,
                    cli=Cli("--fields-json", "JSON", word="REF=VALUE"),
                ),
            ),
            runs="actions.fill",
            command="fill",
            answer=("filled",),
        ),
        Kind(
            "resize",
            "resize the page's viewport",
            (_size("width", "W"), _size("height", "H")),
            runs="actions.resize",
            command="resize",
            answer=("viewport",),
        ),
        Kind(
            "wait",
            "wait for conditions, in the order listed",
            _WAIT,
            runs="actions.wait",
            command="wait",
            answer=("waited",),
            needs_one_of=tuple(p.name for p in _WAIT),
        ),
        Kind(
            "evaluate",
            "run a JavaScript function in the page and give back its result",
            (
                Param(
                    "fn",
                    STR,
                    "the function to run, such as '() => document.title'",
                    required=True,
                    script=True,
                    cli=Cli("--fn", "FN", word="FN"),
                ),
                Param(
                    "ref", fields.REF, "pass this element to the function", cli=Cli("--ref", "REF")
                ),
            ),
            runs="actions.evaluate",
            command="evaluate",
            answer=("result",),
        ),
        Kind("close", "close the tab", (), runs="actions.close", method=False),
        Kind(
            "batch",
            "run several act requests in order, on one tab",
            (
                Param(
                    "actions",
                    ACTIONS,
                    f"act requests ({{kind, ...}}), at most {MAX_BATCH}, nested "
                    f"at most {MAX_DEPTH} deep",
                    required=True,
                ),
                Param("stopOnError", BOOL, "stop at the first failure (default true)"),
            ),
            runs=None,
        ),
    )
}

ANSWER_FIELDS = tuple(dict.fromkeys(name for kind in KINDS.values() for name in kind.answer))


def params_named(name: str) -> list[tuple[Kind, Param]]:
    """Every kind that has a field of this name, with that field."""
    return [(kind, p) for kind in KINDS.values() for p in kind.params if p.name == name]


def field_names() -> list[str]:
    """Every field name of every kind, common ones first, each once, in table order."""
    names = [p.name for p in COMMON]
    for kind in KINDS.values():
        names += [p.name for p in kind.params if p.name not in names]
    return names
