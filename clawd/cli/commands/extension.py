"""`extension path | pack [--out ZIP]`: where the clawd Chrome extension (the relay's,
docs/architecture.md) is, to load it unpacked in chrome://extensions, and a zip of it. No service
needed."""

from __future__ import annotations

import json
import pathlib

from clawd.cli.commands import Invocation, UsageError, command, group
from clawd.relay import package


def path(inv: Invocation) -> None:
    if inv.json:
        answer = {"path": str(package.EXTENSION_DIR), "id": package.extension_id()}
        print(json.dumps(answer, indent=2), file=inv.stdout)
    else:
        print(package.EXTENSION_DIR, file=inv.stdout)


def pack(inv: Invocation) -> None:
    out = pathlib.Path(inv.args.out or "clawd-extension.zip").expanduser()
    if out.exists() and not inv.args.force:
        raise UsageError(f"{out} exists; pass --force to replace it")
    written = package.pack(out)
    if inv.json:
        print(json.dumps({"path": str(written), "id": package.extension_id()}), file=inv.stdout)
    else:
        print(written, file=inv.stdout)


def add_parsers(sub) -> None:
    _, actions = group(
        sub,
        "extension",
        "the clawd Chrome extension that shares your own tabs (profile chrome, relay.enabled)",
        needs_service=False,
    )
    command(
        actions,
        "path",
        path,
        "print the extension's folder, to load unpacked in chrome://extensions",
        needs_service=False,
    )
    p = command(actions, "pack", pack, "write the extension as a zip", needs_service=False)
    p.add_argument(
        "--out", metavar="ZIP", help="where to write it (default: ./clawd-extension.zip)"
    )
    p.add_argument("--force", action="store_true", help="replace ZIP when it exists")
