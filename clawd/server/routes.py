"""The whole HTTP API as one table (DESIGN.md §6): which function answers each method and path.
An endpoint is a plain function (Request) -> dict. What each route reads from its body or query
string (unknown fields are 400) is declared in clawd/route_fields.py, under the same method and
path; POST /act reads the act table (clawd/acts.py)."""

from __future__ import annotations

from clawd.server.api import (
    act,
    basic,
    debug,
    doctor,
    page,
    sandbox,
    settings,
    snapshot,
    state,
    tabs,
    uploads,
    web,
)
from clawd.server.routing import route

ROUTES = [
    # basic
    route("GET", "/", basic.status, tool=None),
    route("POST", "/start", basic.start),
    route("POST", "/stop", basic.stop),
    route("GET", "/profiles", basic.list_profiles),
    route("POST", "/profiles/create", basic.create_profile),
    route("DELETE", "/profiles/{name}", basic.delete_profile),
    route("POST", "/reset-profile", basic.reset_profile),
    route("GET", "/doctor", doctor.report, tool=None),
    route("GET", "/sandbox/observe", sandbox.observe),
    # tabs
    route("GET", "/tabs", tabs.list_tabs),
    route("POST", "/tabs/open", tabs.open_tab),
    route("POST", "/tabs/focus", tabs.focus),
    route("DELETE", "/tabs/{target}", tabs.close_tab),
    route("POST", "/tabs/action", tabs.tab_action),
    # page
    route("POST", "/navigate", page.navigate),
    route("POST", "/screenshot", page.screenshot),
    route("POST", "/pdf", page.pdf),
    route("GET", "/media/{name}", page.media),
    # snapshot
    route("GET", "/snapshot", snapshot.get_snapshot),
    route("GET", "/snapshot/find", snapshot.find),
    # act
    route("POST", "/act", act.act),
    route("POST", "/highlight", act.highlight),
    route("POST", "/hooks/file-chooser", act.file_chooser),
    route("POST", "/hooks/dialog", act.dialog),
    route("POST", "/download", act.download),
    route("POST", "/wait/download", act.wait_download),
    route("PUT", "/uploads/{name}", uploads.put_upload, raw_limit=uploads.MAX_UPLOAD),
    route("POST", "/permissions/grant", act.grant_permissions),
    # debug, state, settings
    route("GET", "/console", debug.console),
    route("GET", "/errors", debug.page_errors),
    route("GET", "/requests", debug.requests),
    route("POST", "/response/body", debug.response_body),
    route("POST", "/trace/start", debug.trace_start),
    route("POST", "/trace/stop", debug.trace_stop),
    route("GET", "/cookies", state.cookies),
    route("POST", "/cookies/set", state.set_cookie),
    route("POST", "/cookies/clear", state.clear_cookies),
    route("GET", "/storage/{kind}", state.storage_get),
    route("POST", "/storage/{kind}/set", state.storage_set),
    route("POST", "/storage/{kind}/clear", state.storage_clear),
    route("POST", "/set/offline", settings.offline),
    route("POST", "/set/headers", settings.headers),
    route("POST", "/set/credentials", settings.credentials),
    route("POST", "/set/geolocation", settings.geolocation),
    route("POST", "/set/media", settings.media),
    route("POST", "/set/timezone", settings.timezone),
    route("POST", "/set/locale", settings.locale),
    route("POST", "/set/device", settings.device),
    route("POST", "/set/viewport", settings.viewport),
    # web tier (DESIGN.md §13): the web_fetch and web_search tools' routes
    route("POST", "/web/fetch", web.fetch, tool="web_fetch"),
    route("POST", "/web/search", web.search, tool="web_search"),
]
