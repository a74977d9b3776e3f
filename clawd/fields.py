"""The API's one field vocabulary. A `Reader` reads (and coerces) one value and knows the JSON
Schema of what it takes and how to say it in words; a route's fields (`Field`: `req`, `opt`,
`alias`, declared in clawd/route_fields.py) and POST /act's fields (`Param`, clawd/acts.py) hold
the same readers, so a new value type is one reader here. `read_fields` checks a body or query
string against a route's fields. A leaf module: the server reads requests with it, the CLI, the
client, the agent tool, MCP and the docs make their shapes from the same declarations."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clawd import errors, keys, ref_syntax
from clawd.coerce import FALSE, TRUE, as_bool, as_int, as_list, as_number, as_object, as_str  # noqa: F401

# (value, field name as the request spelt it, error class to raise) -> the value as read
ReadFn = Callable[[Any, str, type], Any]


@dataclass(frozen=True)
class Reader:
    """A field's value read (and coerced) by `read(value, name, error)`, which raises `error`
    (a 400) naming the field; `schema` is the JSON Schema of the values it takes; `word` says
    what it takes where the schema's type says too little ("key or chord")."""

    read: ReadFn
    schema: Mapping[str, Any] = field(default_factory=dict)
    word: str = ""

    def __call__(self, value: Any, name: str, error: type = errors.InvalidRequest) -> Any:
        return self.read(value, name, error)

    def words(self) -> str:
        """What it takes, in words, with its choices and bounds (docs/api.md, the man page)."""
        schema = self.schema
        if "enum" in schema:
            head = f"{self.word or 'one of'} {', '.join(str(v) for v in schema['enum'])}"
        else:
            kind = schema.get("type", "")
            head = self.word or (" or ".join(kind) if isinstance(kind, list) else kind)
        bounds = [f"{k} {schema[k]:g}" for k in ("minimum", "maximum") if k in schema]
        return ", ".join(w for w in (head, *bounds) if w)


_STRING = {"type": "string"}
STR = Reader(lambda v, f, e: as_str(v, f, error=e), _STRING)  # a non-empty string
TEXT = Reader(lambda v, f, e: as_str(v, f, allow_empty=True, error=e), _STRING)  # empty too
BOOL = Reader(lambda v, f, e: as_bool(v, f, error=e), {"type": "boolean"})
LIST = Reader(lambda v, f, e: as_list(v, f, error=e), {"type": "array"})
ANY = Reader(lambda v, f, e: v, {})  # judged by the endpoint (a cookie, a header map)


def integer(minimum: int | None = None, maximum: int | None = None) -> Reader:
    return Reader(
        lambda v, f, e: as_int(v, f, minimum=minimum, maximum=maximum, error=e),
        _bounds({"type": "integer"}, minimum, maximum),
    )


def number(minimum: float | None = None, maximum: float | None = None) -> Reader:
    return Reader(
        lambda v, f, e: as_number(v, f, minimum=minimum, maximum=maximum, error=e),
        _bounds({"type": "number"}, minimum, maximum),
    )


def choice(*choices: str) -> Reader:
    def read(value: Any, name: str, error: type) -> str:
        if not isinstance(value, str) or value not in choices:
            raise error(f"{name} must be one of {', '.join(choices)}; not {value!r}")
        return value

    return Reader(read, {"type": "string", "enum": list(choices)})


# What a CSS selector has and a ref never does (a ref is e12, f1e3, ax4, 12, @e12, ref=e12).
_CSS_HINT = re.compile(r"[#.\[\]:>~+*()=\"' ]|^[a-zA-Z]+$")


def _read_ref(value: Any, name: str, error: type) -> str:
    ref = as_str(value, name, error=error).strip()
    if not ref_syntax.is_ref(ref) and _CSS_HINT.search(ref):
        raise errors.ActSelectorUnsupported(
            f"{name}: {ref!r} looks like a CSS selector; actions take refs (e12) from GET /snapshot"
        )
    return ref


def _read_key(value: Any, name: str, error: type) -> str:
    keys.parse_chord(as_str(value, name, error=error))
    return value


def _read_strings(value: Any, name: str, error: type) -> list[str]:
    values = [value] if isinstance(value, str) else as_list(value, name, error=error)
    if not values or not all(isinstance(v, str) for v in values):
        raise error(f"{name} must be a non-empty list of strings (option values or labels)")
    return values


REF = Reader(_read_ref, _STRING, "element ref")  # a CSS selector is refused
KEY = Reader(_read_key, _STRING, "key or chord")  # Enter, Control+A
STRINGS = Reader(_read_strings, {"type": "array", "items": _STRING}, "list of strings")


def _bounds(schema: dict, minimum, maximum) -> dict:
    bounds = {"minimum": minimum, "maximum": maximum}
    return {**schema, **{k: v for k, v in bounds.items() if v is not None}}


@dataclass(frozen=True)
class Field:
    read: Reader | None
    required: bool = False
    alias_of: str | None = None  # another name for that field (OpenClaw's, docs/architecture.md)
    help: str = ""
    # what the schema says beyond the reader's type: choices or a range the endpoint judges
    # with a code of its own (web_search's count), so the reader must not refuse them first
    documented: Mapping[str, Any] = field(default_factory=dict)

    def schema(self) -> dict:
        """This field's JSON Schema, its help as the description."""
        out = {**(self.read.schema if self.read else {}), **self.documented}
        return {**out, "description": self.help} if self.help else out


def req(read: Reader, help: str = "", **documented: Any) -> Field:
    return Field(read, required=True, help=help, documented=documented)


def opt(read: Reader, help: str = "", **documented: Any) -> Field:
    return Field(read, help=help, documented=documented)


def alias(target: str) -> Field:
    """A second name for `target`: read by target's reader (a bad value is the same 400, naming
    the name that was sent); giving both names with different values is a 400 too."""
    return Field(None, alias_of=target)


COMMON = {"profile"}


def read_fields(data: dict, spec: dict[str, Field], where: str = "body") -> dict:
    """Check `data` against `spec`: unknown keys and missing required ones are errors; values are
    read (and coerced) by each field's reader. Returns the read values of the keys present."""
    unknown = sorted(set(data) - set(spec) - COMMON)
    if unknown:
        raise errors.InvalidRequest(
            f"unknown {where} field {unknown[0]!r}; allowed: {', '.join(sorted(spec)) or 'none'}"
        )
    out = {}
    for name, field_ in spec.items():
        if field_.alias_of is not None:
            continue
        given = [(n, data[n]) for n in (name, *_aliases(spec, name)) if data.get(n) is not None]
        if not given:
            if field_.required:
                raise errors.InvalidRequest(f"{where} field {name!r} is required")
            continue
        values = [(n, field_.read(v, n)) for n, v in given]
        if any(v != values[0][1] for _, v in values[1:]):
            raise errors.InvalidRequest(
                f"{where} fields {' and '.join(repr(n) for n, _ in values)} name the "
                "same thing with different values; give one"
            )
        out[name] = values[0][1]
    return out


def _aliases(spec: dict[str, Field], target: str) -> list[str]:
    return [name for name, field_ in spec.items() if field_.alias_of == target]
