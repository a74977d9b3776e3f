"""Browser-borne attacks on the service: cross-site state-changing requests (CSRF) and
DNS rebinding (a Host header that is not ours)."""

from __future__ import annotations

import ipaddress
import re
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


# A Host header is host[:port] (RFC 9110 7.2, RFC 3986 3.2.2): a bracketed IPv6 address, or a
# name of DNS's letters, digits, hyphens, underscores and dots (which covers IPv4 literals), then
# digits. Anything else (a userinfo @, ? or # or /, a backslash, a space, a zone %, non-ASCII) is
# not a place a browser could have reached us at, and must not pass for one (evil?.localhost).
_LABEL = r"[A-Za-z0-9_-]{1,63}"
_HOST = re.compile(
    rf"(?:\[(?P<ipv6>[0-9A-Fa-f:.]{{2,45}})\]|(?P<name>{_LABEL}(?:\.{_LABEL})*\.?))"
    r"(?::(?P<port>[0-9]{1,5}))?"
)
_BARE_IPV6 = re.compile(r"[0-9A-Fa-f:.]{2,45}")


def parse_host(header: str) -> tuple[str, int | None]:
    """'example.com:8080' -> ('example.com', 8080), '[::1]' -> ('::1', None); a value that is
    not host[:port] raises HostNotAllowed. A bare IPv6 address ('::1') reads as one, no port."""
    value = header.strip(" \t")
    match = _HOST.fullmatch(value) if len(value) <= 260 else None
    if match is None and _BARE_IPV6.fullmatch(value) and value.count(":") >= 2:
        return _ipv6(value), None
    if match is None:
        raise errors.HostNotAllowed(f"Host {header[:100]!r} is not host[:port]")
    port = match["port"]
    if port is not None and int(port) > 65535:
        raise errors.HostNotAllowed(f"Host {header[:100]!r} has no valid port")
    host = _ipv6(match["ipv6"]) if match["ipv6"] else match["name"]
    return host, int(port) if port is not None else None


def _ipv6(text: str) -> str:
    try:
        return str(ipaddress.IPv6Address(text))
    except ValueError:
        raise errors.HostNotAllowed(f"Host [{text}] is not an IPv6 address") from None


def _canonical(host: str) -> str:
    """A configured host as parse_host gives it: lower case, an IPv6 address in its short form."""
    host = host.lower().strip("[]")
    try:
        return str(ipaddress.IPv6Address(host))
    except ValueError:
        return host


def host_of(header: str) -> str:
    """'example.com:8080' / '[::1]:80' -> the host part (HostNotAllowed: not host[:port])."""
    return parse_host(header)[0]


class RequestGuard:
    def __init__(self, configured_hosts: Iterable[str] = ()):
        self.allowed_hosts = {_canonical(h) for h in configured_hosts if h}

    def check(self, method: str, headers: Mapping[str, str]) -> None:
        self.check_host(headers.get("Host"))
        if method.upper() in STATE_CHANGING:
            self.check_origin(headers)

    def check_host(self, host_header: str | None) -> None:
        if host_header is None:
            return  # HTTP/1.0 clients send none; nothing for a rebinding attack to use
        host = host_of(host_header).lower()  # refuses what is not host[:port]
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
