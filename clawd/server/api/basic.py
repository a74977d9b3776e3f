"""Status, start/stop, and profiles."""

from __future__ import annotations

import os
import time

from clawd import __version__, errors
from clawd.browser import trash
from clawd.browser.executables import find_executable
from clawd.browser.runtime import redacted_cdp_url
from clawd.server.routing import Request


def status(req: Request) -> dict:
    runtime = req.runtime()
    described = runtime.status()
    return {
        "ok": True,
        "version": __version__,
        "enabled": req.config.browser.enabled,
        **described,
        **_openclaw_status(req, runtime, described),
        **_extra_status(req, runtime),
    }


def _openclaw_status(req: Request, runtime, described: dict) -> dict:
    """The keys OpenClaw's client prints beside clawd's own: where it reached us, which
    browser, whether DevTools answers, where DevTools listens."""
    managed = runtime.managed
    chosen = runtime.driver.executable if managed else None  # set once it launched
    return {
        "cdpUrl": described["cdpUrl"] or _local_cdp_url(runtime, described["cdpPort"]),
        "controlUrl": f"http://{req.reached_at()}",  # never the Host header
        "attachOnly": not managed,
        "cdpReady": runtime.running(),
        "detectedBrowser": _detected_browser(runtime.config) if managed else None,
        "chosenBrowser": os.path.basename(chosen) if chosen else None,
    }


def _local_cdp_url(runtime, port: int | None) -> str | None:
    """A browser clawd launches here listens for DevTools on loopback at its cdpPort."""
    return f"http://127.0.0.1:{port}" if runtime.kind == "managed" and port else None


def _detected_browser(config) -> str | None:
    """The name of the browser a launch would use, None when none is found."""
    try:
        return os.path.basename(find_executable(config.executable_path))
    except errors.BrowserLaunchFailed:
        return None


def _extra_status(req: Request, runtime) -> dict:
    """Per-tab settings and counters the page modules report (emulation, buffers)."""
    report = {}
    if req.service.relay is not None:  # whichever profile: is the extension there, tabs shared
        report["relay"] = req.service.relay.status()
    browser = runtime.browser if runtime.running() else None
    if browser is not None:  # counters include every event that reached us before this request
        browser.connection.events.flush(2.0)
    for hook in req.service.hooks:
        describe = getattr(hook, "describe", None)
        if describe is not None and browser is not None:
            report.update(describe(browser))
    if browser is not None:
        report["tabsFreed"] = browser.tabs_freed
    return report


def start(req: Request) -> dict:
    headless = req.args.get("headless")
    runtime = req.runtime()
    if headless is not None and not runtime.managed:
        raise errors.InvalidRequest(
            f"headless applies to browsers clawd launches; profile "
            f"{runtime.profile.name} is {runtime.kind}, so its browser's own "
            f"settings decide",
            field="headless",
        )
    began = time.perf_counter()
    runtime.start(headless=headless)
    return {
        "ok": True,
        **runtime.status(),
        "startMs": round((time.perf_counter() - began) * 1000, 1),
    }


def stop(req: Request) -> dict:
    runtime = req.runtime()
    stopped = runtime.stop()
    return {"ok": True, "profile": runtime.profile.name, "stopped": stopped}


def list_profiles(req: Request) -> dict:
    service = req.service
    items = []
    for name in service.profiles.names():
        profile = service.profiles.get(name)
        runtime = service.runtime(name)
        items.append(
            {
                "name": name,
                "driver": runtime.kind,
                "cdpPort": profile.cdp_port,
                "cdpUrl": runtime.status()["cdpUrl"],
                "color": profile.color,
                "running": runtime.running(),
                "tabCount": runtime.status()["tabCount"],
                "isDefault": name == service.profiles.default_name,
                "fromConfig": service.profiles.is_configured(name),
                "builtin": service.profiles.is_builtin(name),
                **_aliases(service.profiles.alias_of(name)),
            }
        )
    return {"ok": True, "profiles": items}


def _aliases(alias: str | None) -> dict:
    return {"aliases": [alias]} if alias else {}


def create_profile(req: Request) -> dict:
    a = req.args
    profile = req.service.profiles.create(
        a["name"],
        color=a.get("color"),
        cdp_url=a.get("cdpUrl"),
        driver=a.get("driver"),
        user_data_dir=a.get("userDataDir"),
    )
    # `profile` is the name, as OpenClaw's client prints it; the rest sits beside it
    return {
        "ok": True,
        "profile": profile.name,
        "name": profile.name,
        "driver": profile.kind,
        "cdpPort": profile.cdp_port,
        "cdpUrl": redacted_cdp_url(profile.cdp_url),
        "color": profile.color,
    }


def delete_profile(req: Request) -> dict:
    name = req.params["name"]
    service = req.service
    if name == service.profiles.default_name:
        raise errors.Conflict(f"{name!r} is the default profile and cannot be deleted")
    runtime = service.runtime(name)
    owned = runtime.managed
    service.profiles.delete(name)
    service.forget_runtime(name)
    if runtime.sandbox is not None:  # a sandbox profile's container goes with it
        runtime.sandbox.remove()
    data = {"removedData": False}
    if owned:
        data = trash.discard(
            service.layout,
            name,
            service.layout.user_data_dir(name).parent,
            purge=bool(req.args.get("purge")),
        )
    # OpenClaw's client reads the name from `profile` and `deleted` as whether data was removed
    return {"ok": True, "profile": name, **data, "deleted": data["removedData"]}


def reset_profile(req: Request) -> dict:
    runtime = req.runtime()
    if not runtime.managed:
        raise errors.Conflict(
            f"profile {runtime.profile.name} is {runtime.kind}: clawd does not own its data"
        )
    was_running = runtime.stop()
    data = trash.discard(
        req.service.layout,
        runtime.profile.name,
        runtime.user_data_dir,
        purge=bool(req.args.get("purge")),
    )
    return {
        "ok": True,
        "profile": runtime.profile.name,
        "wasRunning": was_running,
        **data,
        **_openclaw_moved(runtime.user_data_dir, data),
    }


def _openclaw_moved(path, data: dict) -> dict:
    """What OpenClaw's client reads of a reset: whether the data went to the trash, from where
    and to where."""
    moved = {"moved": "trashedTo" in data, "from": str(path)}
    if moved["moved"]:
        moved["to"] = data["trashedTo"]
    return moved
