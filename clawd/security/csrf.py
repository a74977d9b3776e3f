"""Browser-borne attacks on the service: cross-site state-changing requests (CSRF) and
DNS rebinding (a Host header that is not ours)."""

from __future__ import annotations

import ipaddress
import urllib.parse
from collections.abc import Iterable, Mapping

from clawd import errors

STATE_CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
LOOPBACK_NAMES = {"localhost", "localhost.", "127.0.0.1", "::1"}


def is_loopback_host(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_of(header: str) -> str:
    """'example.com:8080' / '[::1]:80' -> the host part."""
    header = header.strip()
    if header.startswith("["):
        return header[1 : header.find("]")] if "]" in header else header
    return header.rsplit(":", 1)[0] if header.count(":") == 1 else header


class RequestGuard:
    def __init__(self, configured_hosts: Iterable[str] = ()):
        self.allowed_hosts = {h.lower().strip("[]") for h in configured_hosts if h}

    def check(self, method: str, headers: Mapping[str, str]) -> None:
        self.check_host(headers.get("Host"))
        if method.upper() in STATE_CHANGING:
            self.check_origin(headers)

    def check_host(self, host_header: str | None) -> None:
        if host_header is None:
            return  # HTTP/1.0 clients send none; nothing for a rebinding attack to use
        host = host_of(host_header).lower()
        if not (is_loopback_host(host) or host in self.allowed_hosts):
            raise errors.HostNotAllowed(
                f"Host {host!r} is not a loopback name or the configured host"
            )

    def check_origin(self, headers: Mapping[str, str]) -> None:
        if (headers.get("Sec-Fetch-Site") or "").lower() == "cross-site":
            raise errors.CrossSiteRequest("cross-site request refused (Sec-Fetch-Site: cross-site)")
        for name in ("Origin", "Referer"):
            value = headers.get(name)
            if value is None:
                continue
            host = urllib.parse.urlsplit(value).hostname or ""
            if value == "null" or not (is_loopback_host(host) or host in self.allowed_hosts):
                raise errors.CrossSiteRequest(
                    f"request from {name} {value!r} refused: not loopback"
                )
