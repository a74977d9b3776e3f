"""Paths confined to a root (uploads, downloads, traces) and safe names for files we write.

Checks here are made before use; callers that write should still open with O_NOFOLLOW/O_EXCL.
"""

from __future__ import annotations

import itertools
import os
import pathlib
import re
import stat
import unicodedata

from clawd import errors

KINDS = ("file", "dir", "any")
_MAX_NAME_BYTES = 255  # what ext4, APFS and friends allow in one component
_UNSAFE_CHARS = frozenset('/\\:*?"<>|')  # separators, and what Windows shares refuse
_COMPOUND_SUFFIXES = (".tar",)  # "a.tar.gz" -> "a (1).tar.gz"
# a trailing run is tried from its first character only (from each of them it was quadratic)
_EDGE_DOTS_AND_SPACE = re.compile(r"^[\s.]++|(?<![\s.])[\s.]++$")


def confine(
    root: pathlib.Path, path: str | os.PathLike, *, must_exist: bool = True, kind: str = "file"
) -> pathlib.Path:
    """path resolved under root: no '..', no symlink below root, the right kind of file.

    Relative paths are taken under root; absolute ones must already lie under it.
    Raises errors.InvalidPath, whose message names the root.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}")
    real_root = pathlib.Path(root).resolve()
    parts = _parts_under_root(pathlib.Path(root), real_root, path)
    candidate = real_root.joinpath(*parts)
    _refuse_symlinks(real_root, parts, root)
    _check_kind(candidate, root, must_exist, kind)
    if not candidate.resolve().is_relative_to(real_root):  # belt and braces after the walk
        raise errors.InvalidPath(f"path must stay under {root}")
    return candidate


def safe_filename(name: str, *, max_len: int = 200) -> str:
    """A download's file name: one component, printable, no leading dot, bounded, never empty."""
    name = unicodedata.normalize("NFC", str(name or ""))
    name = name.replace("\\", "/").rsplit("/", 1)[-1]  # keep only the last component
    name = _trim("".join(_safe_char(c) for c in name)) or "download"
    return _trim(_truncate(name, max(1, max_len))) or "download"[: max(1, max_len)]


def unique_path(directory: pathlib.Path, name: str) -> pathlib.Path:
    """directory/name, or 'name (1).ext', 'name (2).ext', ... whichever does not exist yet."""
    directory = pathlib.Path(directory)
    candidate = directory / name
    if not os.path.lexists(candidate):
        return candidate
    stem, suffix = _split_suffix(name)
    for n in itertools.count(1):
        candidate = directory / f"{stem} ({n}){suffix}"
        if not os.path.lexists(candidate):
            return candidate
    raise AssertionError("unreachable")


# -- confine's steps ------------------------------------------------------------------------------
def _parts_under_root(root: pathlib.Path, real_root: pathlib.Path, path) -> tuple[str, ...]:
    """The components of path below root; refuses NUL bytes, '..' and absolute paths elsewhere."""
    try:
        raw = os.fsdecode(os.fspath(path))
    except TypeError:
        raise errors.InvalidPath(f"path must be a string under {root}") from None
    if "\0" in raw:
        raise errors.InvalidPath(f"path contains a NUL byte (must be under {root})")
    if not raw.strip():
        raise errors.InvalidPath(f"path is empty (must be under {root})")
    given = pathlib.Path(raw)
    if ".." in given.parts:
        raise errors.InvalidPath(f"path {raw!r} uses '..' (must stay under {root})")
    if not given.is_absolute():
        return given.parts
    for base in (root.absolute(), real_root):  # /tmp/x and /private/tmp/x are both fine
        if given.is_relative_to(base):
            return given.relative_to(base).parts
    raise errors.InvalidPath(f"path {raw!r} is outside {root}")


def _refuse_symlinks(real_root: pathlib.Path, parts: tuple[str, ...], root) -> None:
    current = real_root
    for part in parts:
        current = current / part
        if current.is_symlink():
            raise errors.InvalidPath(
                f"path {str(current)!r} is a symlink (none allowed under {root})"
            )


def _check_kind(candidate: pathlib.Path, root, must_exist: bool, kind: str) -> None:
    try:
        mode = candidate.lstat().st_mode
    except FileNotFoundError:
        if must_exist:
            raise errors.InvalidPath(f"{candidate} does not exist (under {root})") from None
        return
    except OSError as exc:
        raise errors.InvalidPath(
            f"{candidate} cannot be read ({exc.strerror}; under {root})"
        ) from None
    if kind == "file" and not stat.S_ISREG(mode):
        raise errors.InvalidPath(f"{candidate} is not a regular file (under {root})")
    if kind == "dir" and not stat.S_ISDIR(mode):
        raise errors.InvalidPath(f"{candidate} is not a directory (under {root})")
    if kind == "any" and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise errors.InvalidPath(f"{candidate} is not a regular file or directory (under {root})")


# -- safe_filename's steps ------------------------------------------------------------------------
def _safe_char(char: str) -> str:
    if char in _UNSAFE_CHARS:
        return "_"
    # control characters, and format characters such as U+202E that flip "exe.txt" on screen
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
        return ""
    return char


def _truncate(name: str, max_len: int) -> str:
    """At most max_len characters and 255 UTF-8 bytes, keeping a short extension."""

    def fits(text: str) -> bool:
        return len(text) <= max_len and len(text.encode("utf-8")) <= _MAX_NAME_BYTES

    if fits(name):
        return name
    stem, suffix = _split_suffix(name)
    if len(suffix) > 16 or not fits(suffix + "x"):
        stem, suffix = name, ""
    stem = stem[:max_len]
    while not fits(stem + suffix):  # one character fits whatever it is: the loop ends
        stem = stem[:-1]
    return stem + suffix


def _trim(name: str) -> str:
    # leading dots hide files; trailing dots and spaces vanish on some file systems
    return _EDGE_DOTS_AND_SPACE.sub("", name)


def _split_suffix(name: str) -> tuple[str, str]:
    path = pathlib.PurePath(name)
    stem, suffix = path.stem, path.suffix
    for compound in _COMPOUND_SUFFIXES:
        if stem.lower().endswith(compound) and len(stem) > len(compound):
            return stem[: -len(compound)], stem[-len(compound) :] + suffix
    return stem, suffix
