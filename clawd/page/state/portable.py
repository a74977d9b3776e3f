"""A profile's state read from the browser and written back into it (POST /state/save, /state/load):
cookies through the Storage domain, localStorage through a scratch tab whose requests clawd answers
itself (no byte reaches the site), sessionStorage into the caller's tab. The file and its checks
are clawd/page/state/state_file.py."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.state.scratch import ScratchTab
from clawd.page.state.state_file import Origin, State, check_origin, origin_of

log = logging.getLogger("clawd.state")

CALL_TIMEOUT = 10.0
Judge = Callable[[str], "str | None"]  # a URL -> None when the policy allows it, else why not


# -- reading the browser --------------------------------------------------------------------------
def collect(browser, tab: Tab, origins: list[str] | None, judge: Judge) -> tuple[dict, list]:
    """The profile's cookies and the storage of `origins` (default: every open tab's origin), as
    storageState JSON, and the origins skipped (no tab shows them and the policy refuses them).
    sessionStorage is a tab's: `tab`'s wins over another tab's at the origin."""
    wanted = [check_origin(o, f"origins[{i}]") for i, o in enumerate(origins)] if origins else []
    at = _tabs_by_origin(browser, tab)
    wanted = wanted or list(at)
    cookies = Session(browser.connection).call("Storage.getCookies", timeout=CALL_TIMEOUT)
    out = []
    missing, skipped = _judged([o for o in wanted if o not in at], judge)
    scratch_local = _scratch_read(browser, missing) if missing else {}
    for origin in (o for o in wanted if o in at or o in scratch_local):
        shown = at.get(origin)
        if shown is not None:
            local = _items(shown.session, origin, local=True)
            session = _items(shown.session, origin, local=False)
        else:
            local, session = scratch_local.get(origin, []), []
        entry = {"origin": origin, "localStorage": _pairs(local)}
        if session:
            entry["sessionStorage"] = _pairs(session)
        out.append(entry)
    state = {"cookies": [_as_playwright(c) for c in cookies["cookies"]], "origins": out}
    return state, skipped


def _judged(origins: list[str], judge: Judge) -> tuple[list[str], list[dict]]:
    """The origins a scratch tab may stand at, and the others with the policy's reason: a tab at
    a refused origin is closed by the navigation guard, and loading must open nothing blocked."""
    allowed, skipped = [], []
    for origin in origins:
        reason = judge(origin + "/")
        if reason is None:
            allowed.append(origin)
        else:
            skipped.append({"origin": origin, "reason": reason})
    return allowed, skipped


def _tabs_by_origin(browser, first: Tab) -> dict[str, Tab]:
    """Each http(s) origin an open tab shows, to the tab read for it (`first` before the rest)."""
    found: dict[str, Tab] = {}
    for tab in [first, *(t for t in browser.tabs() if t is not first)]:
        if tab.type != "page" or tab.closed.is_set():
            continue
        origin = origin_of(tab.url)
        if origin is not None:
            found.setdefault(origin, tab)
    return found


def _items(session: Session, origin: str, *, local: bool) -> list[tuple[str, str]]:
    """One storage area through the DOMStorage domain (the page's scripts cannot fake it)."""
    storage_id = {"securityOrigin": origin, "isLocalStorage": local}
    try:
        got = session.call(
            "DOMStorage.getDOMStorageItems", {"storageId": storage_id}, timeout=CALL_TIMEOUT
        )
    except errors.RelayUnsupported:
        raise  # the extension relay's answer, with its code: not an empty storage
    except errors.CdpError as exc:
        log.info("no %s storage of %s read: %s", "local" if local else "session", origin, exc)
        return []
    return [(k, v) for k, v in got.get("entries", [])]


def _pairs(items: list[tuple[str, str]]) -> list[dict]:
    return [{"name": k, "value": v} for k, v in items]


def _as_playwright(cookie: dict) -> dict:
    """A CDP cookie as Playwright writes one: expires -1 for a session cookie, sameSite Lax when
    Chromium reports none (what it enforces then)."""
    return {
        "name": cookie["name"],
        "value": cookie["value"],
        "domain": cookie["domain"],
        "path": cookie["path"],
        "expires": -1 if cookie.get("session") else cookie.get("expires", -1),
        "httpOnly": bool(cookie.get("httpOnly")),
        "secure": bool(cookie.get("secure")),
        "sameSite": cookie.get("sameSite") or "Lax",
    }


# -- writing into the browser ---------------------------------------------------------------------
def apply(browser, tab: Tab, state: State, judge: Judge) -> dict:
    """Cookies into the profile; localStorage through a scratch tab (origins the policy refuses
    are skipped, with its reason); sessionStorage into `tab` (now when it shows the origin, else
    on its next document of that origin: the policy judges that visit as any other)."""
    root = Session(browser.connection)
    if state.cookies:
        # first, and all at once: Chromium checks the whole list before it sets any (measured:
        # one cookie it refuses, none set), so its refusal too is a 400 that changed nothing
        try:
            root.call("Storage.setCookies", {"cookies": state.cookies}, timeout=CALL_TIMEOUT)
        except errors.RelayUnsupported:
            raise
        except errors.CdpError as exc:
            raise errors.InvalidStateFile(f"Chromium refused the cookies: {exc.message}") from None
    allowed, skipped = _judged([o.origin for o in state.origins if o.local], judge)
    local = [o for o in state.origins if o.origin in allowed]
    written = _scratch_write(browser, local) if local else []
    pending = [o for o in state.origins if o.session]
    now, later = _session_storage(tab, pending)
    return {
        "cookies": len(state.cookies),
        "localStorage": written,
        "sessionStorage": now,
        "sessionStoragePending": later,
        "skipped": skipped,
    }


def _session_storage(tab: Tab, origins: list[Origin]) -> tuple[list[str], list[str]]:
    """Written at once where `tab` shows the origin; else a script that writes it as the tab's
    next document of that origin starts (removed after that first document)."""
    now, later = [], []
    here = origin_of(tab.url)
    for entry in origins:
        if entry.origin == here:
            for name, value in entry.session:
                _set_item(tab.session, entry.origin, name, value, local=False)
            now.append(entry.origin)
        else:
            _write_on_arrival(tab, entry)
            later.append(entry.origin)
    return now, later


_ON_ARRIVAL = """(() => {
  if (location.origin !== %s) return;
  try { for (const [k, v] of %s) sessionStorage.setItem(k, v); } catch (e) {}
})()"""


def _write_on_arrival(tab: Tab, entry: Origin) -> None:
    source = _ON_ARRIVAL % (json.dumps(entry.origin), json.dumps(entry.session))
    added = tab.session.call(
        "Page.addScriptToEvaluateOnNewDocument", {"source": source}, timeout=CALL_TIMEOUT
    )["identifier"]
    unsubscribe = None

    def arrived(params: dict) -> None:
        frame = params.get("frame") or {}
        if frame.get("parentId") or origin_of(frame.get("url", "")) != entry.origin:
            return
        tab.session.send(
            "Page.removeScriptToEvaluateOnNewDocument", {"identifier": added}
        ).discard()
        unsubscribe()

    unsubscribe = tab.session.on("Page.frameNavigated", arrived)


def _set_item(session: Session, origin: str, name: str, value: str, *, local: bool) -> None:
    session.call(
        "DOMStorage.setDOMStorageItem",
        {
            "storageId": {"securityOrigin": origin, "isLocalStorage": local},
            "key": name,
            "value": value,
        },
        timeout=CALL_TIMEOUT,
    )


# -- the scratch tab (page/state/scratch.py) ------------------------------------------------------
def _scratch_read(browser, origins: list[str]) -> dict[str, list[tuple[str, str]]]:
    with ScratchTab(browser.connection, browser, timeout=CALL_TIMEOUT) as scratch:
        return {o: _items(scratch.session, o, local=True) for o in origins if scratch.visit(o)}


def _scratch_write(browser, origins: list[Origin]) -> list[str]:
    written = []
    with ScratchTab(browser.connection, browser, timeout=CALL_TIMEOUT) as scratch:
        for entry in origins:
            if not scratch.visit(entry.origin):
                log.warning(
                    "localStorage of %s not restored: the scratch tab did not get there (%s)",
                    entry.origin,
                    scratch.failure,
                )
                continue
            scratch.write_local(entry.origin, entry.local)
            written.append(entry.origin)
    return written
