"""Network routes (POST /route): requests of a profile's tabs answered from a mock (fulfill),
failed (abort) or sent on with changes (continue). The table and what a route does to a paused
request live here; pausing requests and judging them by the navigation policy first is
interception.py's. Routes belong to the profile's running browser: every tab of it, those opened
later included, until removed, used up (`times`) or the browser stops."""

from __future__ import annotations

import base64
import itertools
import mimetypes
import pathlib
import threading
import weakref
from dataclasses import dataclass, field

from clawd import errors
from clawd.page.observe.urls import url_matcher
from clawd.security.paths import confine

# the Network domain's ResourceType values, which Fetch patterns and requestPaused use
RESOURCE_TYPES = (
    "Document",
    "Stylesheet",
    "Image",
    "Media",
    "Font",
    "Script",
    "TextTrack",
    "XHR",
    "Fetch",
    "Prefetch",
    "EventSource",
    "WebSocket",
    "Manifest",
    "SignedExchange",
    "Ping",
    "CSPViolationReport",
    "Preflight",
    "FedCM",
    "Other",
)
# a mock is held in memory while its route lives and sent base64 in one CDP message per request
MAX_BODY = 16 << 20
MAX_ROUTES = 200
# Chromium's Fetch domain reports fetch() requests as XHR (Network calls them Fetch; measured on
# Chromium 156): either name matches both
_SCRIPTED = ("XHR", "Fetch")
_FULFILL_ONLY = ("status", "body", "bodyPath")


@dataclass
class Route:
    """One route; `remaining` counts down from `times` (None: for ever)."""

    route_id: str
    url: str
    action: str
    resource_type: str | None = None
    method: str | None = None
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None
    rewrite_url: str | None = None
    remaining: int | None = None
    matched: int = 0
    matches_url: object = None  # the compiled glob

    def matches(self, url: str, method: str, resource_type: str) -> bool:
        if self.resource_type is not None and resource_type != self.resource_type:
            if not (resource_type in _SCRIPTED and self.resource_type in _SCRIPTED):
                return False
        if self.method is not None and method.upper() != self.method:
            return False
        return self.matches_url(url)

    def fetch_pattern(self) -> dict:
        """A Fetch.enable pattern that pauses at least every request this route matches:
        CDP's `*` spans segments, so it is a superset of the glob, judged exactly later."""
        glob = self.url.replace("\\", "\\\\").replace("?", "\\?").replace("**", "*")
        glob = glob if "*" in self.url else f"*{glob}*"  # no star: a part of the URL
        pattern = {"urlPattern": glob, "requestStage": "Request"}
        if self.resource_type is not None and self.resource_type not in _SCRIPTED:
            pattern["resourceType"] = self.resource_type
        return pattern

    def to_dict(self) -> dict:
        out = {"routeId": self.route_id, "url": self.url, "action": self.action}
        optional = {
            "resourceType": self.resource_type,
            "method": self.method,
            "rewriteUrl": self.rewrite_url,
            "remaining": self.remaining,
        }
        out.update({k: v for k, v in optional.items() if v is not None})
        if self.action == "fulfill":
            out["status"] = self.status
            out["bodyBytes"] = len(self.body or b"")
        if self.headers:
            out["headers"] = dict(self.headers)
        out["matched"] = self.matched
        return out


class RouteTable:
    """One browser's routes, newest first (the newest matching route answers, as in
    Playwright). Request threads add and remove while judge threads take: one lock."""

    def __init__(self):
        self._routes: list[Route] = []
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def add(self, route: Route) -> Route:
        with self._lock:
            if len(self._routes) >= MAX_ROUTES:
                raise errors.InvalidRequest(f"at most {MAX_ROUTES} routes; remove some first")
            route.route_id = f"r{next(self._ids)}"
            self._routes.insert(0, route)
            return route

    def remove(self, route_id: str) -> Route:
        with self._lock:
            for route in self._routes:
                if route.route_id == route_id:
                    self._routes.remove(route)
                    return route
        raise errors.NetworkRouteNotFound(
            f"no route {route_id!r}; GET /routes lists them", routeId=route_id
        )

    def routes(self) -> list[Route]:
        with self._lock:
            return list(self._routes)

    def take(self, url: str, method: str, resource_type: str) -> tuple[Route | None, bool]:
        """The route that answers this request, counted as used; and whether that used it up
        (it left the table: the caller narrows what Chromium pauses)."""
        with self._lock:
            for route in self._routes:
                if route.matches(url, method, resource_type):
                    route.matched += 1
                    if route.remaining is not None:
                        route.remaining -= 1
                        if route.remaining <= 0:
                            self._routes.remove(route)
                            return route, True
                    return route, False
        return None, False

    def fetch_patterns(self) -> list[dict]:
        seen, out = set(), []
        for route in self.routes():
            pattern = route.fetch_pattern()
            key = tuple(sorted(pattern.items()))
            if key not in seen:
                seen.add(key)
                out.append(pattern)
        return out


class RouteBook:
    """Each running browser's RouteTable; a browser that is gone takes its routes with it."""

    def __init__(self):
        self._tables: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def table(self, browser) -> RouteTable:
        with self._lock:
            found = self._tables.get(browser)
            if found is None:
                found = self._tables[browser] = RouteTable()
            return found

    def peek(self, browser) -> RouteTable | None:
        if browser is None:
            return None
        with self._lock:
            return self._tables.get(browser)


# -- reading a route from a request ---------------------------------------------------------------
def build(args: dict, uploads: pathlib.Path) -> Route:
    """A Route from POST /route's fields (already type-checked); a field that makes no sense for
    the action, a bad glob or an unreadable body is a 400 naming it."""
    action = args["action"]
    _check_fields_fit(args, action)
    route = Route(
        route_id="",
        url=args["url"],
        action=action,
        resource_type=_resource_type(args.get("resourceType")),
        method=_method(args.get("method")),
        status=args.get("status", 200),
        headers=_headers(args.get("headers")),
        rewrite_url=_rewrite_url(args.get("rewriteUrl")),
        remaining=args.get("times"),
    )
    route.matches_url = glob(args["url"])
    if action == "fulfill":
        route.body = _body(args, uploads)
        _default_content_type(route, args.get("bodyPath"))
    return route


def _check_fields_fit(args: dict, action: str) -> None:
    if action != "fulfill":
        for name in _FULFILL_ONLY:
            if name in args:
                raise errors.InvalidRequest(f"{name} is only for action fulfill, not {action}")
    if action != "continue" and "rewriteUrl" in args:
        raise errors.InvalidRequest(f"rewriteUrl is only for action continue, not {action}")
    if action == "abort" and "headers" in args:
        raise errors.InvalidRequest("headers is not for action abort")
    if "body" in args and "bodyPath" in args:
        raise errors.InvalidRequest("give body or bodyPath, not both")


def glob(url: str, name: str = "url"):
    """The matcher of a URL glob a caller gave (routes, HAR's urlFilter); a 400 naming `name`."""
    if not url.strip() or url != url.strip():
        raise errors.InvalidRequest(f"{name} must be a glob, not blank or space-padded: {url!r}")
    if any(ord(c) < 0x20 or c == "\x7f" for c in url):
        raise errors.InvalidRequest(f"{name} must not contain control characters")
    if "***" in url:
        raise errors.InvalidRequest(f"{name} {url!r}: * is one segment, ** any; *** is neither")
    try:
        return url_matcher(url)
    except errors.InvalidRequest as exc:
        raise errors.InvalidRequest(f"{name}: {exc.message}") from None


def _resource_type(value: str | None) -> str | None:
    if value is None:
        return None
    for known in RESOURCE_TYPES:
        if known.lower() == value.lower():
            return known
    raise errors.InvalidRequest(
        f"resourceType must be one of {', '.join(RESOURCE_TYPES)}; not {value!r}"
    )


def _method(value: str | None) -> str | None:
    if value is None:
        return None
    if not value.isascii() or not value.isalpha():
        raise errors.InvalidRequest(f"method must be an HTTP method such as GET; not {value!r}")
    return value.upper()


def _headers(value) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise errors.InvalidRequest("headers must be an object of header names to string values")
    for name, text in value.items():
        if not name or not name.isascii() or any(c in name for c in " :\t\r\n"):
            raise errors.InvalidRequest(f"headers: {name!r} is not a header name")
        if not isinstance(text, str) or any(c in text for c in "\r\n\0"):
            raise errors.InvalidRequest(f"headers.{name} must be a string without line breaks")
    return dict(value)


def _rewrite_url(value: str | None) -> str | None:
    if value is not None and not value.startswith(("http://", "https://")):
        raise errors.InvalidRequest(f"rewriteUrl must be an http: or https: URL; not {value!r}")
    return value


def _body(args: dict, uploads: pathlib.Path) -> bytes:
    if "bodyPath" in args:
        try:
            path = confine(uploads, args["bodyPath"])  # as /hooks/file-chooser's paths are
        except errors.InvalidPath as exc:
            raise errors.InvalidPath(f"bodyPath: {exc.message}") from None
        if path.stat().st_size > MAX_BODY:
            raise errors.InvalidRequest(f"bodyPath: {path.name} is larger than {MAX_BODY} bytes")
        return path.read_bytes()
    body = args.get("body", "").encode("utf-8")
    if len(body) > MAX_BODY:
        raise errors.InvalidRequest(f"body is larger than {MAX_BODY} bytes")
    return body


def _default_content_type(route: Route, body_path: str | None) -> None:
    if any(name.lower() == "content-type" for name in route.headers):
        return
    guessed = mimetypes.guess_type(body_path)[0] if body_path else None
    route.headers["Content-Type"] = guessed or "text/plain; charset=utf-8"


# -- what a route does to a paused request ---------------------------------------------------------
def fulfill(session, request_id: str, route: Route) -> None:
    session.try_call(
        "Fetch.fulfillRequest",
        {
            "requestId": request_id,
            "responseCode": route.status,
            "responseHeaders": [{"name": k, "value": v} for k, v in route.headers.items()],
            "body": base64.b64encode(route.body or b"").decode("ascii"),
        },
    )


def abort(session, request_id: str) -> None:
    session.try_call("Fetch.failRequest", {"requestId": request_id, "errorReason": "Failed"})


def send_on(session, request_id: str, route: Route, request: dict) -> None:
    """Continue the request, to rewriteUrl when the route has one (the caller judged it), with
    the route's headers set over the request's own."""
    params: dict = {"requestId": request_id}
    if route.rewrite_url:
        params["url"] = route.rewrite_url
    if route.headers:
        headers = {k: v for k, v in (request.get("headers") or {}).items()}
        lowered = {k.lower() for k in route.headers}
        headers = {k: v for k, v in headers.items() if k.lower() not in lowered}
        headers.update(route.headers)
        params["headers"] = [{"name": k, "value": v} for k, v in headers.items()]
    session.try_call("Fetch.continueRequest", params)
