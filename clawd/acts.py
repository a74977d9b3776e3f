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

# The value types a field may have, as JSON Schema. The server has a reader for each
# (clawd/server/act_request.py) and the CLI a way to write each (clawd/cli/parser.py).
_STRING = {"type": "string"}
TYPES: dict[str, dict] = {
    "ref": _STRING,  # an element ref (e12); a CSS selector is refused
    "string": _STRING,  # a non-empty string
    "text": _STRING,  # any string, empty included
    "key": _STRING,  # a key or chord: Enter, Control+A
    "boolean": {"type": "boolean"},
    "integer": {"type": "integer"},
    "number": {"type": "number"},
    "choice": _STRING,  # one of the field's choices
    "modifiers": {"type": "array", "items": {"type": "string", "enum": list(MODIFIERS)}},
    "strings": {"type": "array", "items": _STRING},
    "fields": {
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
    "actions": {"type": "array", "items": {"type": "object"}},
    "timeout": {"type": "integer"},  # milliseconds, clamped to MIN..MAX_TIMEOUT_MS
}


@dataclass(frozen=True)
class Cli:
    """How the command line writes a field: a word (`click REF`) or a flag (`--delay-ms MS`).
    A flag with `word` may also be written as a word (`wait CSS` = `wait --selector CSS`)."""

    flag: str | None = None
    metavar: str | None = None
    word: str | None = None


@dataclass(frozen=True)
class Param:
    """One field of an act request, as the API names it."""

    name: str
    type: str
    help: str
    required: bool = False
    minimum: float | None = None
    maximum: float | None = None
    choices: tuple[str, ...] = ()
    cli: Cli | None = None  # None: not on the command line
    script: bool = False  # runs page JavaScript: refused when evaluateEnabled is false

    def schema(self) -> dict:
        """This field's JSON Schema, without a description."""
        out = dict(TYPES[self.type])
        if self.choices:
            out["enum"] = list(self.choices)
        for key in ("minimum", "maximum"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        return out


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
    return Param(name, "ref", help, required=True, cli=Cli(metavar=metavar))


def _size(name: str, metavar: str) -> Param:
    return Param(
        name,
        "integer",
        f"viewport {name} in CSS pixels",
        required=True,
        minimum=1,
        maximum=20000,
        cli=Cli(metavar=metavar),
    )


REF = _ref()
COMMON = (
    Param("kind", "string", "what to do"),
    Param("targetId", "string", "the tab (default: the tab used last)"),
    Param(
        "timeoutMs",
        "timeout",
        "give up after this many milliseconds (default: browser.actionTimeoutMs)",
        cli=Cli("--timeout-ms", "MS"),
    ),
    Param("profile", "string", "browser profile"),
)
_CLICK = (
    Param("button", "choice", "mouse button (default: left)", choices=BUTTONS, cli=Cli("--button")),
    Param("modifiers", "modifiers", "keys held during the click", cli=Cli("--modifiers", "KEY")),
    Param("doubleClick", "boolean", "double-click", cli=Cli("--double")),
    Param(
        "delayMs",
        "integer",
        "milliseconds between mouse down and up",
        minimum=0,
        maximum=5000,
        cli=Cli("--delay-ms", "MS"),
    ),
)
_WAIT = (  # in the order page/act/waits.py waits for them
    Param(
        "timeMs",
        "integer",
        "wait this many milliseconds",
        minimum=0,
        maximum=30000,
        cli=Cli("--time-ms", "MS"),
    ),
    Param("text", "text", "until this text appears on the page", cli=Cli("--text", "TEXT")),
    Param(
        "textGone", "text", "until this text is gone from the page", cli=Cli("--text-gone", "TEXT")
    ),
    Param(
        "selector",
        "string",
        "until an element matches this CSS selector",
        cli=Cli("--selector", "CSS", word="CSS"),
    ),
    Param("url", "string", "until the page URL matches this glob", cli=Cli("--url", "GLOB")),
    Param(
        "loadState",
        "choice",
        "until the page reaches this load state",
        choices=LOAD_STATES,
        cli=Cli("--load-state"),
    ),
    Param(
        "fn",
        "string",
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
                    "number",
                    "CSS pixels from the viewport's left edge",
                    required=True,
                    minimum=0,
                    cli=Cli(metavar="X"),
                ),
                Param(
                    "y",
                    "number",
                    "CSS pixels from the viewport's top edge",
                    required=True,
                    minimum=0,
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
                Param("text", "text", "text to type", required=True, cli=Cli(metavar="TEXT")),
                Param("submit", "boolean", "press Enter afterwards", cli=Cli("--submit")),
                Param(
                    "slowly",
                    "boolean",
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
                    "key",
                    "key or chord such as Enter, Tab, ArrowDown, Control+A",
                    required=True,
                    cli=Cli(metavar="KEY"),
                ),
                Param("ref", "ref", "focus this element first", cli=Cli("--ref", "REF")),
                Param(
                    "delayMs",
                    "integer",
                    "milliseconds between keydown and keyup",
                    minimum=0,
                    maximum=5000,
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
                    "strings",
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
                    "fields",
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
                    "string",
                    "the function to run, such as '() => document.title'",
                    required=True,
                    script=True,
                    cli=Cli("--fn", "FN", word="FN"),
                ),
                Param("ref", "ref", "pass this element to the function", cli=Cli("--ref", "REF")),
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
                    "actions",
                    f"act requests ({{kind, ...}}), at most {MAX_BATCH}, nested "
                    f"at most {MAX_DEPTH} deep",
                    required=True,
                ),
                Param("stopOnError", "boolean", "stop at the first failure (default true)"),
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
