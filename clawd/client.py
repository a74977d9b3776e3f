"""The Python client of the clawd HTTP service: one method per route, errors as clawd.errors classes.

It speaks HTTP only (never CDP); the CLI is built on it and so can scripts.
"""
from __future__ import annotations

import os
import pathlib
import urllib.parse
from typing import Any, Iterable

import requests

from clawd import errors
from clawd.config.model import StateLayout, state_home
from clawd.security.csrf import is_loopback_host

DEFAULT_URL = "http://127.0.0.1:18791"
_CONNECT_TIMEOUT = 5.0
# Codes the service did not tell us about still map by status, so `except NotFound` keeps working.
_CLASS_BY_STATUS: dict[int, type[errors.ClawdError]] = {
    400: errors.InvalidRequest, 401: errors.Unauthorized, 403: errors.Forbidden, 404: errors.NotFound,
    405: errors.MethodNotAllowed, 408: errors.RequestTimeout, 409: errors.Conflict,
}


class ServiceUnreachable(errors.ClawdError, ConnectionError):
    """The clawd service did not answer at its control URL."""
    code = "SERVICE_UNREACHABLE"
    http_status = 503


class Client:
    """Talks to a running clawd service over its loopback HTTP API.

    Every method returns the service's decoded JSON answer and raises the `clawd.errors` class
    named by the answer's `code` (`ServiceUnreachable` when nothing listens). Every method takes
    `profile=` (default: the client's profile, else the service's default profile); methods that
    act on a tab take `target_id=` (a stable id `t1`, a label, or a raw target id prefix).

        from clawd.client import Client

        with Client() as c:                      # http://127.0.0.1:18791, token from $CLAWD_HOME
            c.open("https://example.com", label="docs")
            snap = c.snapshot(target_id="docs", interactive=True)
            c.click("e3", target_id="docs")
            shot = c.screenshot(target_id="docs", full_page=True)
            c.fetch_media(shot["mediaUrl"], pathlib.Path("page.png"))
    """

    def __init__(self, url: str | None = None, *, token: str | None = None, password: str | None = None,
                 profile: str | None = None, timeout: float = 60.0, home: pathlib.Path | None = None,
                 session: requests.Session | None = None, ambient_credentials: bool = True):
        """ambient_credentials=False: only `token`/`password` are sent, never $CLAWD_TOKEN or the local
        token file (a client of another machine's service must not hand it this one's secrets)."""
        self.url = (url or DEFAULT_URL).rstrip("/")
        self.profile = profile
        self.timeout = timeout
        self.token, self.password = (_credentials(token, password, home) if ambient_credentials
                                     else (token, password))
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

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- transport ------------------------------------------------------------------------------
    def request(self, method: str, path: str, *, params: dict | None = None, json: dict | None = None,
                timeout: float | None = None, profile: str | None = None) -> dict:
        """One call: `params` become the query (None dropped, booleans as "true"/"false")."""
        response = self._send(method, path, params=params, json=json, timeout=timeout,
                              profile=profile, stream=False)
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
        """Copy a local file into the service's $CLAWD_HOME/uploads (as `name`, default its own)."""
        with open(source, "rb") as data:
            response = self._send("PUT", "/uploads/" + _segment(name or pathlib.Path(source).name),
                                  data=data, stream=False)
        return _decode(response)

    def _send(self, method: str, path: str, *, params=None, json=None, data=None, timeout=None, profile=None,
              stream: bool) -> requests.Response:
        query = _query({**(params or {}), "profile": profile or self.profile})
        read_timeout = timeout or self.timeout
        try:
            return self._session.request(method, self.url + path, params=query, json=json, data=data,
                                         stream=stream,
                                         timeout=(min(_CONNECT_TIMEOUT, read_timeout), read_timeout))
        except requests.ConnectionError as exc:     # ConnectTimeout included: nothing answered
            raise ServiceUnreachable(f"clawd service is not running at {self.url}; start it with "
                                     "`clawd-browser serve`", url=self.url, reason=str(exc)) from exc
        except requests.Timeout as exc:
            raise errors.RequestTimeout(f"no answer from {self.url} within {read_timeout:g} s") from exc
        except requests.RequestException as exc:    # a malformed control URL and the like
            raise errors.InvalidRequest(f"cannot call {self.url}{path}: {exc}") from exc

    def _get(self, path: str, profile: str | None, /, **params) -> dict:
        return self.request("GET", path, params=_camel(params), profile=profile)

    def _post(self, path: str, profile: str | None, /, timeout: float | None = None, **body) -> dict:
        return self.request("POST", path, json=_camel(body), profile=profile, timeout=timeout)

    def _wait_timeout(self, timeout_ms: int | None) -> float | None:
        """A long server-side wait must not be cut short by our own read timeout."""
        if timeout_ms is None:
            return None
        return max(self.timeout, timeout_ms / 1000 + 10)

    # -- basic ----------------------------------------------------------------------------------
    def status(self, *, profile: str | None = None) -> dict:
        return self._get("/", profile)

    def start(self, headless: bool | None = None, *, profile: str | None = None) -> dict:
        return self.request("POST", "/start", params={"headless": headless}, profile=profile)

    def stop(self, *, profile: str | None = None) -> dict:
        return self._post("/stop", profile)

    def profiles(self, *, profile: str | None = None) -> dict:
        return self._get("/profiles", profile)

    def create_profile(self, name: str, color: str | None = None, cdp_url: str | None = None,
                       driver: str | None = None, user_data_dir: str | None = None, *,
                       profile: str | None = None) -> dict:
        return self._post("/profiles/create", profile, name=name, color=color, cdp_url=cdp_url, driver=driver,
                          user_data_dir=user_data_dir)

    def delete_profile(self, name: str, *, purge: bool | None = None, profile: str | None = None) -> dict:
        """The profile's user data goes to $CLAWD_HOME/trash, or is erased with purge."""
        return self.request("DELETE", "/profiles/" + _segment(name), params={"purge": purge}, profile=profile)

    def reset_profile(self, *, purge: bool | None = None, profile: str | None = None) -> dict:
        return self._post("/reset-profile", profile, purge=purge)

    # -- tabs -----------------------------------------------------------------------------------
    def tabs(self, *, profile: str | None = None) -> dict:
        return self._get("/tabs", profile)

    def open(self, url: str, label: str | None = None, timeout_ms: int | None = None, *,
             profile: str | None = None) -> dict:
        return self._post("/tabs/open", profile, timeout=self._wait_timeout(timeout_ms), url=url, label=label,
                          timeout_ms=timeout_ms)

    def focus(self, target_id: str, *, profile: str | None = None) -> dict:
        return self._post("/tabs/focus", profile, target_id=target_id)

    def close_tab(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        """Close the named tab, or the last one used when none is named."""
        if target_id is None:
            return self.tab_action("close", profile=profile)
        return self.request("DELETE", "/tabs/" + _segment(target_id), profile=profile)

    def tab_action(self, action: str, index: int | None = None, url: str | None = None, label: str | None = None,
                   timeout_ms: int | None = None, *, profile: str | None = None) -> dict:
        """action: list | new (url, label) | select | close (index from 0; default the last tab used)."""
        return self._post("/tabs/action", profile, timeout=self._wait_timeout(timeout_ms), action=action,
                          index=index, url=url, label=label, timeout_ms=timeout_ms)

    # -- page -----------------------------------------------------------------------------------
    def navigate(self, url: str, target_id: str | None = None, timeout_ms: int | None = None, *,
                 profile: str | None = None) -> dict:
        return self._post("/navigate", profile, timeout=self._wait_timeout(timeout_ms), url=url,
                          target_id=target_id, timeout_ms=timeout_ms)

    def snapshot(self, *, profile: str | None = None, **opts: Any) -> dict:
        """`GET /snapshot`; options are DESIGN §7's query in snake_case (`max_chars=`, `target_id=`);
        `efficient=True` is `mode="efficient"`; `refs=False` (no refs), `"aria"` or `"role"`."""
        if opts.pop("efficient", False):
            opts.setdefault("mode", "efficient")
        return self._get("/snapshot", profile, **opts)

    def find(self, text: str, *, profile: str | None = None, **opts: Any) -> dict:
        """Snapshot lines whose role, name or text contains `text` (`GET /snapshot/find`)."""
        return self._get("/snapshot/find", profile, text=text, **opts)

    def screenshot(self, target_id: str | None = None, full_page: bool = False, ref: str | None = None,
                   element: str | None = None, type: str = "png", labels: bool = False,
                   quality: int | None = None, *, profile: str | None = None) -> dict:
        return self._post("/screenshot", profile, target_id=target_id, full_page=full_page, ref=ref,
                          element=element, type=type, labels=labels, quality=quality)

    def pdf(self, target_id: str | None = None, landscape: bool | None = None, *,
            profile: str | None = None) -> dict:
        return self._post("/pdf", profile, target_id=target_id, landscape=landscape)

    # -- act ------------------------------------------------------------------------------------
    def act(self, kind: str, *, profile: str | None = None, **fields: Any) -> dict:
        """`POST /act {kind, ...}`: snake_case field names become the API's camelCase."""
        timeout = self._wait_timeout(fields.get("timeout_ms") or fields.get("time_ms"))
        return self._post("/act", profile, timeout=timeout, kind=kind, **fields)

    def click(self, ref: str, **kw: Any) -> dict:
        """kw: button, modifiers, double_click, delay_ms, target_id, profile."""
        return self.act("click", ref=ref, **kw)

    def click_coords(self, x: float, y: float, **kw: Any) -> dict:
        return self.act("clickCoords", x=x, y=y, **kw)

    def type(self, ref: str, text: str, **kw: Any) -> dict:
        """kw: submit, slowly, target_id, profile."""
        return self.act("type", ref=ref, text=text, **kw)

    def press(self, key: str, **kw: Any) -> dict:
        """kw: ref (focus it first), delay_ms (between keydown and keyup), target_id, profile."""
        return self.act("press", key=key, **kw)

    def hover(self, ref: str, **kw: Any) -> dict:
        return self.act("hover", ref=ref, **kw)

    def scroll_into_view(self, ref: str, **kw: Any) -> dict:
        return self.act("scrollIntoView", ref=ref, **kw)

    def drag(self, start_ref: str, end_ref: str, **kw: Any) -> dict:
        return self.act("drag", start_ref=start_ref, end_ref=end_ref, **kw)

    def select(self, ref: str, values: Iterable[str], **kw: Any) -> dict:
        return self.act("select", ref=ref, values=list(values), **kw)

    def fill(self, fields: list[dict], **kw: Any) -> dict:
        """fields: `[{ref, type?, value}]`, sent as given."""
        return self.act("fill", fields=list(fields), **kw)

    def wait(self, **conds: Any) -> dict:
        """conds: time_ms, text, text_gone, selector, url, load_state, fn (run in that order)."""
        return self.act("wait", **conds)

    def evaluate(self, fn: str, ref: str | None = None, **kw: Any) -> dict:
        return self.act("evaluate", fn=fn, ref=ref, **kw)

    def resize(self, width: int, height: int, **kw: Any) -> dict:
        return self.act("resize", width=width, height=height, **kw)

    def highlight(self, ref: str, target_id: str | None = None, duration_ms: int | None = None, *,
                  profile: str | None = None) -> dict:
        return self._post("/highlight", profile, ref=ref, target_id=target_id, duration_ms=duration_ms)

    def file_chooser(self, paths: Iterable[str], ref: str | None = None, input_ref: str | None = None,
                     target_id: str | None = None, *, element: str | None = None,
                     profile: str | None = None) -> dict:
        """Files for the chooser a click on `ref` opens, for a file input by ref (`input_ref`) or by CSS
        selector (`element`), or for the next chooser that opens."""
        return self._post("/hooks/file-chooser", profile, paths=[str(p) for p in paths], ref=ref,
                          input_ref=input_ref, element=element, target_id=target_id)

    def dialog(self, accept: bool, prompt_text: str | None = None, dialog_id: str | None = None,
               target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/hooks/dialog", profile, accept=accept, prompt_text=prompt_text,
                          dialog_id=dialog_id, target_id=target_id)

    def download(self, ref: str, path: str | None = None, target_id: str | None = None, *,
                 profile: str | None = None) -> dict:
        return self._post("/download", profile, ref=ref, path=path, target_id=target_id)

    def wait_download(self, timeout_ms: int | None = None, target_id: str | None = None, *,
                      path: str | None = None, profile: str | None = None) -> dict:
        """The next finished download; with `path`, saved under that name in $CLAWD_HOME/downloads."""
        return self._post("/wait/download", profile, timeout=self._wait_timeout(timeout_ms),
                          timeout_ms=timeout_ms, target_id=target_id, path=path)

    def grant_permissions(self, origin: str, permissions: Iterable[str], *, profile: str | None = None) -> dict:
        return self._post("/permissions/grant", profile, origin=origin, permissions=list(permissions))

    # -- debug ----------------------------------------------------------------------------------
    def console(self, level: str | None = None, target_id: str | None = None, clear: bool | None = None,
                wrap: bool | None = None, *, profile: str | None = None) -> dict:
        """level: messages of this level and above; wrap: in untrusted-content markers."""
        return self._get("/console", profile, level=level, target_id=target_id, clear=clear, wrap=wrap)

    def errors(self, clear: bool = False, target_id: str | None = None, wrap: bool | None = None, *,
               profile: str | None = None) -> dict:
        return self._get("/errors", profile, clear=clear, target_id=target_id, wrap=wrap)

    def requests(self, filter: str | None = None, clear: bool = False, target_id: str | None = None, *,
                 profile: str | None = None) -> dict:
        return self._get("/requests", profile, filter=filter, clear=clear, target_id=target_id)

    def response_body(self, url: str, timeout_ms: int | None = None, max_chars: int | None = None,
                      target_id: str | None = None, wrap: bool | None = None, *,
                      profile: str | None = None) -> dict:
        return self._post("/response/body", profile, timeout=self._wait_timeout(timeout_ms), url=url,
                          timeout_ms=timeout_ms, max_chars=max_chars, target_id=target_id, wrap=wrap)

    def trace_start(self, screenshots: bool = False, target_id: str | None = None, *,
                    snapshots: bool | None = None, sources: bool | None = None,
                    profile: str | None = None) -> dict:
        """snapshots: layer trees and paint pictures; sources: the page's script text."""
        return self._post("/trace/start", profile, screenshots=screenshots, snapshots=snapshots, sources=sources,
                          target_id=target_id)

    def trace_stop(self, path: str | None = None, target_id: str | None = None, *,
                   profile: str | None = None) -> dict:
        return self._post("/trace/stop", profile, path=path, target_id=target_id)

    # -- state ----------------------------------------------------------------------------------
    def cookies(self, all: bool = False, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._get("/cookies", profile, all=all, target_id=target_id)

    def set_cookie(self, cookie: dict, target_id: str | None = None, *, profile: str | None = None) -> dict:
        """cookie: CDP `Network.CookieParam` keys (name, value, url|domain, path, secure, httpOnly...)."""
        return self._post("/cookies/set", profile, cookie=cookie, target_id=target_id)

    def clear_cookies(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/cookies/clear", profile, target_id=target_id)

    def storage(self, kind: str, key: str | None = None, target_id: str | None = None, *,
                profile: str | None = None) -> dict:
        return self._get("/storage/" + _segment(kind), profile, key=key, target_id=target_id)

    def set_storage(self, kind: str, key: str, value: str, target_id: str | None = None, *,
                    profile: str | None = None) -> dict:
        return self._post(f"/storage/{_segment(kind)}/set", profile, key=key, value=value, target_id=target_id)

    def clear_storage(self, kind: str, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post(f"/storage/{_segment(kind)}/clear", profile, target_id=target_id)

    # -- settings -------------------------------------------------------------------------------
    def set_offline(self, offline: bool, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/set/offline", profile, offline=offline, target_id=target_id)

    def set_headers(self, headers: dict[str, str] | None = None, target_id: str | None = None,
                    clear: bool | None = None, *, profile: str | None = None) -> dict:
        """Extra headers on every request of the tab; `clear=True` stops sending them."""
        return self._post("/set/headers", profile, headers=headers, target_id=target_id, clear=clear)

    def set_credentials(self, username: str | None = None, password: str | None = None, clear: bool = False,
                        target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/set/credentials", profile, username=username, password=password, clear=clear,
                          target_id=target_id)

    def set_geolocation(self, latitude: float | None = None, longitude: float | None = None,
                        accuracy: float | None = None, origin: str | None = None, clear: bool = False,
                        target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/set/geolocation", profile, latitude=latitude, longitude=longitude,
                          accuracy=accuracy, origin=origin, clear=clear, target_id=target_id)

    def set_media(self, color_scheme: str | None = None, reduced_motion: str | None = None,
                  target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/set/media", profile, color_scheme=color_scheme, reduced_motion=reduced_motion,
                          target_id=target_id)

    def set_timezone(self, timezone: str | None = None, target_id: str | None = None, clear: bool | None = None,
                     *, profile: str | None = None) -> dict:
        return self._post("/set/timezone", profile, timezone=timezone, target_id=target_id, clear=clear)

    def set_locale(self, locale: str | None = None, target_id: str | None = None, clear: bool | None = None, *,
                   profile: str | None = None) -> dict:
        return self._post("/set/locale", profile, locale=locale, target_id=target_id, clear=clear)

    def set_device(self, name: str | None = None, target_id: str | None = None, clear: bool | None = None, *,
                   profile: str | None = None) -> dict:
        return self._post("/set/device", profile, name=name, target_id=target_id, clear=clear)

    def set_viewport(self, width: int, height: int, device_scale_factor: float | None = None,
                     target_id: str | None = None, mobile: bool | None = None, *,
                     profile: str | None = None) -> dict:
        return self._post("/set/viewport", profile, width=width, height=height,
                          device_scale_factor=device_scale_factor, target_id=target_id, mobile=mobile)

    def doctor(self, *, profile: str | None = None) -> dict:
        return self._get("/doctor", profile)


# -- helpers of the wire format -------------------------------------------------------------------
def is_loopback_url(url: str) -> bool:
    return is_loopback_host(urllib.parse.urlsplit(url).hostname or "")


def _session_for(url: str) -> requests.Session:
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
    """Top-level snake_case keys -> camelCase, None dropped (values such as headers stay as given)."""
    return {_camel_key(k): v for k, v in fields.items() if v is not None}


def _camel_key(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _query(params: dict) -> dict:
    return {k: _query_value(v) for k, v in params.items() if v is not None}


def _query_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _segment(value: str) -> str:
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
