"""Where the CLI's secrets come from, and how they survive the command line.

A secret flag given as its own word takes the next word whatever it begins with, as getopt does
(`--token -AbC` is a token, not an option); `--token=VALUE`, `--token-file PATH` and the
environment keep it out of argparse's way and, for the last two, out of `ps`.
"""

from __future__ import annotations

import argparse
import pathlib
from collections.abc import Sequence

from clawd.cli.commands import UsageError

SECRET_FLAGS = ("--token", "--password")


def attach_secret_values(argv: Sequence[str], parser: argparse.ArgumentParser) -> list[str]:
    """`--token VALUE` -> `--token=VALUE` among the global flags (those before the command)."""
    takes_value = {
        option
        for action in parser._actions
        if action.nargs != 0
        for option in action.option_strings
    }
    words, i = list(argv), 0
    while i < len(words) and words[i].startswith("-") and words[i] != "--":
        word = words[i]
        if word in SECRET_FLAGS and i + 1 < len(words):
            words[i : i + 2] = [f"{word}={words[i + 1]}"]
        elif word in takes_value:
            i += 1
        i += 1
    return words


def secret_from_file(path: str | None, flag: str) -> str | None:
    """The first non-blank line of `path` (a token file as the service writes it);
    None without a path."""
    if path is None:
        return None
    try:
        text = pathlib.Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{flag} {path}: {getattr(exc, 'strerror', None) or exc}") from None
    secret = next((line.strip() for line in text.splitlines() if line.strip()), "")
    if not secret:
        raise UsageError(f"{flag} {path}: the file is empty")
    return secret
