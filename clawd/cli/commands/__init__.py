"""CLI command handlers, grouped by resource. A handler is `(Invocation) -> int | None` (None is 0).

Handlers print through cli/output.py and raise; cli/main.py turns exceptions into exit statuses.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from clawd.client import Client
    from clawd.config.model import Config


class UsageError(Exception):
    """The arguments parse but do not make sense together (exit status 2, like argparse)."""


def json_value(text: str, flag: str, kind: type, shape: str):
    """A flag's JSON value, of the kind the command wants; else a usage error naming the flag."""
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"{flag} is not JSON: {exc}") from None
    if not isinstance(value, kind):
        raise UsageError(f"{flag} must be {shape}")
    return value


def either(positional, flag, name: str, flag_name: str):
    """A value written as a word or as its flag (OpenClaw's spelling and clawd's); both with
    different values is a usage error."""
    if positional is not None and flag is not None and positional != flag:
        raise UsageError(
            f"{name} is given twice ({positional!r} and {flag_name} {flag!r}); give one"
        )
    return positional if positional is not None else flag


@dataclass
class Invocation:
    """One run of the CLI: the parsed arguments, where to print, and the client and config
    on demand."""

    args: argparse.Namespace
    stdout: TextIO
    stderr: TextIO
    make_client: Callable[[], Client] = field(repr=False)
    load_config: Callable[[], Config] = field(repr=False)

    @property
    def json(self) -> bool:
        return bool(getattr(self.args, "json", False))

    @functools.cached_property
    def config(self) -> Config:
        return self.load_config()

    @functools.cached_property
    def client(self) -> Client:
        return self.make_client()

    def target(self) -> str | None:
        """The --target of a per-tab command."""
        return getattr(self.args, "target", None)
