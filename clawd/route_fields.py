"""What every route of the HTTP API reads (docs/api.md): its body and query fields, their types,
bounds and help, keyed by (method, path pattern). The one request schema of each route: the server
reads requests with it (server/routes.py looks a route's fields up here), the agent tool and the
MCP server make their JSON Schemas from it (agent/schema.py, agent/web_tools.py). POST /act's
fields are the act table's (clawd/acts.py), read by the same readers (clawd/fields.py). It imports
declarations only (the field vocabulary, the ref grammar, the closed word lists of
clawd/words.py), never a tier, a page or a socket.

A route that is not in FIELDS reads no declared fields (its endpoint reads its body itself, or
it has none); `body={}` means "no body fields": any field sent is a 400."""

from __future__ import annotations

from dataclasses import dataclass

from clawd import errors
from clawd.fields import (
    ANY,
    BOOL,
    LIST,
    STR,
    TEXT,
    Field,
    Reader,
    alias,
    as_bool,
    choice,
    integer,
    number,
    opt,
    req,
)
from clawd.ref_syntax import REF_MODES
from clawd.words import EXTRACT_MODES, RENDER_MODES, SEARCH_PROVIDERS


@dataclass(frozen=True)
class RouteFields:
    body: dict[str, Field] | None = None  # None: the endpoint reads its body itself
    query: dict[str, Field] | None = None

    def all(self) -> dict[str, Field]:
        return {**(self.query or {}), **(self.body or {})}


def as_refs(value, name: str, error: type = errors.InvalidRequest):
    """refs=true|false (refs on or off), or how refs resolve: aria (bound to the element, the
    default) or role (OpenClaw's role refs: re-found by role + name + nth after a re-render)."""
    if isinstance(value, str) and value.strip().lower() in REF_MODES:
        return value.strip().lower()
    try:
        return as_bool(value, name, error=error)
    except errors.InvalidRequest:
        raise error(
            f"{name} must be role, aria, true or false; not {value!r}"
        ) from None


def _url(value, name: str, error: type) -> str:
    if not isinstance(value, str) or not value.strip():
        raise errors.WebInvalidUrl(f"{name} must be a non-empty http: or https: URL")
    return value


TARGET = {
    "targetId": opt(
        STR,
        "Tab: stable id such as t2 (from tabs/open), a label, or a raw target id "
        "(default: the tab used last)",
    )
}
TIMEOUT = {"timeoutMs": opt(integer(100, 300000), "how long to wait, in milliseconds")}
WRAP = {"wrap": opt(BOOL, "wrap page content in untrusted-content markers")}
# answers of the page's state (its title, dialog messages, an evaluate's result): short strings,
# each sanitized of marker look-alikes for an agent, as every string of a wrapped answer is
WRAP_STRINGS = {"wrap": opt(BOOL, "sanitize the page's strings in the answer for an agent")}
CLEAR = {"clear": opt(BOOL, "empty the buffer after reading")}

SCREENSHOT_TYPES = ("png", "jpeg")
CONSOLE_LEVELS = ("debug", "log", "info", "warning", "error")  # page/observe/console.py judges

SNAPSHOT_QUERY = {
    **TARGET,
    "format": opt(STR, "ai (the default) or aria (Chrome's accessibility tree)"),
    "interactive": opt(BOOL, "only elements one can act on, as a flat list"),
    "compact": opt(BOOL, "drop unnamed structure without refs"),
    "depth": opt(integer(0, 1000), "deepest level shown"),
    "maxChars": opt(integer(0), "cut the text at this many characters"),
    "mode": opt(STR, "efficient: interactive elements and live regions, compact, 10000 chars"),
    "selector": opt(STR, "CSS selector of the subtree to read"),
    "frame": opt(STR, "ref of an iframe whose document to read"),
    "limit": opt(integer(1, 2000), "most refs to keep"),
    "labels": opt(BOOL, "also a screenshot with the refs drawn on it"),
    "urls": opt(BOOL, "show each link's absolute URL"),
    "refs": opt(
        Reader(as_refs, {"enum": [*REF_MODES, True, False]}),
        "aria = refs bound to their element (default); role = a ref whose element a "
        "re-render replaced acts on the element with the same role and name",
    ),
    **WRAP,
    "timeoutMs": opt(integer(100, 120000), "how long to wait, in milliseconds"),
    "profile": opt(STR),
}

SNAPSHOT_CURSOR = {
    "cursor": opt(
        STR,
        "the `next` of a truncated snapshot: its following lines, with the same refs",
    ),
    "delta": opt(BOOL, "only the lines changed since the tab's last snapshot"),
}

FETCH_BODY = {
    "url": req(Reader(_url, {"type": "string"}), "http(s) URL of the page to read"),
    "extractMode": opt(
        choice(*EXTRACT_MODES),
        "markdown (default) keeps headings, lists, links and tables; text is plain",
    ),
    "maxChars": opt(
        integer(100, 200000),
        "Cut the text at this many characters (default: the service's web.fetch.maxChars, 50000)",
    ),
    "render": opt(
        choice(*RENDER_MODES),
        "Read the page through the browser: auto (default) when its HTML has almost no text "
        "but scripts, never, or always",
    ),
    **WRAP,
}
SEARCH_BODY = {  # what a provider cannot judge as a 400, web/search judges with §13's codes
    "query": req(TEXT, "What to search for", minLength=1),
    "count": opt(integer(), "How many results (default 5)", minimum=1, maximum=10),
    "provider": opt(
        STR,
        "Search provider (default: the service's configured one)",
        enum=list(SEARCH_PROVIDERS),
    ),
    "country": opt(STR, "Two-letter country code of the results, e.g. DE"),
    "search_lang": opt(STR, "Language of the results, e.g. en"),
    "searchLang": alias("search_lang"),
    "ui_lang": opt(STR, "Interface language, e.g. en-US"),
    "uiLang": alias("ui_lang"),
    "freshness": opt(STR, "pd, pw, pm, py (past day, week, month, year) or YYYY-MM-DDtoYYYY-MM-DD"),
    **WRAP,
}

ROUTE_BODY = {
    "url": req(
        STR,
        "glob of the request URLs: * within a path segment, ** across; without a star, a part "
        "of the URL",
    ),
    "action": req(
        choice("fulfill", "abort", "continue"),
        "fulfill: answer with status, headers, body; abort: fail the request; continue: send it "
        "on (with headers set, to rewriteUrl)",
    ),
    "resourceType": opt(STR, "only requests of this type: Document, Script, XHR, Fetch, ..."),
    "method": opt(STR, "only requests with this HTTP method"),
    "status": opt(integer(100, 599), "fulfill: the answer's status (default 200)"),
    "headers": opt(
        # judged by page/observe/routes.py, which names the header at fault
        Reader(ANY.read, {"type": "object", "additionalProperties": {"type": "string"}}),
        "fulfill: the answer's headers; continue: headers set on the request",
    ),
    "body": opt(TEXT, "fulfill: the answer's body"),
    "bodyPath": opt(STR, "fulfill: a file under $CLAWD_HOME/uploads whose bytes are the body"),
    "rewriteUrl": opt(
        STR, "continue: send the request to this URL instead (judged by the navigation policy)"
    ),
    "times": opt(integer(1), "remove the route once it answered this many requests"),
}
HAR_START = {
    **TARGET,
    "content": opt(
        choice("omit", "embed", "attach"),
        "response bodies: omit (default), embed in the HAR, or attach as files beside it",
    ),
    "urlFilter": opt(STR, "record only requests whose URL matches this glob or part"),
}

FIELDS: dict[tuple[str, str], RouteFields] = {
    # basic
    ("POST", "/start"): RouteFields(
        body={}, query={"headless": opt(BOOL, "headless this once, whatever the config says")}
    ),
    ("POST", "/stop"): RouteFields(body={}),
    ("POST", "/profiles/create"): RouteFields(
        body={
            "name": req(STR),
            "color": opt(STR),
            "cdpUrl": opt(STR),
            "driver": opt(STR),
            "userDataDir": opt(STR),
        }
    ),
    ("DELETE", "/profiles/{name}"): RouteFields(query={"purge": opt(BOOL)}),
    ("POST", "/reset-profile"): RouteFields(body={"purge": opt(BOOL)}),
    ("GET", "/doctor"): RouteFields(query={}),
    ("GET", "/sandbox/observe"): RouteFields(query={"mode": opt(STR)}),
    # tabs
    ("GET", "/tabs"): RouteFields(query={**WRAP}),
    ("POST", "/tabs/open"): RouteFields(
        body={
            "url": req(STR, "http(s) URL"),
            "label": opt(STR, "a name for the new tab, usable as targetId"),
            **TIMEOUT,
            **WRAP_STRINGS,
        }
    ),
    ("POST", "/tabs/focus"): RouteFields(body={"targetId": req(STR, TARGET["targetId"].help)}),
    ("POST", "/tabs/action"): RouteFields(
        body={
            "action": req(STR),
            "index": opt(integer(0)),
            "url": opt(STR),
            "label": opt(STR),
            **TIMEOUT,
        }
    ),
    # page
    ("POST", "/navigate"): RouteFields(
        body={"url": req(STR, "http(s) URL"), **TARGET, **TIMEOUT, **WRAP_STRINGS}
    ),
    ("POST", "/screenshot"): RouteFields(
        body={
            **TARGET,
            "fullPage": opt(BOOL, "the whole page, not only the viewport"),
            "ref": opt(STR, "element ref (e12) of the element to capture alone"),
            "element": opt(STR, "CSS selector of the element to capture alone"),
            "type": opt(STR, "image format (png)", enum=list(SCREENSHOT_TYPES)),
            "quality": opt(integer(1, 100), "jpeg quality"),
            "labels": opt(BOOL, "draw the refs of a fresh snapshot on the image"),
            "describe": opt(
                Reader(
                    lambda v, f, e: v if v == "auto" else as_bool(v, f, error=e),
                    {"enum": [True, False, "auto"]},
                ),
                "true answers a description of the image in words (the service's vision "
                "models) instead of the image, false the image; omitted, the service's "
                "browser.vision.enabled decides",
            ),
            "maxSide": opt(integer(16, 2000), "longest side of the image, in pixels"),
            "ifChanged": opt(
                BOOL,
                "unchanged: true and no image when the pixels are those of the tab's last "
                "screenshot of the same shape",
            ),
        }
    ),
    ("POST", "/pdf"): RouteFields(body={**TARGET, "landscape": opt(BOOL, "landscape orientation")}),
    # snapshot
    ("GET", "/snapshot"): RouteFields(query={**SNAPSHOT_QUERY, **SNAPSHOT_CURSOR}),
    ("GET", "/snapshot/find"): RouteFields(
        query={**SNAPSHOT_QUERY, "text": opt(STR, "text the element's name contains")}
    ),
    # act: POST /act reads the act table (server/act_request.py), and of its query only `wrap`
    # (WRAP_STRINGS: server/api/act.py); the rest of its query (targetId, profile) is not checked
    ("POST", "/highlight"): RouteFields(
        body={
            "ref": req(STR, "element ref (e12) to outline"),
            **TARGET,
            **TIMEOUT,
            "durationMs": opt(integer(100, 10000), "how long the outline shows"),
        }
    ),
    ("POST", "/hooks/file-chooser"): RouteFields(
        body={
            "paths": req(
                LIST,
                "files under the service's $CLAWD_HOME/uploads directory",
                items={"type": "string"},
                minItems=1,
            ),
            "ref": opt(STR, "ref of the button that opens the file chooser"),
            "inputRef": opt(STR, "ref of the <input type=file> to set directly"),
            "element": opt(STR, "CSS selector of the <input type=file> to set directly"),
            **TARGET,
            **TIMEOUT,
        }
    ),
    ("POST", "/hooks/dialog"): RouteFields(
        body={
            "accept": req(BOOL, "accept (OK) or dismiss (Cancel) the pending or next dialog"),
            "promptText": opt(TEXT, "text to answer a prompt() with"),
            "dialogId": opt(STR, "which pending dialog (default: the oldest)"),
            **TARGET,
            **TIMEOUT,
        }
    ),
    ("POST", "/download"): RouteFields(
        body={"ref": req(STR), "path": opt(STR), **TARGET, **TIMEOUT}
    ),
    ("POST", "/wait/download"): RouteFields(body={**TARGET, "path": opt(STR), **TIMEOUT}),
    ("PUT", "/uploads/{name}"): RouteFields(query={}),
    ("POST", "/permissions/grant"): RouteFields(
        body={"origin": opt(STR), "permissions": req(LIST)}
    ),
    # debug
    ("GET", "/console"): RouteFields(
        query={
            **TARGET,
            "level": opt(STR, "this level and above", enum=list(CONSOLE_LEVELS)),
            **CLEAR,
            **WRAP,
        }
    ),
    ("GET", "/errors"): RouteFields(query={**TARGET, **CLEAR, **WRAP}),
    ("GET", "/requests"): RouteFields(query={**TARGET, "filter": opt(STR), **CLEAR, **WRAP}),
    ("POST", "/response/body"): RouteFields(
        body={**TARGET, "url": req(STR), **TIMEOUT, **WRAP, "maxChars": opt(integer(0))}
    ),
    ("POST", "/trace/start"): RouteFields(
        body={
            **TARGET,
            "screenshots": opt(BOOL),
            "snapshots": opt(BOOL),
            "sources": opt(BOOL),
        }
    ),
    ("POST", "/trace/stop"): RouteFields(body={**TARGET, "path": opt(STR)}),
    ("POST", "/har/start"): RouteFields(body=HAR_START),
    ("POST", "/har/stop"): RouteFields(
        body={**TARGET, "path": opt(STR, "file under $CLAWD_HOME/har (default: har-<time>.har)")}
    ),
    # network routes: the profile's (page/observe/routes.py)
    ("POST", "/route"): RouteFields(body=ROUTE_BODY),
    ("GET", "/routes"): RouteFields(query={}),
    ("DELETE", "/route/{id}"): RouteFields(query={}),
    ("POST", "/record/start"): RouteFields(
        body={
            **TARGET,
            "fps": opt(integer(1, 30), "frames per second (default browser.recording.fps)"),
            "maxSeconds": opt(
                number(0.1),
                "stop by itself after this many seconds (default browser.recording."
                "defaultSeconds, at most browser.recording.maxSeconds)",
            ),
            "maxBytes": opt(
                integer(65536),
                "stop when the video nears this many bytes (at most browser.recording.maxBytes)",
            ),
        }
    ),
    ("POST", "/record/stop"): RouteFields(body=TARGET),
    ("GET", "/recordings"): RouteFields(query={}),
    # state
    ("GET", "/cookies"): RouteFields(query={**TARGET, "all": opt(BOOL), **WRAP}),
    ("POST", "/cookies/set"): RouteFields(body={**TARGET, "cookie": req(ANY)}),
    ("POST", "/cookies/clear"): RouteFields(body=TARGET),
    ("GET", "/storage/{kind}"): RouteFields(query={**TARGET, "key": opt(STR), **WRAP}),
    ("POST", "/storage/{kind}/set"): RouteFields(
        body={**TARGET, "key": req(STR), "value": req(TEXT)}
    ),
    ("POST", "/storage/{kind}/clear"): RouteFields(body=TARGET),
    ("POST", "/state/save"): RouteFields(
        body={
            **TARGET,
            "path": opt(STR, "file under $CLAWD_HOME/state (default: state-<time>.json)"),
            "origins": opt(LIST, "origins whose storage to save (default: the open tabs')"),
            "encrypt": opt(BOOL, "seal the file with the key in $CLAWD_HOME/state.key"),
        }
    ),
    ("POST", "/state/load"): RouteFields(
        body={**TARGET, "path": req(STR, "a storage state file under $CLAWD_HOME/state")}
    ),
    ("POST", "/handoff"): RouteFields(
        body={**TARGET, "reason": req(STR, "what the person is asked to do, shown to them")}
    ),
    ("POST", "/handoff/done"): RouteFields(body=TARGET),
    # settings
    ("POST", "/set/offline"): RouteFields(body={**TARGET, "offline": req(BOOL)}),
    ("POST", "/set/headers"): RouteFields(body={**TARGET, "headers": opt(ANY), "clear": opt(BOOL)}),
    ("POST", "/set/credentials"): RouteFields(
        body={**TARGET, "username": opt(STR), "password": opt(TEXT), "clear": opt(BOOL)}
    ),
    ("POST", "/set/geolocation"): RouteFields(
        body={
            **TARGET,
            "latitude": opt(number(-90, 90)),
            "longitude": opt(number(-180, 180)),
            "accuracy": opt(number(0)),
            "origin": opt(STR),
            "clear": opt(BOOL),
        }
    ),
    ("POST", "/set/media"): RouteFields(
        body={**TARGET, "colorScheme": opt(STR), "reducedMotion": opt(STR)}
    ),
    ("POST", "/set/timezone"): RouteFields(
        body={**TARGET, "timezone": opt(STR), "timezoneId": alias("timezone"), "clear": opt(BOOL)}
    ),
    ("POST", "/set/locale"): RouteFields(body={**TARGET, "locale": opt(STR), "clear": opt(BOOL)}),
    ("POST", "/set/device"): RouteFields(body={**TARGET, "name": opt(STR), "clear": opt(BOOL)}),
    ("POST", "/set/viewport"): RouteFields(
        body={
            **TARGET,
            "width": req(integer(1, 16384)),
            "height": req(integer(1, 16384)),
            "deviceScaleFactor": opt(number(0.1, 10)),
            "mobile": opt(BOOL),
        }
    ),
    # WebMCP: the tools a page offers
    ("GET", "/webmcp/tools"): RouteFields(
        query={
            **TARGET,
            "since": opt(integer(0), "a version an earlier answer gave: wait for a change"),
            "waitMs": opt(integer(0, 30000), "with since: how long to wait for a change"),
            **WRAP,
        }
    ),
    ("POST", "/webmcp/call"): RouteFields(
        body={
            "name": req(STR, "the page tool to call (GET /webmcp/tools lists them)"),
            "input": opt(
                Reader(lambda v, f, e: v, {"type": "object"}),
                "the tool's input, checked against its inputSchema",
            ),
            "frame": opt(STR, "frame id of the tool when several frames offer the name"),
            **TARGET,
            **TIMEOUT,
            **WRAP,
        }
    ),
    # web tier (docs/architecture.md)
    ("POST", "/web/fetch"): RouteFields(body=FETCH_BODY),
    ("POST", "/web/search"): RouteFields(body=SEARCH_BODY),
}


def of(method: str, pattern: str) -> RouteFields:
    """The fields of a route; a route with none declared reads no fields."""
    return FIELDS.get((method, pattern), RouteFields())
