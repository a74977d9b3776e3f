"""CLI commands, grouped by resource: each module declares its commands' flags (`add_parsers(sub)`)
beside their handlers. A handler is `(Invocation) -> int | None` (None is 0).

Handlers print through cli/output.py and raise; cli/main.py turns exceptions into exit statuses.
"""

from __future__ import annotations

import argparse
import functools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from clawd import route_fields

if TYPE_CHECKING:
    from clawd.client import Client
    from clawd.config.model import Config


def _json_flag() -> argparse.ArgumentParser:
    """`--json` after the command too; SUPPRESS keeps a global --json from being reset."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument(
        "--json", action="store_true", help="print the service's JSON answer instead of text"
    )
    return parent


def _target_flag() -> argparse.ArgumentParser:
    """SUPPRESS: on `set --target t2 offline on` the sub-action's default must not undo the
    group's flag."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument(
        "--target",
        metavar="T",
        help="tab to use: stable id (t1), label, raw target id or a unique prefix of one "
        "(default: the last tab used)",
    )
    return parent


_JSON = _json_flag()
_TARGET = _target_flag()


def command(
    sub,
    name: str,
    func,
    help: str,
    *,
    tab: bool = False,
    needs_service: bool = True,
    description: str | None = None,
    json_output: bool = True,
) -> argparse.ArgumentParser:
    """One command on the subparsers `sub`; every parser sets `func` (its handler) and
    `needs_service`. json_output=False: the command's own --json takes a value (`set headers
    --json '{...}'`)."""
    parents = ([_JSON] if json_output else []) + ([_TARGET] if tab else [])
    parser = sub.add_parser(name, help=help, description=description or help, parents=parents)
    parser.set_defaults(func=func, needs_service=needs_service)
    return parser


def group(
    sub,
    name: str,
    help: str,
    *,
    required: bool = True,
    func=None,
    tab: bool = False,
    needs_service: bool = True,
    before=None,
):
    """A command with sub-actions (tab, trace, cookies, storage, set, profile, config);
    `before` adds positionals that come ahead of the action (`storage local get`)."""
    parser = command(sub, name, func, help, tab=tab, needs_service=needs_service)
    if before:
        before(parser)
    actions = parser.add_subparsers(
        dest=f"{name}_action",
        metavar="ACTION",
        required=required,
        title="actions",
        help=f"`clawd-browser {name} ACTION --help` for an action's options",
    )
    return parser, actions


def route_help(method: str, path: str, name: str) -> str:
    """The help of a route's field (clawd/route_fields.py), for the flag that sends it: one
    wording for the API and the CLI."""
    text = route_fields.of(method, path).all()[name].help
    # the API's sentences start capitalized, a flag's help does not ("CSS selector" stays)
    return text[:1].lower() + text[1:] if text[:2].istitle() else text


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
