"""The route table machinery: `route(...)` lines (their fields: clawd/route_fields.py),
matching a method and path to an endpoint, and the Request an endpoint receives. A handover
route's endpoint gets the connection instead (a stream, a websocket) and answers on it itself."""

from __future__ import annotations

import ipaddress
import re
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from clawd import errors, route_fields
from clawd.fields import Field, read_fields
from clawd.page import handoff

Endpoint = Callable[["Request"], Any]


@dataclass(frozen=True)
class Route:
    method: str
    pattern: str
    endpoint: Endpoint
    body: dict[str, Field] | None = None  # None: the endpoint reads its body itself
    query: dict[str, Field] | None = None
    regex: re.Pattern = field(default=None, compare=False)
    raw_limit: int | None = None  # the body is bytes (request.raw), up to this many
    tool: str | None = "browser"  # the agent tool it belongs to (tools.allow/deny)
    # the endpoint is (request handler, method, path) -> status: it checks its own credential
    # and method, writes its own answer and owns the connection until it returns
    handover: bool = False


def route(
    method: str,
    pattern: str,
    endpoint: Endpoint,
    *,
    raw_limit: int | None = None,
    tool: str | None = "browser",
    handover: bool = False,
) -> Route:
    """A route reads the body and query fields clawd/route_fields.py declares for it. A
    `{name}` is one path segment; a last `{name*}` is the rest of the path, slashes and all."""
    regex = re.sub(r"\{(\w+)\*\}$", r"(?P<\1>.*)", pattern)
    regex = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", regex) + "$")
    fields = route_fields.of(method, pattern)
    return Route(
        method, pattern, endpoint, fields.body, fields.query, regex, raw_limit, tool, handover
    )


class Router:
    def __init__(self, routes: list[Route]):
        self.routes = routes
        # most paths have no {param}: found by one lookup instead of trying each pattern
        self._fixed = {(r.method, r.pattern): r for r in routes if "{" not in r.pattern}

    def match(self, method: str, path: str) -> tuple[Route, dict[str, str]]:
        fixed = self._fixed.get((method, path))
        if fixed is not None:
            return fixed, {}
        allowed = []
        for candidate in self.routes:
            found = candidate.regex.match(path)
            if found is None:
                continue
            # a handed-over connection answers its own methods (observe_http.py: 405 as text)
            if candidate.method == method or candidate.handover:
                # a segment is matched raw, then decoded (%2F stays in it)
                return candidate, {k: urllib.parse.unquote(v) for k, v in found.groupdict().items()}
            allowed.append(candidate.method)
        if allowed:
            raise errors.MethodNotAllowed(
                f"{method} is not allowed on {path}; use {', '.join(sorted(set(allowed)))}"
            )
        raise errors.RouteNotFound(f"no route {method} {path}")


class Request:
    """What an endpoint sees. `args` holds the body (or query) fields read by the route's spec."""

    def __init__(
        self,
        service,
        method: str,
        path: str,
        query: Mapping[str, str],
        headers: Mapping[str, str],
        body: dict,
        params: dict[str, str],
        raw: bytes = b"",
    ):
        self.service = service
        self.raw = raw  # the body of a raw_limit route; such routes have body == {}
        self.method = method
        self.path = path
        self.query = dict(query)
        self.headers = headers
        self.body = body
        self.params = params
        self.local_address: tuple | None = None  # the socket's own address (the handler's to set)
        self.args: dict[str, Any] = {}
        self.profile_used: str | None = None
        self.tab_used: str | None = None
        self._runtime = None

    @property
    def config(self):
        return self.service.config

    def reached_at(self) -> str:
        """host:port of the socket the caller reached us on (the configured address when not
        over a socket); never the Host header, which the caller writes."""
        if self.local_address is None:
            server = self.config.server
            return _authority(server.host, server.port)
        host, port = self.local_address[:2]
        return _authority(host, port)

    @property
    def profile_name(self) -> str:
        """?profile= wins over the body's profile; else the default profile."""
        name = (
            self.query.get("profile")
            or self.body.get("profile")
            or self.service.profiles.default_name
        )
        if not isinstance(name, str):
            raise errors.InvalidRequest("profile must be a string")
        return name

    def runtime(self):
        if self._runtime is None:
            self._runtime = self.service.runtime(self.profile_name)
            self.profile_used = self._runtime.profile.name
        return self._runtime

    def browser(self):
        """The profile's browser, started (managed) or connected to when it is not."""
        return self.runtime().ensure()

    def target_key(self) -> str | None:
        key = self.query.get("targetId") or self.body.get("targetId")
        if key is not None and not isinstance(key, str):
            raise errors.InvalidRequest("targetId must be a string")
        return key

    def tab(self, key: str | None = None, *, usable: bool = True):
        """The tab named by `key` (else ?targetId= / the body's targetId, else the default tab).
        usable=False also finds crashed tabs (to close them)."""
        tab = self.browser().resolve(key if key is not None else self.target_key())
        if usable:
            tab.check_usable()
        handoff.check(tab, self.method, self.path)  # a person's tab: 409 to what changes it
        self.tab_used = tab.tab_id
        return tab

    def read(self, spec: dict[str, Field] | None, data: dict, where: str) -> None:
        if spec is not None:
            self.args.update(read_fields(data, spec, where))


def _authority(host: str, port: int) -> str:
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"{host}:{port}"  # a configured name
    if address.version == 6 and address.ipv4_mapped is not None:  # a dual-stack socket's IPv4
        address = address.ipv4_mapped
    return f"[{address}]:{port}" if address.version == 6 else f"{address}:{port}"
