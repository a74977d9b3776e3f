"""The client's transport: one HTTP session to the clawd service with its credentials, a call
(`request`), decoding an answer (or raising the clawd.errors class its code names), and media
streamed to and from files. clawd/client/api.py puts one method per route on top of it."""

from __future__ import annotations

import os
import pathlib
import urllib.parse
from typing import TYPE_CHECKING, Any

from clawd import errors
from clawd.acts import camel
from clawd.config.model import StateLayout, state_home
from clawd.security.csrf import is_loopback_host

if TYPE_CHECKING:  # imported at the first call: `clawd-browser serve` (the service) never loads it
    import requests

DEFAULT_URL = "http://127.0.0.1:18791"
_CONNECT_TIMEOUT = 5.0
# Codes the service did not tell us about still map by status, so `except NotFound` keeps working.
_CLASS_BY_STATUS: dict[int, type[errors.ClawdError]] = {
    400: errors.InvalidRequest,
    401: errors.Unauthorized,
    403: errors.Forbidden,
    404: errors.NotFound,
    405: errors.MethodNotAllowed,
    408: errors.RequestTimeout,
    409: errors.Conflict,
}


class ServiceUnreachable(errors.ClawdError, ConnectionError):
    """The clawd service did not answer at its control URL."""

    code = "SERVICE_UNREACHABLE"
    http_status = 503


class Transport:
    """Calls to a clawd service: `request` returns the decoded JSON answer or raises the
    `clawd.errors` class named by the answer's `code` (`ServiceUnreachable` when nothing
    listens)."""

    def __init__(
        self,
        url: str | None = None,
        *,
        token: str | None = None,
        password: str | None = None,
        profile: str | None = None,
        timeout: float = 60.0,
        home: pathlib.Path | None = None,
        session: requests.Session | None = None,
        ambient_credentials: bool = True,
    ):
        """ambient_credentials=False: only `token`/`password` are sent, never $CLAWD_TOKEN or the
        local token file (a client of another machine's service must not hand it this one's
        secrets)."""
        self.url = (url or DEFAULT_URL).rstrip("/")
        self.profile = profile
        self.timeout = timeout
        self.token, self.password = (
            _credentials(token, password, home) if ambient_credentials else (token, password)
        )
        self._session = session or _session_for(self.url)
        self._session.headers.update(self._auth_headers())

    def _auth_headers(self) -> dict[str, str]:
        headers = {"Accept": "application/json", "User-Agent": "clawd-client"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        if self.password:
            headers["X-Clawd-Password"] = self.password
        return headers

    def close(self) -> None:
        self._session.close()

    def __enter__(self) -> Transport:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- calls ------------------------------------------------------------------------------
    def request(
        self,
        method: str,
        path: str,
        *,
        params: dict | None = None,
        json: dict | None = None,
        timeout: float | None = None,
        profile: str | None = None,
    ) -> dict:
        """One call: `params` become the query (None dropped, booleans as "true"/"false")."""
        response = self._send(
            method, path, params=params, json=json, timeout=timeout, profile=profile, stream=False
        )
        return _decode(response)

    def fetch_media(self, media_url: str, out: pathlib.Path) -> pathlib.Path:
        """Stream `GET /media/<name>` into `out` (a directory gets the media's own name)."""
        path = urllib.parse.urlsplit(media_url).path or media_url
        out = pathlib.Path(out)
        if out.is_dir():
            out = out / pathlib.PurePosixPath(path).name
        response = self._send("GET", path, stream=True)
        with response:
            if response.status_code >= 400:
                _decode(response)
            out.parent.mkdir(parents=True, exist_ok=True)
            with open(out, "wb") as fh:
                for chunk in response.iter_content(chunk_size=1 << 16):
                    fh.write(chunk)
        return out

    def put_upload(self, source: pathlib.Path, name: str | None = None) -> dict:
        """Copy a local file into the service's $CLAWD_HOME/uploads (as `name`, default its
        own)."""
        with open(source, "rb") as data:
            response = self._send(
                "PUT",
                "/uploads/" + segment(name or pathlib.Path(source).name),
                data=data,
                stream=False,
            )
        return _decode(response)

    def _send(
        self,
        method: str,
        path: str,
        *,
        params=None,
        json=None,
        data=None,
        timeout=None,
        profile=None,
        stream: bool,
    ) -> requests.Response:
        import requests

        query = _query({**(params or {}), "profile": profile or self.profile})
        read_timeout = timeout or self.timeout
        timeouts = (min(_CONNECT_TIMEOUT, read_timeout), read_timeout)
        try:
            return self._session.request(
                method,
                self.url + path,
                params=query,
                json=json,
                data=data,
                stream=stream,
                timeout=timeouts,
            )
        except requests.ConnectionError as exc:  # ConnectTimeout included: nothing answered
            raise ServiceUnreachable(
                f"clawd service is not running at {self.url}; start it with `clawd-browser serve`",
                url=self.url,
                reason=str(exc),
            ) from exc
        except requests.Timeout as exc:
            raise errors.RequestTimeout(
                f"no answer from {self.url} within {read_timeout:g} s"
            ) from exc
        except requests.RequestException as exc:  # a malformed control URL and the like
            raise errors.InvalidRequest(f"cannot call {self.url}{path}: {exc}") from exc

    def _get(self, path: str, profile: str | None, /, **params) -> dict:
        return self.request("GET", path, params=_camel(params), profile=profile)

    def _post(
        self, path: str, profile: str | None, /, timeout: float | None = None, **body
    ) -> dict:
        return self.request("POST", path, json=_camel(body), profile=profile, timeout=timeout)

    def _wait_timeout(self, timeout_ms: int | None) -> float | None:
        """A long server-side wait must not be cut short by our own read timeout."""
        if timeout_ms is None:
            return None
        return max(self.timeout, timeout_ms / 1000 + 10)


# -- helpers of the wire format -------------------------------------------------------------------
def is_loopback_url(url: str) -> bool:
    return is_loopback_host(urllib.parse.urlsplit(url).hostname or "")


def _session_for(url: str) -> requests.Session:
    import requests

    session = requests.Session()
    # An http_proxy meant for the outside world must not swallow calls to our own loopback service.
    session.trust_env = not is_loopback_url(url)
    return session


def _credentials(token: str | None, password: str | None, home: pathlib.Path | None):
    """Explicit, then $CLAWD_TOKEN/$CLAWD_PASSWORD, then the token the service wrote for us.

    The token file is only a fallback: with a password in hand, a stale file must not win.
    """
    token = token or os.environ.get("CLAWD_TOKEN") or None
    password = password or os.environ.get("CLAWD_PASSWORD") or None
    if token is None and password is None:
        token = _read_token_file(StateLayout(home or state_home()).auth_token)
    return token, password


def _read_token_file(path: pathlib.Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def _camel(fields: dict) -> dict:
    """Top-level snake_case keys -> camelCase, None dropped (values such as headers stay as
    given)."""
    return {camel(k): v for k, v in fields.items() if v is not None}


def _query(params: dict) -> dict:
    return {k: _query_value(v) for k, v in params.items() if v is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def segment(value: str) -> str:
    return urllib.parse.quote(str(value), safe="")


def _decode(response: requests.Response) -> dict:
    """The JSON answer, or the mapped exception for an error status."""
    try:
        body = response.json()
    except ValueError:
        body = None
    if response.status_code >= 400:
        raise _error_from(response, body)
    if body is None:
        raise errors.ClawdError(f"the service answered {response.status_code} without JSON")
    return body


def _error_from(response: requests.Response, body: Any) -> errors.ClawdError:
    status = response.status_code
    if not isinstance(body, dict):
        body = {"error": f"HTTP {status}: {response.text[:200].strip()}"}
    code = body.get("code") or ""
    message = body.get("error") or f"HTTP {status}"
    cls = errors.error_class_for_code(code)
    if cls is errors.ClawdError:
        cls = _CLASS_BY_STATUS.get(status, errors.ClawdError)
    return _instantiate(cls, message, status, code, body)


def _instantiate(cls, message: str, status: int, code: str, body: dict) -> errors.ClawdError:
    if issubclass(cls, errors.ConfigError):
        exc = cls(body.get("problems") or [message])
    else:
        exc = cls(message)
    # The instance reports what the service said, even when its class knows another status or code.
    exc.http_status = status
    if code:
        exc.code = code
    exc.details = {k: v for k, v in body.items() if k not in ("error", "code")}
    exc.message = message
    return exc
