"""The fields a route reads out of its JSON body or query string (`Field`, `req`, `opt`, `alias`,
`read_fields`); the typed readers themselves are clawd/coerce.py's, importable from here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from clawd import errors
from clawd.coerce import FALSE, TRUE, as_bool, as_int, as_list, as_number, as_object, as_str  # noqa: F401


@dataclass(frozen=True)
class Field:
    read: Callable[[Any, str], Any] | None
    required: bool = False
    alias_of: str | None = None  # another name for that field (OpenClaw's, DESIGN.md §17)


def req(read: Callable[[Any, str], Any]) -> Field:
    return Field(read, required=True)


def opt(read: Callable[[Any, str], Any]) -> Field:
    return Field(read)


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
    for name, field in spec.items():
        if field.alias_of is not None:
            continue
        given = [(n, data[n]) for n in (name, *_aliases(spec, name)) if data.get(n) is not None]
        if not given:
            if field.required:
                raise errors.InvalidRequest(f"{where} field {name!r} is required")
            continue
        values = [(n, field.read(v, n)) for n, v in given]
        if any(v != values[0][1] for _, v in values[1:]):
            raise errors.InvalidRequest(
                f"{where} fields {' and '.join(repr(n) for n, _ in values)} name the "
                "same thing with different values; give one"
            )
        out[name] = values[0][1]
    return out


def _aliases(spec: dict[str, Field], target: str) -> list[str]:
    return [name for name, field in spec.items() if field.alias_of == target]
