"""Where a browser's files live when it is not on this host's file system (a sandbox container):
uploads are copied in before the page gets their paths, downloads are copied back out. A browser
connection without a bridge reads and writes host paths directly."""

from __future__ import annotations

import pathlib
import threading
import weakref
from typing import Protocol


class FileBridge(Protocol):
    download_dir: str  # the browser-side directory downloads are written to

    def upload(self, host_paths: list[str]) -> list[str]:
        """Copy host files in; their paths as the browser sees them, in order."""

    def fetch(self, browser_path: str, host_path: pathlib.Path) -> None:
        """Copy one finished download out to `host_path`."""


_bridges: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def bind(connection, bridge: FileBridge) -> None:
    with _lock:
        _bridges[connection] = bridge


def bridge_for(connection) -> FileBridge | None:
    with _lock:
        return _bridges.get(connection)


def browser_paths(connection, host_paths: list[str]) -> list[str]:
    bridge = bridge_for(connection)
    return list(host_paths) if bridge is None else bridge.upload(list(host_paths))
