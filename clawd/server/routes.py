"""The whole HTTP API as one table (docs/api.md): which function answers each method and path.
An endpoint is a plain function (Request) -> dict. What each route reads from its body or query
string (unknown fields are 400) is declared in clawd/route_fields.py, under the same method and
path; POST /act reads the act table (clawd/acts.py). The observe links' routes hand the
connection over (routing.py): their token, not the bearer token, is the credential."""

from __future__ import annotations

from clawd.sandbox import observe_http
from clawd.server.api import (
    act,
    basic,
    debug,
    doctor,
    handoff,
    network,
    page,
    record,
    sandbox,
    settings,
    snapshot,
    state,
    tabs,
    uploads,
    web,
    webmcp,
)
from clawd.server.routing import route

# `tool`: the agent tool a route belongs to, which tools.allow/deny may deny (403 TOOL_DENIED):
# the browser's routes by the action of the `browser` tool they do (clawd/agent/schema.py), so
# `deny: [browser_act]` closes POST /act as it closes the tool's act. Page state and settings
# beyond a snapshot are act's (its evaluate reads and writes them; resize sets the viewport),
# debug reads console's. GET /media serves what allowed actions saved, and POST /tabs/action is
# four actions by its body (security/tools.py): `browser`, the tool with any action allowed.
ROUTES = [
    # basic
    route("GET", "/", basic.status, tool=None),
    route("POST", "/start", basic.start, tool="browser_start"),
    route("POST", "/stop", basic.stop, tool="browser_stop"),
    route("GET", "/profiles", basic.list_profiles, tool="browser_profiles"),
    route("POST", "/profiles/create", basic.create_profile, tool="browser_profiles"),
    route("DELETE", "/profiles/{name}", basic.delete_profile, tool="browser_profiles"),
    route("POST", "/reset-profile", basic.reset_profile, tool="browser_profiles"),
    route("GET", "/doctor", doctor.report, tool=None),
    route("GET", "/sandbox/observe", sandbox.observe, tool="browser_screenshot"),
    route("GET", "/observe/{link*}", observe_http.serve, tool=None, handover=True),
    # tabs
    route("GET", "/tabs", tabs.list_tabs, tool="browser_tabs"),
    route("POST", "/tabs/open", tabs.open_tab, tool="browser_open"),
    route("POST", "/tabs/focus", tabs.focus, tool="browser_focus"),
    route("DELETE", "/tabs/{target}", tabs.close_tab, tool="browser_close"),
    route("POST", "/tabs/action", tabs.tab_action),
    # page
    route("POST", "/navigate", page.navigate, tool="browser_navigate"),
    route("POST", "/screenshot", page.screenshot, tool="browser_screenshot"),
    route("POST", "/pdf", page.pdf, tool="browser_pdf"),
    route("GET", "/media/{name}", page.media),
    # snapshot
    route("GET", "/snapshot", snapshot.get_snapshot, tool="browser_snapshot"),
    route("GET", "/snapshot/find", snapshot.find, tool="browser_snapshot"),
    # act
    route("POST", "/act", record.noting_acts(act.act), tool="browser_act"),
    route("POST", "/highlight", act.highlight, tool="browser_act"),
    route("POST", "/hooks/file-chooser", act.file_chooser, tool="browser_upload"),
    route("POST", "/hooks/dialog", act.dialog, tool="browser_dialog"),
    route("POST", "/download", act.download, tool="browser_act"),
    route("POST", "/wait/download", act.wait_download, tool="browser_act"),
    route(
        "PUT",
        "/uploads/{name}",
        uploads.put_upload,
        raw_limit=uploads.MAX_UPLOAD,
        tool="browser_upload",
    ),
    route("POST", "/permissions/grant", act.grant_permissions, tool="browser_act"),
    # debug, state, settings
    route("GET", "/console", debug.console, tool="browser_console"),
    route("GET", "/errors", debug.page_errors, tool="browser_console"),
    route("GET", "/requests", debug.requests, tool="browser_console"),
    route("POST", "/response/body", debug.response_body, tool="browser_console"),
    route("POST", "/trace/start", debug.trace_start, tool="browser_console"),
    route("POST", "/trace/stop", debug.trace_stop, tool="browser_console"),
    route("POST", "/har/start", network.har_start, tool="browser_console"),
    route("POST", "/har/stop", network.har_stop, tool="browser_console"),
    route("POST", "/route", network.add_route, tool="browser_act"),
    route("GET", "/routes", network.list_routes, tool="browser_act"),
    route("DELETE", "/route/{id}", network.remove_route, tool="browser_act"),
    route("POST", "/record/start", record.record_start, tool="browser_screenshot"),
    route("POST", "/record/stop", record.record_stop, tool="browser_screenshot"),
    route("GET", "/recordings", record.list_recordings, tool="browser_screenshot"),
    route("GET", "/recordings/{name}", record.recording_file, tool="browser_screenshot"),
    route("GET", "/cookies", state.cookies, tool="browser_act"),
    route("POST", "/cookies/set", state.set_cookie, tool="browser_act"),
    route("POST", "/cookies/clear", state.clear_cookies, tool="browser_act"),
    route("GET", "/storage/{kind}", state.storage_get, tool="browser_act"),
    route("POST", "/storage/{kind}/set", state.storage_set, tool="browser_act"),
    route("POST", "/storage/{kind}/clear", state.storage_clear, tool="browser_act"),
    route("POST", "/state/save", state.save_state, tool="browser_act"),
    route("POST", "/state/load", state.load_state, tool="browser_act"),
    route("POST", "/handoff", handoff.hand_off, tool="browser_handoff"),
    route("POST", "/handoff/done", handoff.give_back, tool="browser_handoff"),
    route("POST", "/set/offline", settings.offline, tool="browser_act"),
    route("POST", "/set/headers", settings.headers, tool="browser_act"),
    route("POST", "/set/credentials", settings.credentials, tool="browser_act"),
    route("POST", "/set/geolocation", settings.geolocation, tool="browser_act"),
    route("POST", "/set/media", settings.media, tool="browser_act"),
    route("POST", "/set/timezone", settings.timezone, tool="browser_act"),
    route("POST", "/set/locale", settings.locale, tool="browser_act"),
    route("POST", "/set/device", settings.device, tool="browser_act"),
    route("POST", "/set/viewport", settings.viewport, tool="browser_act"),
    # WebMCP: the tools a page offers, the agent tool's webmcp action
    route("GET", "/webmcp/tools", webmcp.list_tools, tool="browser_webmcp"),
    route("POST", "/webmcp/call", webmcp.call_tool, tool="browser_webmcp"),
    # web tier (docs/architecture.md): the web_fetch and web_search tools' routes
    route("POST", "/web/fetch", web.fetch, tool="web_fetch"),
    route("POST", "/web/search", web.search, tool="web_search"),
]
