"""The navigation policy: which URLs a tab may open, judged as Chromium's URL parser reads them.

Host parsing follows the WHATWG URL standard (which Chromium implements); names go through an
injected resolver. Enforcing the policy on every request (strict mode) lives with the page code.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import threading
import time
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass

import idna.core  # ships with requests; the same UTS46 table Chromium applies through ICU

from clawd import errors
from clawd.config.model import SsrfPolicy

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str], list[str]]

# Schemes whose URLs have an authority parsed the WHATWG "special" way (backslash == slash).
DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443, "ftp": 21}
NAVIGABLE_SCHEMES = ("http", "https")
MAX_URL_LENGTH = 2 * 1024 * 1024  # Chromium refuses longer URLs

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.\-]*:")
_C0_AND_SPACE = "".join(chr(c) for c in range(0x21))
_TAB_NEWLINE = str.maketrans("", "", "\t\n\r")
# Stricter than WHATWG's forbidden-code-point list: Chromium percent-escapes other characters
# (`a*b` becomes `a%2Ab`), so what we would resolve could differ from what it resolves.
_DOMAIN_CHARS = re.compile(r"[a-z0-9_.\-]+")
_IPV6_CHARS = re.compile(r"[0-9A-Fa-f:.]+")
_RADIX_DIGITS = {8: "01234567", 10: "0123456789", 16: "0123456789abcdefABCDEF"}

# Percent-encode sets (WHATWG): what else besides C0 controls and non-ASCII gets escaped.
_USERINFO_SET = frozenset(' "#<>?`{}/:;=@[\\]^|')
_PATH_SET = frozenset(' "#<>?`{}')
_QUERY_SET = frozenset(" \"#<>'")
_FRAGMENT_SET = frozenset(' "<>`')

_BLOCKED_NAMES = frozenset({"localhost", "localhost.localdomain", "metadata.google.internal"})
_BLOCKED_SUFFIXES = (".localhost", ".local", ".internal")

_V4_BLOCKED = tuple(
    ipaddress.IPv4Network(n)
    for n in (
        "0.0.0.0/8",
        "10.0.0.0/8",
        "100.64.0.0/10",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/24",
        "192.0.2.0/24",
        "192.88.99.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4",
        "240.0.0.0/4",
    )
)
# Everything outside global unicast 2000::/3 is blocked too (loopback, ULA, link-local, ...);
# these are the special blocks inside it, plus the local-use NAT64 prefix, whose IPv4 side is
# whatever the local operator routes it to.
_V6_BLOCKED = tuple(
    ipaddress.IPv6Network(n)
    for n in (
        "::/128",
        "::1/128",
        "64:ff9b:1::/48",
        "100::/64",
        "2001::/23",
        "2001:db8::/32",
        "3fff::/20",
        "fc00::/7",
        "fe80::/10",
        "fec0::/10",
        "ff00::/8",
    )
)
_V6_GLOBAL_UNICAST = ipaddress.IPv6Network("2000::/3")
_V6_COMPATIBLE = ipaddress.IPv6Network("::/96")
_V6_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

_PRIVATE_HINT = " (browser.ssrfPolicy.allowedHostnames exempts a host)"


@dataclass(frozen=True)
class _Url:
    """An http(s)-like URL split the way Chromium splits it; every part already serialized."""

    scheme: str
    userinfo: str
    raw_host: str  # as written, before percent-decoding and IDNA mapping
    host: str  # serialized: ASCII domain, dotted IPv4 or [IPv6]
    ip: IPAddress | None
    port: int | None
    tail: str  # path, query and fragment

    def serialize(self) -> str:
        auth = f"{self.userinfo}@" if self.userinfo else ""
        port = f":{self.port}" if self.port is not None else ""
        return f"{self.scheme}://{auth}{self.host}{port}{self.tail}"


class NavigationPolicy:
    """Judges URLs for open, navigate, redirect hops and final URLs against an SsrfPolicy."""

    def __init__(self, policy: SsrfPolicy, resolver: Resolver | None = None):
        self.policy = policy
        self._resolve = resolver or system_resolver
        self._exempt = frozenset(_host_key(h) for h in policy.allowed_hostnames)
        self._allowlist = tuple(_host_key(p) for p in policy.hostname_allowlist)

    def check(self, url: str) -> str:
        """Judge a URL; return it as Chromium will read it (normalized).

        Raises NavigationBlocked (400), HostUnresolved (502: fail closed, not a policy verdict)
        or InvalidRequest for a URL that does not parse.
        """
        if _is_about_blank(url):
            return "about:blank"
        parsed = _parse_url(url)
        if parsed is None or parsed.scheme not in NAVIGABLE_SCHEMES:
            raise errors.NavigationBlocked(
                "navigation blocked: only http:, https: and about:blank URLs may be opened"
            )
        self._judge(parsed.raw_host, parsed.host, parsed.ip)
        return parsed.serialize()

    def resolve_checked(self, host: str) -> list[str]:
        """Resolve host, check every address, return the addresses (for DNS pinning)."""
        serialized, ip = _parse_host(host)
        return self._judge(host, serialized, ip)

    # -- verdicts ---------------------------------------------------------------------------------
    def _judge(self, raw_host: str, host: str, ip: IPAddress | None) -> list[str]:
        key = _host_key(host)
        self._check_allowlist(host, key)
        if isinstance(ip, ipaddress.IPv4Address) and raw_host != str(ip):
            # 0177.0.0.1, 127.1, 2130706433, 0x7f000001, ８.８.８.８: only obfuscation writes these
            raise _blocked(host, "non-canonical IPv4 literal")
        policed = not (self.policy.dangerously_allow_private_network or key in self._exempt)
        if ip is not None:
            if policed and is_blocked_ip(ip):
                raise _blocked(host, "private, loopback or reserved address" + _PRIVATE_HINT)
            return [str(ip)]
        if policed and _is_local_name(key):
            raise _blocked(host, "local host name" + _PRIVATE_HINT)
        addresses = self._lookup(host)
        if policed and any(a is None or is_blocked_ip(a) for a in addresses):
            raise _blocked(
                host, "the name resolves to a private, loopback or reserved address" + _PRIVATE_HINT
            )
        return [str(a) for a in addresses if a is not None]

    def _check_allowlist(self, host: str, key: str) -> None:
        if self._allowlist and not any(_pattern_matches(p, key) for p in self._allowlist):
            raise _blocked(host, "not in browser.ssrfPolicy.hostnameAllowlist")

    def _lookup(self, host: str) -> list[IPAddress | None]:
        try:
            answers = self._resolve(host)  # as written: "intranet." skips the search list
        except (errors.HostUnresolved, OSError, UnicodeError):
            answers = []
        if not answers:
            # the resolver's own words stay out of the message: they may name internal servers
            raise errors.HostUnresolved(f"{host} does not resolve (failing closed)")
        return list(dict.fromkeys(_answer_address(a) for a in answers))


class CachedResolver:
    """A resolver that remembers answers for `ttl` seconds (failures for `negative_ttl`), so a
    page with fifty requests to one host waits on DNS once. Pinning is unaffected: the strict
    proxy connects only to the addresses that were judged."""

    def __init__(
        self,
        resolve: Resolver,
        *,
        ttl: float = 30.0,
        negative_ttl: float = 5.0,
        clock: Callable[[], float] = time.monotonic,
        max_entries: int = 4096,
    ):
        self._resolve = resolve
        self._ttl, self._negative_ttl = ttl, negative_ttl
        self._clock = clock
        self._max = max_entries
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[float, list[str] | None]] = {}

    def __call__(self, host: str) -> list[str]:
        now = self._clock()
        with self._lock:
            hit = self._cache.get(host)
        if hit is not None and hit[0] > now:
            if hit[1] is None:
                raise errors.HostUnresolved(f"{host} does not resolve")
            return list(hit[1])
        try:
            answers = list(self._resolve(host))
        except (errors.HostUnresolved, OSError, UnicodeError):
            self._store(host, now + self._negative_ttl, None)
            raise
        self._store(host, now + (self._ttl if answers else self._negative_ttl), answers or None)
        return answers

    def _store(self, host: str, until: float, answers: list[str] | None) -> None:
        with self._lock:
            if len(self._cache) >= self._max:
                self._cache.clear()
            self._cache[host] = (until, answers)


def system_resolver(host: str) -> list[str]:
    """The default resolver: every address getaddrinfo gives for host."""
    try:
        infos = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise errors.HostUnresolved(f"{host} does not resolve") from exc
    return [info[4][0] for info in infos]


def is_blocked_ip(ip: IPAddress) -> bool:
    """True for any address a navigation must not reach without an explicit exemption."""
    if isinstance(ip, ipaddress.IPv4Address):
        return any(ip in net for net in _V4_BLOCKED) or not ip.is_global
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        # the packet ends up at the IPv4 side (mapped, NAT64, 6to4, Teredo): judge that
        return any(is_blocked_ip(v4) for v4 in embedded)
    return ip not in _V6_GLOBAL_UNICAST or any(ip in net for net in _V6_BLOCKED)


def parse_host(url: str) -> tuple[str, str]:
    """(scheme, host) as Chromium's URL parser reads them; host is '' for schemes without one.

    Raises InvalidRequest for a URL that does not parse, NavigationBlocked for an invalid host.
    """
    if _is_about_blank(url):
        return "about", ""
    parsed = _parse_url(url)
    if parsed is None:
        return _split_scheme(_clean(url))[0], ""
    return parsed.scheme, parsed.host


# -- helpers for verdicts -------------------------------------------------------------------------
def _blocked(host: str, reason: str) -> errors.NavigationBlocked:
    return errors.NavigationBlocked(f"navigation to {_shown(host)} blocked: {reason}")


def _shown(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def _host_key(host: str) -> str:
    """How hosts compare against config lists: ASCII lowercase, no trailing dot, IPs canonical."""
    key = host.strip().lower().rstrip(".")
    bare = key[1:-1] if key.startswith("[") and key.endswith("]") else key
    try:
        return str(ipaddress.ip_address(bare))
    except ValueError:
        pass
    try:
        return _domain_to_ascii(key, key)  # a config entry may be written "*.bücher.de"
    except errors.NavigationBlocked:
        return key


def _pattern_matches(pattern: str, key: str) -> bool:
    if pattern == "*":
        return True
    if pattern.startswith("*."):
        return key.endswith(pattern[1:])  # subdomains only; the apex needs its own entry
    return key == pattern


def _is_local_name(key: str) -> bool:
    return key in _BLOCKED_NAMES or key.endswith(_BLOCKED_SUFFIXES)


def _answer_address(text: str) -> IPAddress | None:
    """A resolver answer as an address; None (blocked by the caller) when it is not one."""
    try:
        return ipaddress.ip_address(str(text).split("%", 1)[0])
    except ValueError:
        return None


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address] | None:
    if ip.ipv4_mapped is not None:
        return [ip.ipv4_mapped]
    if ip in _V6_COMPATIBLE or ip in _V6_NAT64:
        return [ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)]
    if ip.sixtofour is not None:
        return [ip.sixtofour]
    if ip.teredo is not None:
        return list(ip.teredo)  # (server, client); the client is de-obfuscated
    return None


# -- URL parsing (WHATWG) -------------------------------------------------------------------------
def _clean(url: object) -> str:
    if not isinstance(url, str) or not url:
        raise errors.InvalidRequest("url must be a non-empty string")
    if len(url) > MAX_URL_LENGTH:
        raise errors.InvalidRequest("url is longer than Chromium accepts")
    return url.strip(_C0_AND_SPACE).translate(_TAB_NEWLINE)


def _is_about_blank(url: object) -> bool:
    return isinstance(url, str) and _clean(url).lower() == "about:blank"


def _split_scheme(text: str) -> tuple[str, str]:
    match = _SCHEME.match(text)
    if not match:
        raise errors.InvalidRequest(f"not an absolute URL: {_shown(text)!r}")
    return match.group()[:-1].lower(), text[match.end() :]


def _parse_url(url: str) -> _Url | None:
    """Split an URL of a scheme with an authority; None for other schemes."""
    scheme, rest = _split_scheme(_clean(url))
    if scheme not in DEFAULT_PORTS:
        return None
    rest = rest.lstrip("/\\")  # special schemes ignore any run of slashes here
    end = _authority_end(rest)
    authority, tail = rest[:end], rest[end:]
    userinfo, _, hostport = authority.rpartition("@")  # the last '@' ends the userinfo
    raw_host, port_text = _split_port(hostport)
    host, ip = _parse_host(raw_host)
    return _Url(
        scheme,
        _serialize_userinfo(userinfo),
        raw_host,
        host,
        ip,
        _parse_port(port_text, DEFAULT_PORTS[scheme]),
        _serialize_tail(tail),
    )


def _authority_end(rest: str) -> int:
    for index, char in enumerate(rest):
        if char in "/\\?#":
            return index
    return len(rest)


def _split_port(hostport: str) -> tuple[str, str | None]:
    in_brackets = False
    for index, char in enumerate(hostport):
        if char == "[":
            in_brackets = True
        elif char == "]":
            in_brackets = False
        elif char == ":" and not in_brackets:
            return hostport[:index], hostport[index + 1 :]
    return hostport, None


def _parse_port(text: str | None, default: int) -> int | None:
    if not text:
        return None
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise errors.InvalidRequest(f"invalid port: {_shown(text)!r}")
    port = int(text)
    return None if port == default else port


def _invalid_host(raw: str) -> errors.NavigationBlocked:
    return errors.NavigationBlocked(f"navigation blocked: {_shown(raw)!r} is not a valid host")


def _parse_host(raw: str) -> tuple[str, IPAddress | None]:
    """The WHATWG host parser for special schemes: (serialized host, address if a literal)."""
    if raw.startswith("["):
        ip = _parse_ipv6(raw)
        return f"[{ip.compressed}]", ip
    try:
        domain = urllib.parse.unquote_to_bytes(raw).decode("utf-8")
    except UnicodeDecodeError:
        raise _invalid_host(raw) from None
    ascii_domain = _domain_to_ascii(domain, raw)
    if not _DOMAIN_CHARS.fullmatch(ascii_domain):
        raise _invalid_host(raw)
    if _ends_in_number(ascii_domain):
        ip = _parse_ipv4(ascii_domain, raw)
        return str(ip), ip
    return ascii_domain, None


def _parse_ipv6(raw: str) -> ipaddress.IPv6Address:
    inner = raw[1:-1] if raw.endswith("]") else ""
    # no zone ids ('%'): Chromium rejects them, Python would accept and drop them
    if not _IPV6_CHARS.fullmatch(inner):
        raise _invalid_host(raw)
    try:
        return ipaddress.IPv6Address(inner)
    except ValueError:
        raise _invalid_host(raw) from None


def _domain_to_ascii(domain: str, raw: str) -> str:
    """UTS46 ToASCII, non-transitional, no STD3 rules, no DNS length checks (as Chromium)."""
    try:
        mapped = idna.core.uts46_remap(domain, std3_rules=False)
    except idna.core.IDNAError:
        raise _invalid_host(raw) from None
    return ".".join(_label_to_ascii(label, raw) for label in mapped.split("."))


def _label_to_ascii(label: str, raw: str) -> str:
    if not label.isascii():
        return "xn--" + label.encode("punycode").decode("ascii")
    if label.startswith("xn--"):
        _check_punycode(label, raw)
    return label


def _check_punycode(label: str, raw: str) -> None:
    """An xn-- label must decode to a non-ASCII label that UTS46 mapping leaves unchanged."""
    try:
        decoded = label[4:].encode("ascii").decode("punycode")
        remapped = idna.core.uts46_remap(decoded, std3_rules=False)
        valid = not decoded.isascii() and remapped == decoded
    except (UnicodeError, idna.core.IDNAError):
        valid = False
    if not valid:
        raise _invalid_host(raw)


def _ends_in_number(domain: str) -> bool:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    last = parts[-1]
    return bool(last) and (last.isdigit() or _ipv4_number(last) is not None)


def _ipv4_number(part: str) -> int | None:
    """One part of a WHATWG IPv4 address: decimal, 0x-hex or 0-octal; None if none of them."""
    if not part:
        return None
    digits, radix = part, 10
    if part[:2] in ("0x", "0X"):
        digits, radix = part[2:], 16
    elif len(part) > 1 and part[0] == "0":
        digits, radix = part[1:], 8
    if not digits:
        return 0
    if not all(c in _RADIX_DIGITS[radix] for c in digits):
        return None
    return int(digits, radix)


def _parse_ipv4(domain: str, raw: str) -> ipaddress.IPv4Address:
    parts = domain.split(".")
    if parts[-1] == "" and len(parts) > 1:
        parts.pop()
    numbers = [_ipv4_number(p) for p in parts]
    if len(parts) > 4 or None in numbers:
        raise _invalid_host(raw)
    *head, last = numbers
    if any(n > 255 for n in head) or last >= 256 ** (5 - len(numbers)):
        raise _invalid_host(raw)
    value = last + sum(n << (8 * (3 - i)) for i, n in enumerate(head))
    return ipaddress.IPv4Address(value)


# -- serializing ----------------------------------------------------------------------------------
def _percent_encode(text: str, extra: frozenset[str]) -> str:
    out = []
    for char in text:
        if " " < char < "\x7f" and char not in extra:
            out.append(char)
            continue
        try:
            data = char.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: WHATWG reads it as U+FFFD
            data = "\ufffd".encode("utf-8")
        out.append("".join(f"%{b:02X}" for b in data))
    return "".join(out)


def _serialize_userinfo(userinfo: str) -> str:
    username, _, password = userinfo.partition(":")
    username = _percent_encode(username, _USERINFO_SET)
    password = _percent_encode(password, _USERINFO_SET)
    return f"{username}:{password}" if password else username


def _serialize_tail(tail: str) -> str:
    rest, hash_, fragment = tail.partition("#")
    path, question, query = rest.partition("?")
    path = _percent_encode(path.replace("\\", "/"), _PATH_SET) or "/"
    out = path
    if question:
        out += "?" + _percent_encode(query, _QUERY_SET)
    if hash_:
        out += "#" + _percent_encode(fragment, _FRAGMENT_SET)
    return out
