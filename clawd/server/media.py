"""Media files (screenshots, PDFs, labelled snapshots) under $CLAWD_HOME/media: named uniquely,
answered as {path, mediaUrl}, served back by name through GET /media/<name>."""

from __future__ import annotations

import pathlib
import re
import secrets
import time

from clawd import errors

NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")
CONTENT_TYPES = {
    ".png": "image/png",
    ".jpeg": "image/jpeg",
    ".jpg": "image/jpeg",
    ".pdf": "application/pdf",
    ".json": "application/json",
    ".zip": "application/zip",
}


class MediaStore:
    def __init__(self, root: pathlib.Path):
        self.root = root

    def new_path(self, kind: str, suffix: str) -> pathlib.Path:
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        return self.root / f"{kind}-{stamp}-{secrets.token_hex(4)}{suffix}"

    def save(self, kind: str, suffix: str, data: bytes) -> dict:
        path = self.new_path(kind, suffix)
        path.write_bytes(data)
        return self.describe(path)

    def describe(self, path: pathlib.Path) -> dict:
        return {"path": str(path), "mediaUrl": f"/media/{path.name}", "bytes": path.stat().st_size}

    def open(self, name: str) -> tuple[pathlib.Path, str]:
        """The file named `name` (a bare name, never a path) and its content type."""
        if not NAME_RE.match(name) or ".." in name:
            raise errors.MediaNotFound(f"no media named {name!r}")
        path = self.root / name
        if path.is_symlink() or not path.is_file():
            raise errors.MediaNotFound(f"no media named {name!r}")
        return path, CONTENT_TYPES.get(path.suffix.lower(), "application/octet-stream")
