"""How a route's request fields are declared and read: a `Field` (`req`, `opt`, `alias`) holds a
`Reader` (a coercer from clawd/coerce.py with the JSON Schema of what it takes) and its help text;
`read_fields` checks a body or query string against a route's fields. A leaf module: the server
reads requests with it and the agent tool and MCP server make their JSON Schemas from the same
declarations (clawd/route_fields.py)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clawd import errors
from clawd.coerce import FALSE, TRUE, as_bool, as_int, as_list, as_number, as_object, as_str  # noqa: F401


@dataclass(frozen=True)
class Reader:
    """A field's value read (and coerced) by `read(value, name)`, which raises a 400 naming the
    field; `schema` is the JSON Schema of the values it takes."""

    read: Callable[[Any, str], Any]
    schema: Mapping[str, Any] = field(default_factory=dict)

    def __call__(self, value: Any, name: str) -> Any:
        return self.read(value, name)


STR = Reader(as_str, {"type": "string"})  # a non-empty string
TEXT = Reader(lambda v, f: as_str(v, f, allow_empty=True), {"type": "string"})  # empty too
BOOL = Reader(as_bool, {"type": "boolean"})
LIST = Reader(as_list, {"type": "array"})
ANY = Reader(lambda v, f: v, {})  # judged by the endpoint (a cookie, a header map)


def integer(minimum: int | None = None, maximum: int | None = None) -> Reader:
    return Reader(
        lambda v, f: as_int(v, f, minimum=minimum, maximum=maximum),
        _bounds({"type": "integer"}, minimum, maximum),
    )


def number(minimum: float | None = None, maximum: float | None = None) -> Reader:
    return Reader(
        lambda v, f: as_number(v, f, minimum=minimum, maximum=maximum),
        _bounds({"type": "number"}, minimum, maximum),
    )


def choice(*choices: str) -> Reader:
    def read(value: Any, name: str) -> str:
        if value not in choices:
            raise errors.InvalidRequest(
                f"{name} must be one of {', '.join(choices)}; not {value!r}"
            )
        return value

    return Reader(read, {"type": "string", "enum": list(choices)})


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
