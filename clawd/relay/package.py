"""The extension as package data: where its folder is, its fixed id, and a zip of it. Imports
nothing of the relay server, so the CLI can use it without the service."""

from __future__ import annotations

import base64
import hashlib
import json
import pathlib
import zipfile

EXTENSION_DIR = pathlib.Path(__file__).with_name("extension")


def manifest() -> dict:
    return json.loads((EXTENSION_DIR / "manifest.json").read_text())


def extension_id(public_key_b64: str | None = None) -> str:
    """The id Chrome gives the extension: the manifest's `key` fixes it wherever the folder is
    loaded from (first 128 bits of the key's SHA-256, hex digits written a-p)."""
    key = base64.b64decode(public_key_b64 or manifest()["key"])
    digest = hashlib.sha256(key).hexdigest()[:32]
    return "".join(chr(ord("a") + int(c, 16)) for c in digest)


def origin() -> str:
    """The Origin header the extension's websocket carries."""
    return f"chrome-extension://{extension_id()}"


def files() -> list[pathlib.Path]:
    return sorted(p for p in EXTENSION_DIR.rglob("*") if p.is_file() and p.name != "__pycache__")


def pack(out: pathlib.Path) -> pathlib.Path:
    """A zip of the extension (for the Chrome Web Store, or to copy to another machine)."""
    out = pathlib.Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in files():
            archive.write(path, path.relative_to(EXTENSION_DIR).as_posix())
    return out
