"""GET /sandbox/observe: a one-time link to watch a profile (clawd/sandbox/tokens.py; the page is
served by clawd/sandbox/observe_http.py). mode=vnc (sandbox profiles with noVNC, their default)
shows the container's screen; mode=screencast (every profile) the active tab."""

from __future__ import annotations

import datetime
import ipaddress

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
        "url": f"http://{_host(req)}/observe/{item.token}/",
        "expiresAt": expires.isoformat(timespec="seconds").replace("+00:00", "Z"),
    }


def _host(req: Request) -> str:
    """host:port of the socket the caller reached us on; never the Host header, which the caller
    writes (`127.0.0.1:28791@evil.example` would send the viewer elsewhere)."""
    if req.local_address is None:  # not over a socket: the configured address
        server = req.service.config.server
        return _authority(server.host, server.port)
    host, port = req.local_address[:2]
    return _authority(host, port)


def _authority(host: str, port: int) -> str:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"{host}:{port}"  # a configured name
    if address.version == 6 and address.ipv4_mapped is not None:  # a dual-stack socket's IPv4
        address = address.ipv4_mapped
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"
