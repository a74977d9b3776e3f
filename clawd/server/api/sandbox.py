"""GET /sandbox/observe: a one-time link to watch a profile (clawd/sandbox/tokens.py; the page is
served by clawd/sandbox/observe_http.py). mode=vnc (sandbox profiles with noVNC, their default)
shows the container's screen; mode=screencast (every profile) the active tab."""

from __future__ import annotations

import datetime

from clawd import errors
from clawd.server.routing import Request

MODES = ("vnc", "screencast")


def observe(req: Request) -> dict:
    runtime = req.runtime()
    sandbox = runtime.sandbox
    has_vnc = (
        sandbox is not None
        and runtime.profile.sandbox.enable_no_vnc
        and not runtime.profile.sandbox.headless
    )
    mode = req.args.get("mode") or ("vnc" if has_vnc else "screencast")
    if mode not in MODES:
        raise errors.InvalidRequest(f"mode must be one of {', '.join(MODES)}")
    if mode == "vnc" and not has_vnc:
        raise errors.Conflict(
            f"profile {runtime.profile.name} has no VNC screen (a headful sandbox profile with "
            "sandbox.enableNoVnc has one); use mode=screencast"
        )
    runtime.ensure()  # the page must show something when it is opened
    item = req.service.observe_tokens.issue(runtime.profile.name, mode)
    expires = datetime.datetime.fromtimestamp(item.expires_at, datetime.UTC)
    return {
        "ok": True,
        "profile": runtime.profile.name,
        "mode": mode,
        "url": f"http://{req.reached_at()}/observe/{item.token}/",
        "expiresAt": expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
    }
