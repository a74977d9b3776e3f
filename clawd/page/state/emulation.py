"""Per-tab overrides: offline, extra headers, HTTP credentials, geolocation, media features,
timezone, locale, device presets and viewport. Each is remembered in the tab's slots, applied to
the tab and its iframes, inherited by popups the tab opens, reported by GET / and cleared by
reset() (POST /stop on profiles clawd does not own)."""
from __future__ import annotations

import copy
import json
import re
import threading
import urllib.parse
import weakref

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.state import devices
from clawd.page.observe.interception import CREDENTIALS_SLOT

SLOT = "emulation"
COLOR_SCHEMES = ("dark", "light", "no-preference", "none")
REDUCED_MOTION = ("reduce", "no-preference", "none")
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")
_LOCALE = re.compile(r"^[A-Za-z]{2,3}([-_][A-Za-z0-9]{2,8})*$")
_ONLINE = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


class Emulation:
    """The tab hook: popups inherit their opener's overrides, iframes get the tab's, both while
    still paused before their first script."""

    def __init__(self, guard=None):
        self.guard = guard
        self._tabs: dict[str, Tab] = {}   # raw targetId -> Tab, to find a popup's opener
        self._lock = threading.Lock()

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        if not child:
            with self._lock:
                self._tabs[tab.target_id] = tab
                opener = self._tabs.get(tab.opener_id) if tab.opener_id else None
            if opener is not None:
                self._inherit(tab, opener)
        state = tab.slots.get(SLOT)
        if state:
            apply_all(session, state, main=not child)

    def _inherit(self, tab: Tab, opener: Tab) -> None:
        state = opener.slots.get(SLOT)
        if state:
            tab.slots[SLOT] = copy.deepcopy(state)
        creds = opener.slots.get(CREDENTIALS_SLOT)
        if creds and self.guard is not None:
            tab.slots[CREDENTIALS_SLOT] = dict(creds)
            self.guard.refresh(tab)

    def detach(self, tab: Tab) -> None:
        with self._lock:
            if self._tabs.get(tab.target_id) is tab:
                del self._tabs[tab.target_id]

    def reset(self, tab: Tab) -> None:
        """Clear every override clawd set on the tab (the browser outlives our connection)."""
        state = tab.slots.pop(SLOT, None)
        had_creds = tab.slots.pop(CREDENTIALS_SLOT, None)
        if had_creds and self.guard is not None:
            self.guard.refresh(tab)
        if state:
            for session, main in sessions(tab):
                clear_all(session, state, main=main)

    def describe(self, browser) -> dict:
        report = {}
        for tab in browser.tabs():
            settings = describe_tab(tab)
            if settings:
                report[tab.tab_id] = settings
        return {"emulation": report}


def describe_tab(tab: Tab) -> dict:
    settings = copy.deepcopy(tab.slots.get(SLOT) or {})
    settings.pop("userAgent", None)
    creds = tab.slots.get(CREDENTIALS_SLOT)
    if creds:
        settings["credentials"] = {"username": creds.get("username")}   # never the password
    return settings


def sessions(tab: Tab) -> list[tuple[Session, bool]]:
    return [(tab.session, True)] + [(s, False) for s in tab.child_sessions().values()]


def _state(tab: Tab) -> dict:
    return tab.slots.setdefault(SLOT, {})


def _apply(tab: Tab, apply, value) -> None:
    """Apply on the tab's own session (its errors are the caller's), then best-effort on iframes."""
    apply(tab.session, value, True)
    for session in tab.child_sessions().values():
        try:
            apply(session, value, False)
        except errors.CdpError:
            pass


def _remember(tab: Tab, key: str, value) -> None:
    state = _state(tab)
    if value is None or value == {} or value is False:
        state.pop(key, None)
    else:
        state[key] = value


# -- offline and headers ------------------------------------------------------------------------
def set_offline(tab: Tab, offline: bool) -> None:
    _apply(tab, _apply_offline, offline)
    _remember(tab, "offline", offline)


def _apply_offline(session: Session, offline: bool, main: bool) -> None:
    try:
        session.call("Network.emulateNetworkConditionsByRule",
                     {"matchedNetworkConditions": [{"urlPattern": "", "offline": offline, **_ONLINE}] if offline else []})
    except errors.CdpError:    # older Chromium: the deprecated all-in-one method
        session.call("Network.emulateNetworkConditions", {"offline": offline, **_ONLINE})
        return
    session.call("Network.overrideNetworkState", {"offline": offline, **_ONLINE})


def header_map(value) -> dict[str, str]:
    """Extra headers from a request: an object (or a JSON text of one) of names to strings."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise errors.InvalidHeaders(f"headers is not JSON: {exc}") from None
    if not isinstance(value, dict):
        raise errors.InvalidHeaders('headers must be a JSON object such as {"X-Team": "qa"}')
    headers = {}
    for name, item in value.items():
        if not _HEADER_NAME.match(name):
            raise errors.InvalidHeaders(f"headers: {name!r} is not a valid header name")
        if isinstance(item, bool) or not isinstance(item, (str, int, float)):
            raise errors.InvalidHeaders(f"headers.{name} must be a string")
        if any(c in str(item) for c in "\r\n\0"):
            raise errors.InvalidHeaders(f"headers.{name} must not contain line breaks")
        headers[name] = str(item)
    return headers


def set_headers(tab: Tab, headers: dict[str, str]) -> None:
    _apply(tab, _apply_headers, headers)
    _remember(tab, "headers", headers)


def _apply_headers(session: Session, headers: dict, main: bool) -> None:
    session.call("Network.setExtraHTTPHeaders", {"headers": headers})


# -- credentials --------------------------------------------------------------------------------
def set_credentials(tab: Tab, guard, username: str | None, password: str | None) -> None:
    """Answer HTTP auth challenges of the tab (None: stop answering them)."""
    if username is None:
        tab.slots.pop(CREDENTIALS_SLOT, None)
    else:
        tab.slots[CREDENTIALS_SLOT] = {"username": username, "password": password or ""}
    guard.refresh(tab)


# -- geolocation --------------------------------------------------------------------------------
def set_geolocation(tab: Tab, latitude: float, longitude: float, accuracy: float | None = None,
                    origin: str | None = None) -> str | None:
    """Override the position and grant the permission to `origin` (default: the page's)."""
    origin = page_origin(origin, tab.url)
    geo = {"latitude": latitude, "longitude": longitude, "accuracy": 10.0 if accuracy is None else accuracy}
    _apply(tab, _apply_geolocation, geo)
    if origin:
        _root(tab).call("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "granted",
                                                  "origin": origin})
    _remember(tab, "geolocation", {**geo, "origin": origin})
    return origin


def clear_geolocation(tab: Tab) -> None:
    geo = _state(tab).pop("geolocation", None)
    _apply(tab, lambda s, v, main: s.call("Emulation.clearGeolocationOverride"), None)
    if geo and geo.get("origin"):
        _root(tab).try_call("Browser.setPermission", {"permission": {"name": "geolocation"}, "setting": "prompt",
                                                      "origin": geo["origin"]})


def _apply_geolocation(session: Session, geo: dict, main: bool) -> None:
    session.call("Emulation.setGeolocationOverride",
                 {k: geo[k] for k in ("latitude", "longitude", "accuracy")})


def page_origin(origin: str | None, page_url: str) -> str | None:
    if origin is None:
        parts = urllib.parse.urlsplit(page_url or "")
        return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else None
    parts = urllib.parse.urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.path not in ("", "/") or parts.query:
        raise errors.InvalidRequest(f"origin must look like https://example.com, not {origin!r}")
    return f"{parts.scheme}://{parts.netloc}"


def _root(tab: Tab) -> Session:
    return Session(tab.session.connection)


# -- media --------------------------------------------------------------------------------------
def set_media(tab: Tab, color_scheme: str | None, reduced_motion: str | None) -> None:
    media = dict(_state(tab).get("media") or {})
    for key, value, allowed in (("colorScheme", color_scheme, COLOR_SCHEMES),
                                ("reducedMotion", reduced_motion, REDUCED_MOTION)):
        if value is None:
            continue
        if value not in allowed:
            raise errors.InvalidRequest(f"{key} must be one of {', '.join(allowed)}; not {value!r}")
        if value == "none":
            media.pop(key, None)
        else:
            media[key] = value
    _apply(tab, _apply_media, media)
    _remember(tab, "media", media)


def _apply_media(session: Session, media: dict, main: bool) -> None:
    session.call("Emulation.setEmulatedMedia", {"features": [
        {"name": "prefers-color-scheme", "value": media.get("colorScheme", "")},
        {"name": "prefers-reduced-motion", "value": media.get("reducedMotion", "")}]})


# -- timezone and locale ------------------------------------------------------------------------
def set_timezone(tab: Tab, timezone: str | None) -> None:
    try:
        _apply(tab, _apply_timezone, timezone)
    except errors.CdpError as exc:
        raise errors.InvalidTimezone(f"timezone {timezone!r} is not an IANA time zone such as Europe/Berlin "
                                     f"({exc.message})") from None
    _remember(tab, "timezone", timezone)


def _apply_timezone(session: Session, timezone: str | None, main: bool) -> None:
    session.call("Emulation.setTimezoneOverride", {"timezoneId": timezone or ""})


def set_locale(tab: Tab, locale: str | None) -> None:
    if locale is not None and not _LOCALE.match(locale):
        raise errors.InvalidLocale(f"locale must be a language tag such as de-DE, not {locale!r}")
    locale = locale.replace("_", "-") if locale else None
    try:
        _apply(tab, _apply_locale, locale)
    except errors.CdpError as exc:
        raise errors.InvalidLocale(f"locale {locale!r} is not one Chromium knows ({exc.message})") from None
    _remember(tab, "locale", locale)
    _apply(tab, _apply_agent, _state(tab))


def _apply_locale(session: Session, locale: str | None, main: bool) -> None:
    session.call("Emulation.setLocaleOverride", {"locale": locale} if locale else {})


def accept_language(locale: str) -> str:
    """The bare language list: Chromium adds the q-values itself (`fr-FR,fr` goes out as
    `fr-FR,fr;q=0.9`; handing it `fr;q=0.9` sent `fr;q=0.9;q=0.9`)."""
    language = locale.split("-", 1)[0]
    return locale if language == locale else f"{locale},{language}"


def _apply_agent(session: Session, state: dict, main: bool) -> None:
    """User agent (device) and Accept-Language/navigator.language (locale) share one call."""
    agent, locale = state.get("userAgent"), state.get("locale")
    if not agent and not locale:
        session.call("Emulation.setUserAgentOverride", {"userAgent": ""})
        return
    params = {"userAgent": agent or default_user_agent(session)}
    if locale:
        params["acceptLanguage"] = accept_language(locale)
    session.call("Emulation.setUserAgentOverride", params)


_agents: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()   # connection -> its browser's own UA


def default_user_agent(session: Session) -> str:
    agent = _agents.get(session.connection)
    if agent is None:
        agent = _agents[session.connection] = Session(session.connection).call("Browser.getVersion")["userAgent"]
    return agent


def chrome_version(session: Session) -> str:
    product = Session(session.connection).call("Browser.getVersion").get("product", "")
    return product.split("/", 1)[1] if "/" in product else "124.0.0.0"


# -- device and viewport ------------------------------------------------------------------------
def set_device(tab: Tab, name: str | None) -> dict | None:
    state = _state(tab)
    if name is None:
        for key in ("device", "userAgent", "touch", "viewport"):
            state.pop(key, None)
        _apply(tab, _apply_metrics, state)
        _apply(tab, _apply_agent, state)
        return None
    device = devices.find(name)
    state.update(device=device.name, userAgent=device.agent(chrome_version(tab.session)), touch=device.touch,
                 viewport={"width": device.width, "height": device.height, "deviceScaleFactor": device.scale,
                           "mobile": device.mobile})
    _apply(tab, _apply_metrics, state)
    _apply(tab, _apply_agent, state)
    return device.to_dict()


def set_viewport(tab: Tab, width: int, height: int, scale: float | None = None, mobile: bool | None = None) -> dict:
    state = _state(tab)
    previous = state.get("viewport") or {}
    viewport = {"width": width, "height": height,
                "deviceScaleFactor": scale if scale is not None else previous.get("deviceScaleFactor", 1),
                "mobile": mobile if mobile is not None else previous.get("mobile", False)}
    state["viewport"] = viewport
    _apply(tab, _apply_metrics, state)
    return viewport


def _apply_metrics(session: Session, state: dict, main: bool) -> None:
    if not main:
        return   # iframes follow their page's metrics
    viewport = state.get("viewport")
    if viewport:
        session.call("Emulation.setDeviceMetricsOverride", {
            "width": viewport["width"], "height": viewport["height"],
            "deviceScaleFactor": viewport["deviceScaleFactor"], "mobile": viewport["mobile"],
            "screenWidth": viewport["width"], "screenHeight": viewport["height"]})
    else:
        session.call("Emulation.clearDeviceMetricsOverride")
    touch = bool(state.get("touch"))
    session.call("Emulation.setTouchEmulationEnabled", {"enabled": touch, **({"maxTouchPoints": 5} if touch else {})})


# -- all at once ----------------------------------------------------------------------------------
def apply_all(session: Session, state: dict, *, main: bool) -> None:
    """Put a tab's remembered overrides on a new session (a popup, an iframe)."""
    steps = [(_apply_offline, state.get("offline")), (_apply_headers, state.get("headers")),
             (_apply_geolocation, state.get("geolocation")), (_apply_media, state.get("media")),
             (_apply_timezone, state.get("timezone")), (_apply_locale, state.get("locale"))]
    for apply, value in steps:
        if value:
            _try(apply, session, value, main)
    if state.get("userAgent") or state.get("locale"):
        _try(_apply_agent, session, state, main)
    if state.get("viewport") or state.get("touch"):
        _try(_apply_metrics, session, state, main)


def clear_all(session: Session, state: dict, *, main: bool) -> None:
    steps = [("offline", _apply_offline, False), ("headers", _apply_headers, {}),
             ("media", _apply_media, {}), ("timezone", _apply_timezone, None), ("locale", _apply_locale, None)]
    for key, apply, cleared in steps:
        if key in state:
            _try(apply, session, cleared, main)
    if "geolocation" in state:
        session.try_call("Emulation.clearGeolocationOverride")
    if state.get("userAgent") or state.get("locale"):
        _try(_apply_agent, session, {}, main)
    if state.get("viewport") or state.get("touch"):
        _try(_apply_metrics, session, {}, main)


def _try(apply, session: Session, value, main: bool) -> None:
    try:
        apply(session, value, main)
    except errors.CdpError:
        pass
