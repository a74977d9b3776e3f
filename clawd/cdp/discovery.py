"""From a profile's cdpUrl (docs/architecture.md) to the browser websocket URL to connect to."""

from __future__ import annotations

import base64
import ipaddress
import urllib.parse
from collections.abc import Callable
from typing import Any

from clawd import errors
from clawd.cdp import pool

HttpGet = Callable[..., Any]  # requests.get's shape; tests hand in fakes
LOOPBACK_NAMES = {"localhost", "127.0.0.1", "0.0.0.0", "::1", "[::1]", "::", "[::]"}


def websocket_url(
    cdp_url: str,
    *,
    timeout: float = 1.5,
    http_get: HttpGet | None = None,
    allow_other_host: bool = False,
) -> str:
    """http(s)://host:port -> /json/version discovery; ws(s)://.../devtools/... -> itself;
    bare ws(s)://host:port -> discovery on the http(s) twin first, else the URL itself."""
    parts = urllib.parse.urlsplit(cdp_url)
    if parts.scheme in ("http", "https"):
        return discover(
            cdp_url, timeout=timeout, http_get=http_get, allow_other_host=allow_other_host
        )
    if parts.scheme not in ("ws", "wss"):
        raise errors.InvalidRequest(f"cdpUrl must be http(s):// or ws(s)://, not {cdp_url!r}")
    if parts.path.startswith("/devtools/"):
        return cdp_url
    http_twin = urllib.parse.urlunsplit(
        ("https" if parts.scheme == "wss" else "http", parts.netloc, parts.path, parts.query, "")
    )
    try:
        return discover(
            http_twin, timeout=timeout, http_get=http_get, allow_other_host=allow_other_host
        )
    except (errors.PoolBusy, errors.RemoteAuthFailed):
        raise
    except errors.CdpUnreachable:
        return cdp_url  # hosted pools expose a bare websocket root with no /json/version


def discover(
    http_url: str,
    *,
    timeout: float = 1.5,
    http_get: HttpGet | None = None,
    allow_other_host: bool = True,
) -> str:
    import requests  # only remote and attach-only profiles get here: the idle service is lighter

    http_get = http_get or requests.get
    base = urllib.parse.urlsplit(http_url)
    version_url = urllib.parse.urlunsplit(
        (base.scheme, base.netloc, base.path.rstrip("/") + "/json/version", base.query, "")
    )
    try:
        answer = http_get(version_url, timeout=timeout)
        if answer.status_code in (401, 403, 429):  # the pool's own answer, not a missing endpoint
            raise pool.status_error(
                answer.status_code, answer.headers, redact(version_url), "discovery request"
            )
        answer.raise_for_status()
        ws = answer.json()["webSocketDebuggerUrl"]
    except (requests.RequestException, ValueError, KeyError, TypeError) as exc:
        raise errors.CdpUnreachable(
            f"no DevTools endpoint answered at {redact(version_url)}: {type(exc).__name__}"
        ) from exc
    ws_url = rewrite_ws_host(ws, base)
    if not allow_other_host and (ws_host(ws_url) or "").lower() != (base.hostname or "").lower():
        # a hostile or misconfigured endpoint could steer our connection at another machine
        raise errors.CdpEndpointRefused(
            f"the DevTools endpoint at {redact(http_url)} points its websocket at another host "
            f"({ws_host(ws_url)}); refused unless "
            "browser.ssrfPolicy.dangerouslyAllowPrivateNetwork is true"
        )
    return ws_url


def rewrite_ws_host(ws_url: str, base: urllib.parse.SplitResult) -> str:
    """A browser behind a proxy or in a container reports ws://127.0.0.1:9222/...: reach it
    through the host and port we used, keeping our userinfo and query tokens."""
    ws = urllib.parse.urlsplit(ws_url)
    scheme = "wss" if base.scheme == "https" else "ws"
    host = ws.hostname or ""
    netloc = ws.netloc
    if host in LOOPBACK_NAMES or _is_loopback_or_unspecified(host):
        netloc = base.netloc
    elif base.username and "@" not in netloc:
        netloc = base.netloc.split("@")[0] + "@" + netloc
    query = ws.query or base.query
    return urllib.parse.urlunsplit((scheme, netloc, ws.path, query, ""))


def userinfo_as_header(ws_url: str) -> tuple[str, list[str]]:
    """websocket-client drops a URL's userinfo: send it as HTTP Basic on the upgrade, as requests
    does on discovery (a DevTools endpoint behind an authenticating proxy wants both)."""
    parts = urllib.parse.urlsplit(ws_url)
    if parts.username is None:
        return ws_url, []
    pair = f"{urllib.parse.unquote(parts.username)}:{urllib.parse.unquote(parts.password or '')}"
    netloc = parts.netloc.rsplit("@", 1)[1]
    bare = urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
    return bare, ["Authorization: Basic " + base64.b64encode(pair.encode("utf-8")).decode("ascii")]


def ws_host(ws_url: str) -> str:
    return urllib.parse.urlsplit(ws_url).hostname or ""


def _is_loopback_or_unspecified(host: str) -> bool:
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    return address.is_unspecified or address.is_loopback


def redact(url: str) -> str:
    """Never put userinfo or query tokens of a cdpUrl in a message."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.hostname or ""
    if ":" in netloc:  # an IPv6 address: urlsplit took its brackets off
        netloc = f"[{netloc}]"
    if parts.port:
        netloc += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))
