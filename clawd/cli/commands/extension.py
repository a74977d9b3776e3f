"""`extension path | pack [--out ZIP]`: where the clawd Chrome extension (the relay's, DESIGN.md
§15) is, to load it unpacked in chrome://extensions, and a zip of it. No service needed."""

from __future__ import annotations

import json
import pathlib

from clawd.cli.commands import Invocation, UsageError
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
