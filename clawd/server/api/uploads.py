"""Files for pages to upload: PUT /uploads/<name> stores the request's bytes in $CLAWD_HOME/uploads,
so a client on another machine (an agent driving this service as a node) can hand files to
`/hooks/file-chooser`; and the roots an upload's paths must lie under (that one plus the
configured browser.uploadRoots)."""

from __future__ import annotations

import logging
import os
import pathlib
import stat
import tempfile

from clawd import errors
from clawd.security.paths import confine, safe_filename
from clawd.server.routing import Request

log = logging.getLogger("clawd.server")

MAX_UPLOAD = 64 << 20


def put_upload(req: Request) -> dict:
    """Store the body as uploads/<name> (replacing a file of that name)."""
    name = safe_filename(req.params["name"])
    directory = req.service.layout.uploads
    directory.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, temporary = tempfile.mkstemp(dir=directory, prefix=".incoming-")
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(req.raw)
        os.replace(temporary, directory / name)
    except BaseException:
        os.unlink(temporary)
        raise
    return {"ok": True, "name": name, "path": str(directory / name), "bytes": len(req.raw)}


def confined_paths(service, paths: list) -> list[str]:
    """Each path as a file under an upload root: a relative one under $CLAWD_HOME/uploads, an
    absolute one under whichever root holds it. No '..', no symlink below the root."""
    if not paths:
        raise errors.InvalidRequest("paths must list at least one file under the uploads directory")
    roots = upload_roots(service)
    return [str(_confined(roots, path)) for path in paths]


def upload_roots(service) -> list[pathlib.Path]:
    """$CLAWD_HOME/uploads, then each browser.uploadRoots entry that is safe to read from now."""
    extra = [pathlib.Path(root) for root in service.config.browser.upload_roots]
    return [service.layout.uploads, *(root for root in extra if _trusted(root))]


def _confined(roots: list[pathlib.Path], path) -> pathlib.Path:
    """The first root that holds `path`; a relative path means the first root alone."""
    given = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else path
    if not isinstance(given, str) or not os.path.isabs(given):
        return confine(roots[0], path)
    for root in roots:
        if _lies_under(given, root):
            return confine(root, given)
    raise errors.InvalidPath(
        f"path {given!r} is outside the upload roots ({', '.join(map(str, roots))}); "
        f"add its directory to browser.uploadRoots or put the file in {roots[0]}"
    )


def _lies_under(path: str, root: pathlib.Path) -> bool:
    given = pathlib.Path(path)
    return given.is_relative_to(root.absolute()) or given.is_relative_to(root.resolve())


def _trusted(root: pathlib.Path) -> bool:
    """A root another account cannot swap or fill: an existing directory, no symlink in its
    path, each directory on it owned by us or root and writable by no one else (a sticky one
    like /tmp excepted above the root itself)."""
    if not root.is_absolute() or ".." in root.parts:
        return _refused(root, "is not an absolute path without '..'")
    chain = [root, *root.parents]
    for depth, directory in enumerate(chain):
        try:
            info = directory.lstat()
        except OSError as exc:
            return _refused(root, f"cannot be read ({exc.strerror})")
        if not stat.S_ISDIR(info.st_mode):
            return _refused(root, f"has {directory}, which is not a directory (or a symlink)")
        if info.st_uid not in (0, os.getuid()):
            return _refused(root, f"has {directory}, owned by another user")
        shared = info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        if shared and (depth == 0 or not info.st_mode & stat.S_ISVTX):
            return _refused(root, f"has {directory}, which others can write to")
    return True


def _refused(root: pathlib.Path, why: str) -> bool:
    log.warning("browser.uploadRoots: %s %s; not used for uploads", root, why)
    return False
