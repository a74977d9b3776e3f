"""Reading typed values out of JSON bodies and query strings. Clients (shells, agents) often send
booleans and numbers as strings ("true", "25"): those are accepted; anything else raises `error`
(by default a 400 INVALID_REQUEST) naming the field. A leaf module: the server reads requests with
it, the page reads values whose type only the page knows (a fill value for a checkbox)."""

from __future__ import annotations

import math
from typing import Any

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


def as_int(
    value: Any,
    field: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    error=errors.InvalidRequest,
) -> int:
    number = _number(value, field, error)
    if number != int(number):
        raise error(f"{field} must be a whole number, not {value!r}")
    return _bounded(int(number), field, minimum, maximum, error)


def as_number(
    value: Any,
    field: str,
    *,
    minimum: float | None = None,
    maximum: float | None = None,
    error=errors.InvalidRequest,
) -> float:
    return _bounded(_number(value, field, error), field, minimum, maximum, error)


def as_str(
    value: Any, field: str, *, allow_empty: bool = False, error=errors.InvalidRequest
) -> str:
    if not isinstance(value, str) or (not allow_empty and not value):
        raise error(f"{field} must be a {'' if allow_empty else 'non-empty '}string")
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
    if not math.isfinite(number):  # JSON bodies may carry Infinity/NaN; "1e999" overflows
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
