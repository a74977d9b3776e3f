"""The pinned, policed HTTP fetch under web_fetch (docs/architecture.md): http(s) only, no
credentials in URLs, every hop judged by the navigation policy and connected to the addresses it
judged (DNS pinning), redirects followed by hand, the body read streaming up to a byte limit, and
one time limit for all of it. What the bytes say is extract.py's business."""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass, field

import requests

from clawd import errors
from clawd.config.model import SsrfPolicy, WebFetchConfig
from clawd.security.content import sanitize_markers
from clawd.security.ssrf import NavigationPolicy, Resolver, parse_host, system_resolver
from clawd.web import decode
from clawd.web.pinning import Connector, Pin, PinnedAdapter, default_connect
from clawd.web.watchdog import Deadline

ACCEPT = "text/markdown, text/html;q=0.9, */*;q=0.1"
ACCEPT_LANGUAGE = "en-US,en;q=0.9"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
CONNECT_TIMEOUT = 10.0
CHUNK = 65536


@dataclass(frozen=True)
class Fetched:
    """One fetch as it came: the final URL, the site's status, and the body (maybe cut short)."""

    url: str
    status: int
    content_type: str
    kind: str  # decode.kind_of: html | markdown | json | text | binary
    body: bytes
    truncated: bool
    headers: dict
    redirects: int
    # the whole fetch's: decoding hostile bytes is bounded by it too
    deadline: Deadline | None = field(default=None, compare=False, repr=False)

    def text(self) -> str:
        return decode.decode(self.body, self.content_type, self.kind, deadline=self.deadline)[0]


class _OnceResolver:
    """Within one fetch a name is resolved once: the answer judged is the answer pinned."""

    def __init__(self, resolve: Resolver):
        self._resolve = resolve
        self._answers: dict[str, list[str]] = {}

    def __call__(self, host: str) -> list[str]:
        if host not in self._answers:
            self._answers[host] = list(self._resolve(host))
        return list(self._answers[host])


class PageFetcher:
    """GETs one URL under web.fetch's limits. `resolver`, `connect` and `verify` are seams:
    tests hand in a stub resolver, a connector that maps addresses, a CA bundle."""

    def __init__(
        self,
        config: WebFetchConfig,
        policy: SsrfPolicy,
        *,
        resolver: Resolver | None = None,
        connect: Connector = default_connect,
        verify: bool | str = True,
    ):
        self.config = config
        self.policy = policy
        self._resolve = resolver or system_resolver
        self._connect = connect
        self._verify = verify

    def check_url(self, url: object) -> str:
        """The URL as Chromium would read it, if web_fetch may ask for it at all (not judged yet:
        that is done hop by hop, with the addresses it then connects to)."""
        if not isinstance(url, str) or not url.strip():
            raise errors.WebInvalidUrl("url must be a non-empty http: or https: URL")
        try:
            scheme, host = parse_host(url)
        except errors.InvalidRequest as exc:
            raise errors.WebInvalidUrl(f"not a URL web_fetch can read: {exc.message}") from None
        if scheme not in ("http", "https") or not host:
            raise errors.WebInvalidUrl(f"web_fetch reads http: and https: URLs only, not {scheme}:")
        try:
            split = urllib.parse.urlsplit(url.strip().replace("\\", "/"))
            port = split.port
        except ValueError:
            raise errors.WebInvalidUrl("not a URL web_fetch can read") from None
        if _credentials(split):
            raise _with_credentials()  # before the name is even resolved
        if port == 0:
            raise errors.WebInvalidUrl("port 0 is not a port web_fetch can reach")
        return url.strip()

    def get(self, url: str) -> Fetched:
        url = self.check_url(url)
        policy = NavigationPolicy(self.policy, resolver=_OnceResolver(self._resolve))
        limit = self.config.max_response_bytes
        with Deadline(self.config.timeout_seconds) as deadline, requests.Session() as session:
            session.trust_env = False  # no proxies, no .netrc: nothing but the pinned hop
            return self._follow(session, policy, url, deadline, limit)

    def _follow(self, session, policy, url, deadline, limit) -> Fetched:
        chain = [url]
        for redirects in range(self.config.max_redirects + 1):
            url = _judged(policy, url, redirects)
            response = self._request(session, policy, url, deadline)
            location = _redirect_target(response)
            if location is None:
                return self._read(response, url, deadline, limit, redirects)
            response.close()
            url = urllib.parse.urljoin(url, location)
            chain.append(url)
        hops = [sanitize_markers(u) for u in chain]  # a Location is the site's to write
        raise errors.WebFetchFailed(_too_many(self.config.max_redirects, chain), hops=hops)

    def _request(self, session, policy, url, deadline) -> requests.Response:
        _, host = parse_host(url)
        pin = Pin(host, tuple(policy.resolve_checked(host)), self._connect, deadline.watch)
        adapter = PinnedAdapter(pin)
        session.mount("http://", adapter)
        session.mount("https://", adapter)
        left = deadline.left()
        deadline.check()
        with _translated(url, deadline, "connect"):
            return session.get(
                url,
                headers=self._headers(),
                stream=True,
                allow_redirects=False,
                verify=self._verify,
                timeout=(min(CONNECT_TIMEOUT, left), left),
            )

    def _headers(self) -> dict:
        return {
            "User-Agent": self.config.user_agent,
            "Accept": ACCEPT,
            "Accept-Language": ACCEPT_LANGUAGE,
        }

    def _read(self, response, url, deadline, limit, redirects) -> Fetched:
        content_type = response.headers.get("Content-Type", "")
        with response, _translated(url, deadline, "read"):
            if decode.declared_kind(content_type) == "binary":
                raise _unsupported(content_type)  # refused before a byte of it is read
            body, truncated = _read_body(response, deadline, limit)
        kind = decode.kind_of(content_type, body)
        if kind == "binary":
            raise _unsupported(content_type or "unlabelled binary data")
        return Fetched(
            url,
            response.status_code,
            content_type,
            kind,
            body,
            truncated,
            dict(response.headers),
            redirects,
            deadline,
        )


def _judged(policy: NavigationPolicy, url: str, redirects: int) -> str:
    """The hop's URL judged and normalized; a refusal says which hop it was."""
    try:
        scheme, host = parse_host(url)
        if scheme not in ("http", "https") or not host:
            raise errors.NavigationBlocked(
                f"only http: and https: URLs may be fetched, not {scheme}:"
            )
        normalized = policy.check(url)
    except (errors.NavigationBlocked, errors.HostUnresolved, errors.InvalidRequest) as exc:
        if redirects == 0:
            raise
        said = sanitize_markers(exc.message)  # it may quote the hop's host
        raise type(exc)(f"redirect hop {redirects} ({_shown(url)}): {said}") from None
    if _credentials(urllib.parse.urlsplit(normalized)):  # as Chromium reads the URL
        if redirects == 0:
            raise _with_credentials()
        raise errors.NavigationBlocked(f"redirect hop {redirects} carries credentials; refused")
    return normalized


def _credentials(split: urllib.parse.SplitResult) -> bool:
    return bool(split.username or split.password)


def _with_credentials() -> errors.WebInvalidUrl:
    return errors.WebInvalidUrl("URLs with credentials (user:password@) are refused")


def _redirect_target(response: requests.Response) -> str | None:
    if response.status_code in REDIRECT_STATUSES:
        location = response.headers.get("Location")
        if location and location.strip():
            return location.strip()
    return None


def _read_body(response: requests.Response, deadline: Deadline, limit: int) -> tuple[bytes, bool]:
    chunks, size = [], 0
    for chunk in response.iter_content(CHUNK):
        deadline.check()
        if size + len(chunk) >= limit:
            chunks.append(chunk[: limit - size])
            # more may follow: is there? one more byte says whether the cut lost anything
            return b"".join(chunks), size + len(chunk) > limit or _more(response)
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks), False


def _more(response: requests.Response) -> bool:
    try:
        return bool(response.raw.read(1))
    except Exception:  # a body that breaks off right here: it had more
        return True


class _translated:
    """requests' and urllib3's exceptions as clawd's, saying which stage failed: connecting
    (TLS included) or reading the body."""

    def __init__(self, url: str, deadline: Deadline, stage: str):
        self.url, self.deadline, self.stage = url, deadline, stage

    def __enter__(self) -> _translated:
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if not isinstance(exc, Exception) or isinstance(exc, errors.ClawdError):
            return False
        if self.deadline.passed:
            raise self.deadline.error() from None
        raise self._error(exc, urllib.parse.urlsplit(self.url).hostname or self.url) from None

    def _error(self, exc: Exception, host: str) -> errors.ClawdError:
        if isinstance(exc, requests.ConnectTimeout):
            return errors.WebFetchFailed(f"connecting to {host} timed out", stage="connect")
        if isinstance(exc, (requests.Timeout, TimeoutError)):
            return self.deadline.error()
        if isinstance(exc, requests.exceptions.SSLError):
            return errors.WebFetchFailed(f"TLS with {host} failed: {_reason(exc)}", stage="tls")
        if self.stage == "connect" and isinstance(exc, requests.ConnectionError):
            return errors.WebFetchFailed(
                f"could not connect to {host}: {_reason(exc)}", stage="connect"
            )
        return errors.WebFetchFailed(f"fetching {host} failed: {_reason(exc)}", stage=self.stage)


def _reason(exc: BaseException) -> str:
    """What went wrong, shortly: the innermost cause (an OSError, an SSL error), not the
    layers of requests' and urllib3's wrappers around it."""
    root = _root(exc)
    text = str(root) or type(root).__name__
    if "RemoteDisconnected" in text or "IncompleteRead" in repr(root):
        return "the server closed the connection early"
    return text[:200]


def _root(exc: BaseException) -> BaseException:
    for _ in range(10):  # requests -> urllib3's MaxRetryError -> its reason -> cause
        reason = getattr(exc, "reason", None)
        inner = exc.__cause__ or (reason if isinstance(reason, BaseException) else None)
        inner = inner or next((a for a in exc.args if isinstance(a, BaseException)), None)
        if inner is None or inner is exc:
            return exc
        exc = inner
    return exc


def _unsupported(content_type: str) -> errors.WebUnsupportedContent:
    shown = decode.media_type(content_type) or content_type
    return errors.WebUnsupportedContent(
        f"web_fetch reads HTML, markdown, JSON and text, not {shown}", contentType=content_type
    )


def _too_many(limit: int, chain: list[str]) -> str:
    loop = " (a redirect loop)" if len(set(chain)) < len(chain) else ""
    shown = " -> ".join(_shown(u, 120) for u in chain[:6]) + (" -> ..." if len(chain) > 6 else "")
    return f"more than {limit} redirects{loop} (web.fetch.maxRedirects): {shown}"


def _shown(text: str, limit: int = 200) -> str:
    """A URL as an error quotes it: cut, its marker look-alikes sanitized (docs/security.md)."""
    text = sanitize_markers(text)
    return text if len(text) <= limit else text[:limit] + "..."
