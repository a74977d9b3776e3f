"""Per-tab overrides: offline, extra headers, HTTP credentials, geolocation, media features,
timezone, locale, device presets and viewport. Each is remembered in the tab's EmulationState,
applied to the tab and its iframes, inherited by popups the tab opens, reported by GET / and
cleared by reset() (POST /stop on profiles clawd does not own). The CDP calls that put each
override on a session are in overrides.py; credentials live with interception.py, which
answers the challenges."""

from __future__ import annotations

import contextlib
import copy
import json
import re
import threading
import urllib.parse
from collections.abc import Iterator

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session
from clawd.page.observe import interception
from clawd.page.state import devices, overrides

COLOR_SCHEMES = ("dark", "light", "no-preference", "none")
REDUCED_MOTION = ("reduce", "no-preference", "none")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_LOCALE = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")
_DEVICE_KEYS = ("device", "userAgent", "touch", "viewport")


class EmulationState:
    """One tab's overrides as POST /set/... left them (offline, headers, geolocation, media,
    timezone, locale, device, userAgent, touch, viewport). Requests change them while the event
    thread reads them for a new popup or iframe. `_lock` guards the values and is held only to
    copy or change them, never across a CDP call (it would hold up the event thread); `changing`
    lets one change of the tab at a time apply and remember its values, so two requests cannot
    interleave theirs."""

    def __init__(self):
        self._settings: dict = {}
        self._lock = threading.Lock()
        self.changing = threading.RLock()

    def snapshot(self) -> dict:
        """A copy of every override, to read or apply without the lock."""
        with self._lock:
            return copy.deepcopy(self._settings)

    def get(self, key: str):
        with self._lock:
            return copy.deepcopy(self._settings.get(key))

    def remember(self, key: str, value) -> None:
        """Keep `value` under `key`; an empty or false value forgets the key."""
        with self._lock:
            if value is None or value == {} or value is False:
                self._settings.pop(key, None)
            else:
                self._settings[key] = value

    def update(self, **values) -> None:
        with self._lock:
            self._settings.update(values)

    def forget(self, *keys: str) -> dict:
        """Drop `keys`; returns what they held."""
        with self._lock:
            return {key: self._settings.pop(key) for key in keys if key in self._settings}

    def take(self) -> dict:
        """Every override, forgotten."""
        with self._lock:
            settings, self._settings = self._settings, {}
            return settings

    def adopt(self, settings: dict) -> None:
        """Start from `settings` (a popup takes a copy of its opener's)."""
        with self._lock:
            self._settings = copy.deepcopy(settings)


EMULATION = StateKey("emulation", lambda tab: EmulationState())


def state(tab: Tab) -> EmulationState:
    return tab.state[EMULATION]


def _settings(tab: Tab) -> dict:
    """A copy of the tab's overrides, without making state for a tab that has none."""
    held = tab.state.peek(EMULATION)
    return held.snapshot() if held is not None else {}


@contextlib.contextmanager
def _changing(tab: Tab) -> Iterator[EmulationState]:
    held = state(tab)
    with held.changing:
        yield held


class Emulation:
    """The tab hook: popups inherit their opener's overrides, iframes get the tab's, both while
    still paused before their first script."""

    def __init__(self, guard=None):
        self.guard = guard
        self._tabs: dict[str, Tab] = {}  # raw targetId -> Tab, to find a popup's opener
        self._lock = threading.Lock()

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        if not child:
            with self._lock:
                self._tabs[tab.target_id] = tab
                opener = self._tabs.get(tab.opener_id) if tab.opener_id else None
            if opener is not None:
                self._inherit(tab, opener)
        settings = _settings(tab)
        if settings:
            overrides.apply_all(session, settings, main=not child)

    def _inherit(self, tab: Tab, opener: Tab) -> None:
        settings = _settings(opener)
        if settings:
            state(tab).adopt(settings)
        creds = interception.state(opener).credentials()
        if creds and self.guard is not None:
            interception.state(tab).set_credentials(creds)
            self.guard.refresh(tab)

    def detach(self, tab: Tab) -> None:
        with self._lock:
            if self._tabs.get(tab.target_id) is tab:
                del self._tabs[tab.target_id]

    def reset(self, tab: Tab) -> None:
        """Clear every override clawd set on the tab (the browser outlives our connection)."""
        with _changing(tab) as held:
            settings = held.take()
            had_creds = interception.state(tab).set_credentials(None)
            if had_creds and self.guard is not None:
                self.guard.refresh(tab)
            if settings:
                for session, main in sessions(tab):
                    overrides.clear_all(session, settings, main=main)

    def describe(self, browser) -> dict:
        report = {}
        for tab in browser.tabs():
            settings = describe_tab(tab)
            if settings:
                report[tab.tab_id] = settings
        return {"emulation": report}


def describe_tab(tab: Tab) -> dict:
    settings = _settings(tab)
    settings.pop("userAgent", None)
    creds = interception.state(tab).credentials()
    if creds:
        settings["credentials"] = {"username": creds.get("username")}  # never the password
    return settings


def sessions(tab: Tab) -> list[tuple[Session, bool]]:
    return [(tab.session, True)] + [(s, False) for s in tab.child_sessions().values()]


def _apply(tab: Tab, apply, value) -> None:
    """Apply on the tab's own session (its errors are the caller's), then best-effort on iframes."""
    apply(tab.session, value, True)
    for session in tab.child_sessions().values():
        try:
            apply(session, value, False)
        except errors.CdpError:
            pass


# -- offline and headers ------------------------------------------------------------------------
def set_offline(tab: Tab, offline: bool) -> None:
    with _changing(tab) as held:
        _apply(tab, overrides.apply_offline, offline)
        held.remember("offline", offline)


def header_map(value) -> dict[str, str]:
    """Extra headers from a request: an object (or a JSON text of one) of names to strings."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise errors.InvalidHeaders(f"headers is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise errors.InvalidHeaders('headers must be a JSON object such as {"X-Team": "qa"}')
    return {name: _header_value(name, item) for name, item in value.items()}


def _header_value(name: str, item) -> str:
    if not _HEADER_NAME.match(name):
        raise errors.InvalidHeaders(f"headers: {name!r} is not a valid header name")
    if isinstance(item, bool) or not isinstance(item, (str, int, float)):
        raise errors.InvalidHeaders(f"headers.{name} must be a string")
    if any(c in str(item) for c in "\r\n\0"):
        raise errors.InvalidHeaders(f"headers.{name} must not contain line breaks")
    return str(item)


def set_headers(tab: Tab, headers: dict[str, str]) -> None:
    with _changing(tab) as held:
        _apply(tab, overrides.apply_headers, headers)
        held.remember("headers", headers)


# -- credentials --------------------------------------------------------------------------------
def set_credentials(tab: Tab, guard, username: str | None, password: str | None) -> None:
    """Answer HTTP auth challenges of the tab (None: stop answering them)."""
    creds = None if username is None else {"username": username, "password": password or ""}
    with _changing(tab):
        interception.state(tab).set_credentials(creds)
        guard.refresh(tab)


# -- geolocation --------------------------------------------------------------------------------
def set_geolocation(
    tab: Tab,
    latitude: float,
    longitude: float,
    accuracy: float | None = None,
    origin: str | None = None,
) -> str | None:
    """Override the position and grant the permission to `origin` (default: the page's)."""
    origin = page_origin(origin, tab.url)
    geo = {
        "latitude": latitude,
        "longitude": longitude,
        "accuracy": 10.0 if accuracy is None else accuracy,
    }
    with _changing(tab) as held:
        _apply(tab, overrides.apply_geolocation, geo)
        if origin:
            _permit_geolocation(tab, origin, "granted", strict=True)
        held.remember("geolocation", {**geo, "origin": origin})
    return origin


def clear_geolocation(tab: Tab) -> None:
    with _changing(tab) as held:
        geo = held.forget("geolocation").get("geolocation")
        _apply(tab, overrides.clear_geolocation, None)
        if geo and geo.get("origin"):
            _permit_geolocation(tab, geo["origin"], "prompt", strict=False)


def _permit_geolocation(tab: Tab, origin: str, setting: str, *, strict: bool) -> None:
    root = Session(tab.session.connection)
    params = {"permission": {"name": "geolocation"}, "setting": setting, "origin": origin}
    if strict:
        root.call("Browser.setPermission", params)
    else:
        root.try_call("Browser.setPermission", params)


def page_origin(origin: str | None, page_url: str) -> str | None:
    if origin is None:
        parts = urllib.parse.urlsplit(page_url or "")
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None
    parts = urllib.parse.urlsplit(origin)
    if (
        parts.scheme not in ("http", "https")
        or not parts.netloc
        or parts.path not in ("", "/")
        or parts.query
    ):
        raise errors.InvalidRequest(f"origin must look like https://example.com, not {origin!r}")
    return f"{parts.scheme}://{parts.netloc}"


# -- media --------------------------------------------------------------------------------------
def set_media(tab: Tab, color_scheme: str | None, reduced_motion: str | None) -> None:
    with _changing(tab) as held:
        media = _merged_media(held.get("media") or {}, color_scheme, reduced_motion)
        _apply(tab, overrides.apply_media, media)
        held.remember("media", media)


def _merged_media(media: dict, color_scheme: str | None, reduced_motion: str | None) -> dict:
    for key, value, allowed in (
        ("colorScheme", color_scheme, COLOR_SCHEMES),
        ("reducedMotion", reduced_motion, REDUCED_MOTION),
    ):
        if value is None:
            continue
        if value not in allowed:
            raise errors.InvalidRequest(f"{key} must be one of {', '.join(allowed)}; not {value!r}")
        if value == "none":
            media.pop(key, None)
        else:
            media[key] = value
    return media


# -- timezone and locale ------------------------------------------------------------------------
def set_timezone(tab: Tab, timezone: str | None) -> None:
    with _changing(tab) as held:
        try:
            _apply(tab, overrides.apply_timezone, timezone)
        except errors.CdpError as exc:
            raise errors.InvalidTimezone(
                f"timezone {timezone!r} is not an IANA time zone such "
                f"as Europe/Berlin ({exc.message})"
            ) from None
        held.remember("timezone", timezone)


def set_locale(tab: Tab, locale: str | None) -> None:
    if locale is not None and not _LOCALE.match(locale):
        raise errors.InvalidLocale(f"locale must be a language tag such as de-DE, not {locale!r}")
    locale = locale.replace("_", "-") if locale else None
    with _changing(tab) as held:
        try:
            _apply(tab, overrides.apply_locale, locale)
        except errors.CdpError as exc:
            raise errors.InvalidLocale(
                f"locale {locale!r} is not one Chromium knows ({exc.message})"
            ) from None
        held.remember("locale", locale)
        _apply(tab, overrides.apply_agent, held.snapshot())


# -- device and viewport ------------------------------------------------------------------------
def set_device(tab: Tab, name: str | None) -> dict | None:
    if name is None:
        with _changing(tab) as held:
            held.forget(*_DEVICE_KEYS)
            _apply_device(tab, held.snapshot())
        return None
    device = devices.find(name)
    agent = device.agent(overrides.chrome_version(tab.session))
    viewport = {
        "width": device.width,
        "height": device.height,
        "deviceScaleFactor": device.scale,
        "mobile": device.mobile,
    }
    with _changing(tab) as held:
        held.update(device=device.name, userAgent=agent, touch=device.touch, viewport=viewport)
        _apply_device(tab, held.snapshot())
    return device.to_dict()


def _apply_device(tab: Tab, settings: dict) -> None:
    _apply(tab, overrides.apply_metrics, settings)
    _apply(tab, overrides.apply_agent, settings)


def set_viewport(
    tab: Tab, width: int, height: int, scale: float | None = None, mobile: bool | None = None
) -> dict:
    with _changing(tab) as held:
        previous = held.get("viewport") or {}
        viewport = {
            "width": width,
            "height": height,
            "deviceScaleFactor": previous.get("deviceScaleFactor", 1) if scale is None else scale,
            "mobile": previous.get("mobile", False) if mobile is None else mobile,
        }
        held.remember("viewport", viewport)
        _apply(tab, overrides.apply_metrics, held.snapshot())
    return viewport
