"""Files for pages to upload: PUT /uploads/<name> stores the request's bytes in $CLAWD_HOME/uploads,
so a client on another machine (an agent driving this service as a node) can hand files to
`/hooks/file-chooser`."""

from __future__ import annotations

import os
import tempfile

from clawd.security.paths import safe_filename
from clawd.server.routing import Request

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
