"""The whole HTTP API as one table (DESIGN.md §6). An endpoint is a plain function
(Request) -> dict; `body=`/`query=` declare the fields a route reads (unknown ones are 400)."""
from __future__ import annotations

from clawd.server.api import basic, page, tabs
from clawd.server.routing import route
from clawd.server.validation import as_bool, as_int, as_str, opt, req

TARGET = {"targetId": opt(as_str)}
TIMEOUT = {"timeoutMs": opt(lambda v, f: as_int(v, f, minimum=100, maximum=300000))}

ROUTES = [
    # basic
    route("GET", "/", basic.status),
    route("POST", "/start", basic.start, body={}, query={"headless": opt(as_bool)}),
    route("POST", "/stop", basic.stop, body={}),
    route("GET", "/profiles", basic.list_profiles),
    route("POST", "/profiles/create", basic.create_profile,
          body={"name": req(as_str), "color": opt(as_str), "cdpUrl": opt(as_str), "driver": opt(as_str),
                "userDataDir": opt(as_str)}),
    route("DELETE", "/profiles/{name}", basic.delete_profile),
    route("POST", "/reset-profile", basic.reset_profile, body={}),
    # tabs
    route("GET", "/tabs", tabs.list_tabs),
    route("POST", "/tabs/open", tabs.open_tab, body={"url": req(as_str), "label": opt(as_str), **TIMEOUT}),
    route("POST", "/tabs/focus", tabs.focus, body={"targetId": req(as_str)}),
    route("DELETE", "/tabs/{target}", tabs.close_tab),
    route("POST", "/tabs/action", tabs.tab_action,
          body={"action": req(as_str), "index": opt(lambda v, f: as_int(v, f, minimum=0)),
                "url": opt(as_str), "label": opt(as_str), **TIMEOUT}),
    # page
    route("POST", "/navigate", page.navigate, body={"url": req(as_str), **TARGET, **TIMEOUT}),
    route("POST", "/screenshot", page.screenshot,
          body={**TARGET, "fullPage": opt(as_bool), "ref": opt(as_str), "element": opt(as_str),
                "type": opt(as_str), "quality": opt(lambda v, f: as_int(v, f, minimum=1, maximum=100)),
                "labels": opt(as_bool)}),
    route("POST", "/pdf", page.pdf, body={**TARGET, "landscape": opt(as_bool)}),
    route("GET", "/media/{name}", page.media),
    # -- snapshot (issue 3) --
    # -- act (issue 4) --
    # -- debug, state, settings (issue 5) --
]
