"""Network control: routes (POST /route, GET /routes, DELETE /route/{id}), the profile's, which
answer, fail or send on its tabs' requests after the navigation policy judged them; and HAR
recordings of one tab (POST /har/start, /har/stop) into $CLAWD_HOME/har."""

from __future__ import annotations

from clawd.page.observe import har
from clawd.page.observe import routes as network_routes
from clawd.server.answers import tab_answer
from clawd.server.routing import Request


def add_route(req: Request) -> dict:
    """Add a route to the profile's browser (started if need be), in force in every tab of it
    when this answers: the route with its `routeId` and `matched` count. The newest matching
    route answers a request; the navigation policy judges the request before any route."""
    route = network_routes.build(req.args, req.service.layout.uploads)
    browser = req.browser()
    req.service.guard.routes.table(browser).add(route)
    req.service.guard.routes_changed(browser)
    return {"ok": True, **route.to_dict()}


def list_routes(req: Request) -> dict:
    """The routes in force; a browser that is not running has none (and is not started)."""
    table = req.service.guard.routes.peek(req.runtime().browser)
    return {"routes": [r.to_dict() for r in (table.routes() if table else [])]}


def remove_route(req: Request) -> dict:
    """Remove a route (404 NETWORK_ROUTE_NOT_FOUND when there is none by that id)."""
    browser = req.runtime().browser
    table = req.service.guard.routes.peek(browser) or network_routes.RouteTable()
    removed = table.remove(req.params["id"])  # an unknown id (or no browser) is a 404
    req.service.guard.routes_changed(browser)
    return {"ok": True, "removed": removed.to_dict()}


def har_start(req: Request) -> dict:
    """Record the tab's requests (every frame's) until POST /har/stop; 409 HAR_RUNNING when
    one already records."""
    tab = req.tab()
    a = req.args
    started = har.start(tab, content=a.get("content", "omit"), url_filter=a.get("urlFilter"))
    return tab_answer(tab, **started)


def har_stop(req: Request) -> dict:
    """Write the HAR 1.2 file (mode 0600) and answer its `path`, `entries` and `pages`; with
    content attach the bodies go to `<name>-bodies/` beside it. 409 HAR_NOT_RUNNING when none
    records."""
    tab = req.tab()
    tab.session.connection.events.flush(2.0)  # the events that came before this call count
    return tab_answer(tab, **har.stop(tab, req.service.layout.home / "har", req.args.get("path")))
