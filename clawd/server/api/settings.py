"""`POST /set/...`: per-tab emulation and network overrides. Each answers with the tab's current
settings (what GET / reports for it)."""

from __future__ import annotations

from clawd import errors
from clawd.page.state import emulation
from clawd.server.answers import tab_answer
from clawd.server.routing import Request


def _done(tab, **extra) -> dict:
    return tab_answer(tab, **extra, settings=emulation.describe_tab(tab))


def _clearing(req: Request, *fields: str) -> bool:
    """`clear: true` alone, or the fields; never both, never neither."""
    clear = req.args.get("clear", False)
    given = [f for f in fields if f in req.args]
    if clear and given:
        raise errors.InvalidRequest(f"give {given[0]} or clear, not both")
    if not clear and not given:
        raise errors.InvalidRequest(f"{fields[0]} is required (or clear: true)")
    return clear


def offline(req: Request) -> dict:
    tab = req.tab()
    emulation.set_offline(tab, req.args["offline"])
    return _done(tab)


def headers(req: Request) -> dict:
    headers = {} if _clearing(req, "headers") else emulation.header_map(req.args["headers"])
    tab = req.tab()
    emulation.set_headers(tab, headers)
    return _done(tab)


def credentials(req: Request) -> dict:
    a = req.args
    if _clearing(req, "username", "password"):
        username = password = None
    else:
        if "username" not in a:
            raise errors.InvalidRequest("username is required (or clear: true)")
        username, password = a["username"], a.get("password", "")
    tab = req.tab()
    emulation.set_credentials(tab, req.service.guard, username, password)
    return _done(tab)


def geolocation(req: Request) -> dict:
    a = req.args
    clear = _clearing(req, "latitude", "longitude", "accuracy", "origin")
    tab = req.tab()
    if clear:
        emulation.clear_geolocation(tab)
        return _done(tab)
    if "latitude" not in a or "longitude" not in a:
        raise errors.InvalidRequest("latitude and longitude are both required (or clear: true)")
    origin = emulation.set_geolocation(
        tab, a["latitude"], a["longitude"], a.get("accuracy"), a.get("origin")
    )
    return _done(tab, permissionOrigin=origin)


def media(req: Request) -> dict:
    a = req.args
    if a.get("colorScheme") is None and a.get("reducedMotion") is None:
        raise errors.InvalidRequest("colorScheme or reducedMotion is required")
    tab = req.tab()
    emulation.set_media(tab, a.get("colorScheme"), a.get("reducedMotion"))
    return _done(tab)


def timezone(req: Request) -> dict:
    zone = None if _clearing(req, "timezone") else req.args["timezone"]
    tab = req.tab()
    emulation.set_timezone(tab, zone)
    return _done(tab)


def locale(req: Request) -> dict:
    value = None if _clearing(req, "locale") else req.args["locale"]
    tab = req.tab()
    emulation.set_locale(tab, value)
    return _done(tab)


def device(req: Request) -> dict:
    name = None if _clearing(req, "name") else req.args["name"]
    if name is not None:
        emulation.devices.find(name)  # an unknown name is a 400 before any tab is touched
    tab = req.tab()
    return _done(tab, device=emulation.set_device(tab, name))


def viewport(req: Request) -> dict:
    a = req.args
    tab = req.tab()
    size = emulation.set_viewport(
        tab, a["width"], a["height"], a.get("deviceScaleFactor"), a.get("mobile")
    )
    return _done(tab, viewport=size)
