"""Every clawd exception. A leaf module: it imports nothing of clawd.

Each class carries the `code` clients see and the `http_status` the request handler answers with.
The request handler (server/handler.py) and the CLI exit-status ladder (cli/main.py) are the only
places these become statuses.
"""

from __future__ import annotations

import re

# Chrome's answers to a call whose document went away under it: the tab navigated (a new document,
# maybe in a new renderer process) between the call and its answer.
_DOCUMENT_GONE = re.compile(
    r"context was destroyed|cannot find context|no frame with given id|"
    r"inspected target navigated or closed",
    re.I,
)


class ClawdError(Exception):
    code = "INTERNAL"
    http_status = 500

    def __init__(self, message: str = "", **details):
        super().__init__(message or self.__class__.__doc__ or self.code)
        self.message = message or (self.__class__.__doc__ or self.code).strip()
        self.details = details

    def to_dict(self) -> dict:
        body = {"error": self.message, "code": self.code}
        body.update(self.details)
        return body


# -- 400: the request itself is wrong -------------------------------------------------------------
class InvalidRequest(ClawdError, ValueError):
    """The request is malformed."""

    code = "INVALID_REQUEST"
    http_status = 400


class BodyTooLarge(InvalidRequest):
    """The request body is larger than 1 MiB."""

    code = "BODY_TOO_LARGE"
    http_status = 413


class HeadersTooLarge(InvalidRequest):
    """A request header line is over 64 KiB, or there are over 100 headers."""

    code = "HEADERS_TOO_LARGE"
    http_status = 431


class InvalidPath(InvalidRequest):
    """The path is outside its allowed root, a symlink, or not a regular file."""

    code = "INVALID_PATH"


class NavigationBlocked(InvalidRequest):
    """The URL is not allowed by the navigation policy."""

    code = "NAVIGATION_BLOCKED"


class ActKindRequired(InvalidRequest):
    code = "ACT_KIND_REQUIRED"


class ActInvalidRequest(InvalidRequest):
    code = "ACT_INVALID_REQUEST"


class ActSelectorUnsupported(InvalidRequest):
    code = "ACT_SELECTOR_UNSUPPORTED"


class ActEvaluateFailed(InvalidRequest):
    code = "ACT_EVALUATE_FAILED"


class InvalidCookie(InvalidRequest):
    """The cookie is malformed or Chromium refused it."""

    code = "INVALID_COOKIE"


class InvalidHeaders(InvalidRequest):
    """Extra headers must be a JSON object of header names to string values."""

    code = "INVALID_HEADERS"


class InvalidStorageKind(InvalidRequest):
    """Storage kinds are local and session."""

    code = "INVALID_STORAGE_KIND"


class InvalidStateFile(InvalidRequest):
    """A storage state file is corrupt, foreign, or sealed with another key: nothing applied."""

    code = "INVALID_STATE_FILE"


class UnknownDevice(InvalidRequest):
    """No device preset has that name."""

    code = "UNKNOWN_DEVICE"


class InvalidTimezone(InvalidRequest):
    code = "INVALID_TIMEZONE"


class InvalidLocale(InvalidRequest):
    code = "INVALID_LOCALE"


class WebInvalidUrl(InvalidRequest):
    """web_fetch reads http: and https: URLs without credentials only."""

    code = "WEB_INVALID_URL"


class WebSearchNotConfigured(InvalidRequest):
    """No search provider has an API key (in web.search or the environment)."""

    code = "WEB_SEARCH_NOT_CONFIGURED"


class WebUnsupportedContent(ClawdError):
    """The page is not text web_fetch can read (an image, a binary download)."""

    code = "WEB_UNSUPPORTED_CONTENT"
    http_status = 415


# -- 401/403: who is asking -----------------------------------------------------------------------
class Unauthorized(ClawdError, PermissionError):
    """Missing or wrong credentials."""

    code = "UNAUTHORIZED"
    http_status = 401


class Forbidden(ClawdError, PermissionError):
    code = "FORBIDDEN"
    http_status = 403


class CrossSiteRequest(Forbidden):
    """Cross-site state-changing request refused."""

    code = "CSRF_REJECTED"


class HostNotAllowed(Forbidden):
    """The Host header is not a loopback name or the configured host."""

    code = "HOST_NOT_ALLOWED"


class ActEvaluateDisabled(Forbidden):
    """evaluate is disabled by browser.evaluateEnabled: false."""

    code = "ACT_EVALUATE_DISABLED"


class ActTargetIdMismatch(Forbidden):
    code = "ACT_TARGET_ID_MISMATCH"


class ToolDenied(Forbidden):
    """The tool is not allowed by the tools.allow / tools.deny policy."""

    code = "TOOL_DENIED"


class WebFetchDisabled(Forbidden):
    """web_fetch is disabled (web.fetch.enabled: false)."""

    code = "WEB_FETCH_DISABLED"


class WebSearchDisabled(Forbidden):
    """web_search is disabled (web.search.enabled: false)."""

    code = "WEB_SEARCH_DISABLED"


# -- 404: what was named does not exist -----------------------------------------------------------
class NotFound(ClawdError, LookupError):
    code = "NOT_FOUND"
    http_status = 404


class RouteNotFound(NotFound):
    code = "ROUTE_NOT_FOUND"


class NetworkRouteNotFound(NotFound):
    """No network route (POST /route) with that id."""

    code = "NETWORK_ROUTE_NOT_FOUND"


class ProfileNotFound(NotFound):
    code = "PROFILE_NOT_FOUND"


class TabNotFound(NotFound):
    code = "TAB_NOT_FOUND"


class MediaNotFound(NotFound):
    code = "MEDIA_NOT_FOUND"


class RefUnknown(NotFound):
    code = "REF_UNKNOWN"


class FrameNotFound(NotFound):
    code = "FRAME_NOT_FOUND"


class SelectorNotFound(NotFound):
    code = "SELECTOR_NOT_FOUND"


class NodeNotFound(NotFound):
    """No such node in the `nodes` configuration (the agent tool's target: node)."""

    code = "NODE_NOT_FOUND"


class MethodNotAllowed(ClawdError):
    code = "METHOD_NOT_ALLOWED"
    http_status = 405


# -- 408: waited and nothing came -----------------------------------------------------------------
class RequestTimeout(ClawdError, TimeoutError):
    code = "TIMEOUT"
    http_status = 408


class ResponseTimeout(RequestTimeout):
    code = "RESPONSE_TIMEOUT"


class DownloadTimeout(RequestTimeout):
    code = "DOWNLOAD_TIMEOUT"


class ActTimeout(RequestTimeout):
    code = "ACT_TIMEOUT"


# -- 409: the state of things forbids it ----------------------------------------------------------
class Conflict(ClawdError):
    code = "CONFLICT"
    http_status = 409


class HandoffActive(Conflict):
    """The tab is a person's (POST /handoff) until it is given back."""

    code = "HANDOFF_ACTIVE"


class HandoffNotActive(Conflict):
    code = "HANDOFF_NOT_ACTIVE"


class TargetUnavailable(Conflict):
    """The agent tool's target names a place that has no browser here (target: sandbox with no
    sandbox profile)."""

    code = "TARGET_UNAVAILABLE"


class TabAmbiguous(Conflict):
    code = "TAB_AMBIGUOUS"


class TabQuarantined(Conflict):
    code = "TAB_QUARANTINED"


class TabCrashed(Conflict):
    code = "TAB_CRASHED"


class TabLoading(Conflict):
    code = "TAB_LOADING"


class BrowserNotRunning(Conflict):
    code = "BROWSER_NOT_RUNNING"


class ProfileExists(Conflict):
    code = "PROFILE_EXISTS"


class ProfileInUse(Conflict):
    code = "PROFILE_IN_USE"


class RefStale(Conflict):
    code = "REF_STALE"


class SnapshotStale(Conflict):
    """A snapshot cursor whose snapshot is no longer the tab's latest, or whose document changed."""

    code = "SNAPSHOT_STALE"


class ActElementCovered(Conflict):
    code = "ACT_ELEMENT_COVERED"


class ActElementHidden(Conflict):
    code = "ACT_ELEMENT_HIDDEN"


class ActElementDisabled(Conflict):
    code = "ACT_ELEMENT_DISABLED"


class ActElementDetached(Conflict):
    code = "ACT_ELEMENT_DETACHED"


class ActBlockedByDialog(Conflict):
    code = "ACT_BLOCKED_BY_DIALOG"


class TraceRunning(Conflict):
    code = "TRACE_RUNNING"


class TraceNotRunning(Conflict):
    code = "TRACE_NOT_RUNNING"


class HarRunning(Conflict):
    code = "HAR_RUNNING"


class HarNotRunning(Conflict):
    code = "HAR_NOT_RUNNING"


class RecordingRunning(Conflict):
    code = "RECORDING_RUNNING"


class RecordingNotRunning(Conflict):
    code = "RECORDING_NOT_RUNNING"


class RecordingFailed(ClawdError):
    """The video encoder (imageio-ffmpeg's ffmpeg) is missing, would not start, or failed."""

    code = "RECORDING_FAILED"
    http_status = 500


class ResponseBodyUnavailable(Conflict):
    code = "RESPONSE_BODY_UNAVAILABLE"


class RelayNoTab(Conflict):
    """The extension relay is connected but the user shares no tab (docs/architecture.md)."""

    code = "RELAY_NO_TAB"


class StorageUnavailable(Conflict):
    """The page's origin has no storage (about:blank, data: URLs, sandboxed frames)."""

    code = "STORAGE_UNAVAILABLE"


class WebRenderUnavailable(Conflict):
    """web_fetch's render reads pages only in a browser clawd launched here, behind its DNS-pinning
    proxy: a remote, extension, sandbox or attach-only profile cannot render (web/render.py)."""

    code = "WEB_RENDER_UNAVAILABLE"


class DialogNotFound(NotFound):
    code = "DIALOG_NOT_FOUND"


# -- 429: someone else asks us to slow down -------------------------------------------------------
class WebSearchRateLimited(ClawdError):
    """The search provider answered 429; `retryAfter` says when to try again, if it said."""

    code = "WEB_SEARCH_RATE_LIMITED"
    http_status = 429


# -- 5xx: something beyond the request failed -----------------------------------------------------
class BrowserLaunchFailed(ClawdError):
    code = "BROWSER_LAUNCH_FAILED"
    http_status = 500


class ConfigError(ClawdError):
    """The configuration does not validate; `problems` lists every one with its JSON path."""

    code = "CONFIG_INVALID"
    http_status = 500

    def __init__(self, problems: list[str], source: str | None = None):
        self.problems = list(problems)
        self.source = source
        where = f" in {source}" if source else ""
        super().__init__(f"invalid configuration{where}:\n  " + "\n  ".join(self.problems))


class CdpError(ClawdError):
    """Chromium answered a DevTools call with an error."""

    code = "CDP_ERROR"
    http_status = 502

    def __init__(
        self, message: str = "", *, cdp_code: int | None = None, method: str | None = None
    ):
        super().__init__(message)
        self.cdp_code = cdp_code
        self.method = method

    @property
    def document_gone(self) -> bool:
        """The call's document went away before Chrome answered: the tab navigated."""
        return bool(_DOCUMENT_GONE.search(self.message or ""))


class RelayUnsupported(CdpError):
    """chrome.debugger (the extension relay's only way into a tab) cannot run this method."""

    code = "RELAY_UNSUPPORTED"
    http_status = 501


class NavigationFailed(ClawdError):
    code = "NAVIGATION_FAILED"
    http_status = 502


class HostUnresolved(ClawdError):
    code = "HOST_UNRESOLVED"
    http_status = 502


class CdpUnreachable(ClawdError):
    """The DevTools endpoint did not answer."""

    code = "CDP_UNREACHABLE"
    http_status = 502


class PoolBusy(CdpUnreachable):
    """The browser pool has no free session (it answered 429: running sessions and queue full);
    `retryAfter` says in how many seconds to try again."""

    code = "POOL_BUSY"
    http_status = 503


class RemoteAuthFailed(CdpUnreachable):
    """The remote browser or pool refused the credentials in cdpUrl (401/403)."""

    code = "REMOTE_AUTH_FAILED"
    http_status = 502


class CdpEndpointRefused(ClawdError):
    """A remote DevTools endpoint pointed its websocket at another host."""

    code = "CDP_ENDPOINT_REFUSED"
    http_status = 502


class BrowserDisabled(ClawdError):
    code = "BROWSER_DISABLED"
    http_status = 503


class BrowserGone(ClawdError, ConnectionError):
    """The browser connection closed."""

    code = "BROWSER_GONE"
    http_status = 503


class RemoteSessionEnded(BrowserGone):
    """The pool closed the remote browser's session: its browser and tabs are gone; the next call
    connects a new one."""

    code = "REMOTE_SESSION_ENDED"
    http_status = 503


class RelayDisconnected(ClawdError):
    """No browser extension is connected to the relay (profile chrome, docs/architecture.md)."""

    code = "RELAY_DISCONNECTED"
    http_status = 503


class ServiceShuttingDown(ClawdError):
    code = "SHUTTING_DOWN"
    http_status = 503


class CdpTimeout(ClawdError, TimeoutError):
    code = "CDP_TIMEOUT"
    http_status = 504


class WebFetchFailed(ClawdError):
    "The page could not be fetched (connection, TLS, too many redirects): the message says which."

    code = "WEB_FETCH_FAILED"
    http_status = 502


class WebSearchAuth(ClawdError):
    """The search provider refused the API key (401/403)."""

    code = "WEB_SEARCH_AUTH"
    http_status = 502


class WebSearchFailed(ClawdError):
    """The search provider failed or answered something unreadable; `status` is its HTTP status."""

    code = "WEB_SEARCH_FAILED"
    http_status = 502


class WebTimeout(ClawdError, TimeoutError):
    """The fetch or search did not finish within its time limit."""

    code = "WEB_TIMEOUT"
    http_status = 504


# -- sandbox profiles (docs/architecture.md) ---------------------------------------------------
class SandboxUnavailable(ClawdError):
    """Docker is not installed or its daemon does not answer."""

    code = "SANDBOX_UNAVAILABLE"
    http_status = 503


class SandboxImageMissing(Conflict):
    """The sandbox browser image is not built: run `clawd-browser sandbox build`."""

    code = "SANDBOX_IMAGE_MISSING"


class SandboxFailed(ClawdError):
    """The sandbox container failed to start, became unready, or was killed."""

    code = "SANDBOX_FAILED"
    http_status = 502


class InvalidWorkspace(InvalidRequest):
    """The sandbox workspace is not an existing directory inside its allowed root."""

    code = "SANDBOX_WORKSPACE_INVALID"


class ObserveForbidden(Forbidden):
    """The observe link is unknown, expired or already used."""

    code = "OBSERVE_FORBIDDEN"


# -- WebMCP: the tools a page offers -------------------------------------------------
class WebmcpUnavailable(ClawdError):
    """The browser offers no WebMCP tools (Chromium needs --enable-features=WebMCP)."""

    code = "WEBMCP_UNAVAILABLE"
    http_status = 501


class WebmcpToolNotFound(NotFound):
    """The page offers no WebMCP tool of that name."""

    code = "WEBMCP_TOOL_NOT_FOUND"


class WebmcpInputInvalid(InvalidRequest):
    """The input does not match the tool's inputSchema (details: path)."""

    code = "WEBMCP_INPUT_INVALID"


class WebmcpToolAmbiguous(Conflict):
    """Several frames offer a tool of that name: say which with frame."""

    code = "WEBMCP_TOOL_AMBIGUOUS"


class WebmcpToolRemoved(Conflict):
    """The page removed the tool while it ran."""

    code = "WEBMCP_TOOL_REMOVED"


class WebmcpNavigatedAway(Conflict):
    """The tool's document went away before the tool answered."""

    code = "WEBMCP_NAVIGATED_AWAY"


class WebmcpToolFailed(ClawdError):
    """The page's tool answered with an error."""

    code = "WEBMCP_TOOL_FAILED"
    http_status = 502


class WebmcpSchemaInvalid(WebmcpToolFailed):
    """The tool's own inputSchema is not a valid JSON Schema."""

    code = "WEBMCP_SCHEMA_INVALID"


class WebmcpOutputTooLarge(WebmcpToolFailed):
    """The tool's output is larger than an answer carries."""

    code = "WEBMCP_OUTPUT_TOO_LARGE"


class WebmcpTimeout(ClawdError, TimeoutError):
    """The tool did not answer in time; its invocation was cancelled."""

    code = "WEBMCP_TIMEOUT"
    http_status = 504


def error_class_for_code(code: str) -> type[ClawdError]:
    """The most specific class whose `code` is `code` (clients map answers back to classes)."""
    return _BY_CODE.get(code, ClawdError)


def _collect(cls: type[ClawdError], into: dict) -> dict:
    into.setdefault(cls.code, cls)
    for sub in cls.__subclasses__():
        into[sub.code] = sub
        _collect(sub, into)
    return into


_BY_CODE: dict[str, type[ClawdError]] = _collect(ClawdError, {})
