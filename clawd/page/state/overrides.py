"""How each emulation override is put on (or taken off) one CDP session: a tab's own, an
iframe's, a popup's. Each `apply_*` takes `(session, value, main)`; which overrides a tab has,
and changing them, is emulation.py's."""

from __future__ import annotations

import weakref

from clawd import errors
from clawd.cdp.session import Session

ONLINE = {"latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


def apply_offline(session: Session, offline: bool, main: bool) -> None:
    rules = [{"urlPattern": "", "offline": offline, **ONLINE}] if offline else []
    try:
        session.call("Network.emulateNetworkConditionsByRule", {"matchedNetworkConditions": rules})
    except errors.CdpError:  # older Chromium: the deprecated all-in-one method
        session.call("Network.emulateNetworkConditions", {"offline": offline, **ONLINE})
        return
    session.call("Network.overrideNetworkState", {"offline": offline, **ONLINE})


def apply_headers(session: Session, headers: dict, main: bool) -> None:
    session.call("Network.setExtraHTTPHeaders", {"headers": headers})


def apply_geolocation(session: Session, geo: dict, main: bool) -> None:
    session.call(
        "Emulation.setGeolocationOverride",
        {k: geo[k] for k in ("latitude", "longitude", "accuracy")},
    )


def clear_geolocation(session: Session, value, main: bool) -> None:
    session.call("Emulation.clearGeolocationOverride")


def apply_media(session: Session, media: dict, main: bool) -> None:
    session.call(
        "Emulation.setEmulatedMedia",
        {
            "features": [
                {"name": "prefers-color-scheme", "value": media.get("colorScheme", "")},
                {"name": "prefers-reduced-motion", "value": media.get("reducedMotion", "")},
            ]
        },
    )


def apply_timezone(session: Session, timezone: str | None, main: bool) -> None:
    session.call("Emulation.setTimezoneOverride", {"timezoneId": timezone or ""})


def apply_locale(session: Session, locale: str | None, main: bool) -> None:
    session.call("Emulation.setLocaleOverride", {"locale": locale} if locale else {})


def accept_language(locale: str) -> str:
    """The bare language list: Chromium adds the q-values itself (`fr-FR,fr` goes out as
    `fr-FR,fr;q=0.9`; handing it `fr;q=0.9` sent `fr;q=0.9;q=0.9`)."""
    language = locale.split("-", 1)[0]
    return locale if language == locale else f"{locale},{language}"


def apply_agent(session: Session, settings: dict, main: bool) -> None:
    """User agent (device) and Accept-Language/navigator.language (locale) share one call."""
    agent, locale = settings.get("userAgent"), settings.get("locale")
    if not agent and not locale:
        session.call("Emulation.setUserAgentOverride", {"userAgent": ""})
        return
    params = {"userAgent": agent or default_user_agent(session)}
    if locale:
        params["acceptLanguage"] = accept_language(locale)
    session.call("Emulation.setUserAgentOverride", params)


# connection -> its browser's own user agent
_agents: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def default_user_agent(session: Session) -> str:
    agent = _agents.get(session.connection)
    if agent is None:
        version = Session(session.connection).call("Browser.getVersion")
        agent = _agents[session.connection] = version["userAgent"]
    return agent


def chrome_version(session: Session) -> str:
    product = Session(session.connection).call("Browser.getVersion").get("product", "")
    return product.split("/", 1)[1] if "/" in product else "124.0.0.0"


def apply_metrics(session: Session, settings: dict, main: bool) -> None:
    if not main:
        return  # iframes follow their page's metrics
    viewport = settings.get("viewport")
    if viewport:
        session.call(
            "Emulation.setDeviceMetricsOverride",
            {
                "width": viewport["width"],
                "height": viewport["height"],
                "deviceScaleFactor": viewport["deviceScaleFactor"],
                "mobile": viewport["mobile"],
                "screenWidth": viewport["width"],
                "screenHeight": viewport["height"],
            },
        )
    else:
        session.call("Emulation.clearDeviceMetricsOverride")
    touch = bool(settings.get("touch"))
    session.call(
        "Emulation.setTouchEmulationEnabled",
        {"enabled": touch, **({"maxTouchPoints": 5} if touch else {})},
    )


# -- all at once ----------------------------------------------------------------------------------
def apply_all(session: Session, settings: dict, *, main: bool) -> None:
    """Put a tab's remembered overrides on a new session (a popup, an iframe)."""
    steps = [
        (apply_offline, "offline"),
        (apply_headers, "headers"),
        (apply_geolocation, "geolocation"),
        (apply_media, "media"),
        (apply_timezone, "timezone"),
        (apply_locale, "locale"),
    ]
    for apply, key in steps:
        if settings.get(key):
            _try(apply, session, settings[key], main)
    if settings.get("userAgent") or settings.get("locale"):
        _try(apply_agent, session, settings, main)
    if settings.get("viewport") or settings.get("touch"):
        _try(apply_metrics, session, settings, main)


def clear_all(session: Session, settings: dict, *, main: bool) -> None:
    """Take the overrides in `settings` off a session."""
    steps = [
        ("offline", apply_offline, False),
        ("headers", apply_headers, {}),
        ("media", apply_media, {}),
        ("timezone", apply_timezone, None),
        ("locale", apply_locale, None),
    ]
    for key, apply, cleared in steps:
        if key in settings:
            _try(apply, session, cleared, main)
    if "geolocation" in settings:
        session.try_call("Emulation.clearGeolocationOverride")
    if settings.get("userAgent") or settings.get("locale"):
        _try(apply_agent, session, {}, main)
    if settings.get("viewport") or settings.get("touch"):
        _try(apply_metrics, session, {}, main)


def _try(apply, session: Session, value, main: bool) -> None:
    try:
        apply(session, value, main)
    except errors.CdpError:
        pass
