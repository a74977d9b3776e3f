"""Deadlines: a point on time.monotonic()'s clock that work must end by, and the seconds left
until it. A leaf module: every layer may use it."""

from __future__ import annotations

import time


def at(seconds: float) -> float:
    """The deadline `seconds` from now."""
    return time.monotonic() + seconds


def remaining(deadline: float | None, *, at_least: float = 0.0) -> float | None:
    """Seconds left until `deadline`, never below `at_least` (a floor for calls that need some
    time to answer at all); None for no deadline."""
    if deadline is None:
        return None
    return max(at_least, deadline - time.monotonic())


def left_or_raise(deadline: float, error: type[Exception], message: str) -> float:
    """Seconds left until `deadline`; with none left, the caller's timeout: `error(message)`."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise error(message)
    return left


def passed(deadline: float) -> bool:
    return time.monotonic() >= deadline
