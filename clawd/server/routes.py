"""The whole HTTP API as one table (DESIGN.md §6). An endpoint is a plain function
(Request) -> dict; `body=`/`query=` declare the fields a route reads (unknown ones are 400)."""

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
from clawd.server.validation import alias, as_bool, as_int, as_list, as_number, as_str, opt, req

TARGET = {"targetId": opt(as_str)}
TIMEOUT = {"timeoutMs": opt(lambda v, f: as_int(v, f, minimum=100, maximum=300000))}

ROUTES = [
    # basic
    route("GET", "/", basic.status, tool=None),
    route("POST", "/start", basic.start, body={}, query={"headless": opt(as_bool)}),
    route("POST", "/stop", basic.stop, body={}),
    route("GET", "/profiles", basic.list_profiles),
    route(
        "POST",
        "/profiles/create",
        basic.create_profile,
        body={
            "name": req(as_str),
            "color": opt(as_str),
            "cdpUrl": opt(as_str),
            "driver": opt(as_str),
            "userDataDir": opt(as_str),
        },
    ),
    route("DELETE", "/profiles/{name}", basic.delete_profile, query={"purge": opt(as_bool)}),
    route("POST", "/reset-profile", basic.reset_profile, body={"purge": opt(as_bool)}),
    route("GET", "/doctor", doctor.report, query={}, tool=None),
    route("GET", "/sandbox/observe", sandbox.observe, query={"mode": opt(as_str)}),
    # tabs
    route("GET", "/tabs", tabs.list_tabs, query={"wrap": opt(as_bool)}),
    route(
        "POST",
        "/tabs/open",
        tabs.open_tab,
        body={"url": req(as_str), "label": opt(as_str), **TIMEOUT},
    ),
    route("POST", "/tabs/focus", tabs.focus, body={"targetId": req(as_str)}),
    route("DELETE", "/tabs/{target}", tabs.close_tab),
    route(
        "POST",
        "/tabs/action",
        tabs.tab_action,
        body={
            "action": req(as_str),
            "index": opt(lambda v, f: as_int(v, f, minimum=0)),
            "url": opt(as_str),
            "label": opt(as_str),
            **TIMEOUT,
        },
    ),
    # page
    route("POST", "/navigate", page.navigate, body={"url": req(as_str), **TARGET, **TIMEOUT}),
    route(
        "POST",
        "/screenshot",
        page.screenshot,
        body={
            **TARGET,
            "fullPage": opt(as_bool),
            "ref": opt(as_str),
            "element": opt(as_str),
            "type": opt(as_str),
            "quality": opt(lambda v, f: as_int(v, f, minimum=1, maximum=100)),
            "labels": opt(as_bool),
            "describe": opt(lambda v, f: v if v == "auto" else as_bool(v, f)),
            "maxSide": opt(lambda v, f: as_int(v, f, minimum=16, maximum=2000)),
        },
    ),
    route("POST", "/pdf", page.pdf, body={**TARGET, "landscape": opt(as_bool)}),
    route("GET", "/media/{name}", page.media),
    # -- snapshot (issue 3) --
    route("GET", "/snapshot", snapshot.get_snapshot, query=snapshot.QUERY),
    route("GET", "/snapshot/find", snapshot.find, query=snapshot.FIND_QUERY),
    # -- act (issue 4) --
    route("POST", "/act", act.act),  # the body: the act table's (server/act_request.py reads it)
    route(
        "POST",
        "/highlight",
        act.highlight,
        body={
            "ref": req(as_str),
            **TARGET,
            **TIMEOUT,
            "durationMs": opt(lambda v, f: as_int(v, f, minimum=100, maximum=10000)),
        },
    ),
    route(
        "POST",
        "/hooks/file-chooser",
        act.file_chooser,
        body={
            "paths": req(as_list),
            "ref": opt(as_str),
            "inputRef": opt(as_str),
            "element": opt(as_str),
            **TARGET,
            **TIMEOUT,
        },
    ),
    route(
        "POST",
        "/hooks/dialog",
        act.dialog,
        body={
            "accept": req(as_bool),
            "promptText": opt(lambda v, f: as_str(v, f, allow_empty=True)),
            "dialogId": opt(as_str),
            **TARGET,
            **TIMEOUT,
        },
    ),
    route(
        "POST",
        "/download",
        act.download,
        body={"ref": req(as_str), "path": opt(as_str), **TARGET, **TIMEOUT},
    ),
    route(
        "POST", "/wait/download", act.wait_download, body={**TARGET, "path": opt(as_str), **TIMEOUT}
    ),
    route("PUT", "/uploads/{name}", uploads.put_upload, query={}, raw_limit=uploads.MAX_UPLOAD),
    route(
        "POST",
        "/permissions/grant",
        act.grant_permissions,
        body={"origin": opt(as_str), "permissions": req(as_list)},
    ),
    # -- debug, state, settings (issue 5) --
    route(
        "GET",
        "/console",
        debug.console,
        query={**TARGET, "level": opt(as_str), "clear": opt(as_bool), "wrap": opt(as_bool)},
    ),
    route(
        "GET",
        "/errors",
        debug.page_errors,
        query={**TARGET, "clear": opt(as_bool), "wrap": opt(as_bool)},
    ),
    route(
        "GET",
        "/requests",
        debug.requests,
        query={**TARGET, "filter": opt(as_str), "clear": opt(as_bool)},
    ),
    route(
        "POST",
        "/response/body",
        debug.response_body,
        body={
            **TARGET,
            "url": req(as_str),
            **TIMEOUT,
            "wrap": opt(as_bool),
            "maxChars": opt(lambda v, f: as_int(v, f, minimum=0)),
        },
    ),
    route(
        "POST",
        "/trace/start",
        debug.trace_start,
        body={
            **TARGET,
            "screenshots": opt(as_bool),
            "snapshots": opt(as_bool),
            "sources": opt(as_bool),
        },
    ),
    route("POST", "/trace/stop", debug.trace_stop, body={**TARGET, "path": opt(as_str)}),
    route("GET", "/cookies", state.cookies, query={**TARGET, "all": opt(as_bool)}),
    route("POST", "/cookies/set", state.set_cookie, body={**TARGET, "cookie": req(lambda v, f: v)}),
    route("POST", "/cookies/clear", state.clear_cookies, body=TARGET),
    route("GET", "/storage/{kind}", state.storage_get, query={**TARGET, "key": opt(as_str)}),
    route(
        "POST",
        "/storage/{kind}/set",
        state.storage_set,
        body={
            **TARGET,
            "key": req(as_str),
            "value": req(lambda v, f: as_str(v, f, allow_empty=True)),
        },
    ),
    route("POST", "/storage/{kind}/clear", state.storage_clear, body=TARGET),
    route("POST", "/set/offline", settings.offline, body={**TARGET, "offline": req(as_bool)}),
    route(
        "POST",
        "/set/headers",
        settings.headers,
        body={**TARGET, "headers": opt(lambda v, f: v), "clear": opt(as_bool)},
    ),
    route(
        "POST",
        "/set/credentials",
        settings.credentials,
        body={
            **TARGET,
            "username": opt(as_str),
            "password": opt(lambda v, f: as_str(v, f, allow_empty=True)),
            "clear": opt(as_bool),
        },
    ),
    route(
        "POST",
        "/set/geolocation",
        settings.geolocation,
        body={
            **TARGET,
            "latitude": opt(lambda v, f: as_number(v, f, minimum=-90, maximum=90)),
            "longitude": opt(lambda v, f: as_number(v, f, minimum=-180, maximum=180)),
            "accuracy": opt(lambda v, f: as_number(v, f, minimum=0)),
            "origin": opt(as_str),
            "clear": opt(as_bool),
        },
    ),
    route(
        "POST",
        "/set/media",
        settings.media,
        body={**TARGET, "colorScheme": opt(as_str), "reducedMotion": opt(as_str)},
    ),
    route(
        "POST",
        "/set/timezone",
        settings.timezone,
        body={
            **TARGET,
            "timezone": opt(as_str),
            "timezoneId": alias("timezone"),
            "clear": opt(as_bool),
        },
    ),
    route(
        "POST",
        "/set/locale",
        settings.locale,
        body={**TARGET, "locale": opt(as_str), "clear": opt(as_bool)},
    ),
    route(
        "POST",
        "/set/device",
        settings.device,
        body={**TARGET, "name": opt(as_str), "clear": opt(as_bool)},
    ),
    route(
        "POST",
        "/set/viewport",
        settings.viewport,
        body={
            **TARGET,
            "width": req(lambda v, f: as_int(v, f, minimum=1, maximum=16384)),
            "height": req(lambda v, f: as_int(v, f, minimum=1, maximum=16384)),
            "deviceScaleFactor": opt(lambda v, f: as_number(v, f, minimum=0.1, maximum=10)),
            "mobile": opt(as_bool),
        },
    ),
    # -- web tier (DESIGN.md §13): the web_fetch and web_search tools' routes --
    route("POST", "/web/fetch", web.fetch, body=web.FETCH_BODY, tool="web_fetch"),
    route("POST", "/web/search", web.search, body=web.SEARCH_BODY, tool="web_search"),
]
