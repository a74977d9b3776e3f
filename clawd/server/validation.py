"""Reading typed values out of JSON bodies and query strings. Clients (shells, agents) often send
booleans and numbers as strings ("true", "25"): those are accepted; anything else is a 400 that
names the field."""
from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

from clawd import errors

TRUE = {"true", "1", "yes", "on"}
FALSE = {"false", "0", "no", "off", ""}


def as_bool(value: Any, field: str, error=errors.InvalidRequest) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in TRUE | FALSE:
        return value.strip().lower() in TRUE
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise error(f"{field} must be a boolean, not {value!r}")


def as_int(value: Any, field: str, *, minimum: int | None = None, maximum: int | None = None,
           error=errors.InvalidRequest) -> int:
    number = _number(value, field, error)
    if number != int(number):
        raise error(f"{field} must be a whole number, not {value!r}")
    return _bounded(int(number), field, minimum, maximum, error)


def as_number(value: Any, field: str, *, minimum: float | None = None, maximum: float | None = None,
              error=errors.InvalidRequest) -> float:
    return _bounded(_number(value, field, error), field, minimum, maximum, error)


def as_str(value: Any, field: str, *, allow_empty: bool = False, error=errors.InvalidRequest) -> str:
    if not isinstance(value, str) or (not allow_empty and not value):
        raise error(f"{field} must be a non-empty string" if not allow_empty else f"{field} must be a string")
    return value


def as_list(value: Any, field: str, error=errors.InvalidRequest) -> list:
    if not isinstance(value, list):
        raise error(f"{field} must be a list")
    return value


def as_object(value: Any, field: str, error=errors.InvalidRequest) -> dict:
    if not isinstance(value, dict):
        raise error(f"{field} must be an object")
    return value


def _number(value: Any, field: str, error) -> float:
    number = _parse_number(value)
    if number is None:
        raise error(f"{field} must be a number, not {value!r}")
    if not math.isfinite(number):   # JSON bodies may carry Infinity/NaN; "1e999" overflows
        raise error(f"{field} must be a finite number, not {value!r}")
    return number


def _parse_number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str) and "_" not in value:
        try:
            return float(value.strip()) if any(c in value for c in ".eEnN") else int(value.strip())
        except ValueError:
            return None
    return None


def _bounded(number, field, minimum, maximum, error):
    if minimum is not None and number < minimum:
        raise error(f"{field} must be at least {minimum}, not {number}")
    if maximum is not None and number > maximum:
        raise error(f"{field} must be at most {maximum}, not {number}")
    return number


@dataclass(frozen=True)
class Field:
    read: Callable[[Any, str], Any] | None
    required: bool = False
    alias_of: str | None = None     # another name for that field (OpenClaw's, DESIGN.md §17)


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
        raise errors.InvalidRequest(f"unknown {where} field {unknown[0]!r}; allowed: {', '.join(sorted(spec)) or 'none'}")
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
            raise errors.InvalidRequest(f"{where} fields {' and '.join(repr(n) for n, _ in values)} name the "
                                        "same thing with different values; give one")
        out[name] = values[0][1]
    return out


def _aliases(spec: dict[str, Field], target: str) -> list[str]:
    return [name for name, field in spec.items() if field.alias_of == target]
