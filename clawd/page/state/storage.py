"""Browser state a page keeps: cookies (Network/Storage domains) and localStorage/sessionStorage
(read and written in the page's main frame)."""

from __future__ import annotations

import json
import math

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session

COOKIE_FIELDS = (
    "name",
    "value",
    "domain",
    "path",
    "expires",
    "httpOnly",
    "secure",
    "session",
    "sameSite",
)
_SAME_SITE = {"strict": "Strict", "lax": "Lax", "none": "None"}
_COOKIE_KEYS = {
    "name",
    "value",
    "url",
    "domain",
    "path",
    "expires",
    "httpOnly",
    "secure",
    "sameSite",
}
KINDS = {"local": "localStorage", "session": "sessionStorage"}


# -- cookies ------------------------------------------------------------------------------------
def cookies(tab: Tab, *, everything: bool = False) -> list[dict]:
    """The current page's cookies (its URL and its frames'), or every cookie of the profile."""
    if everything:
        found = Session(tab.session.connection).call("Storage.getCookies")["cookies"]
    else:
        found = tab.session.call("Network.getCookies")["cookies"]
    return [{k: c[k] for k in COOKIE_FIELDS if k in c} for c in found]


def set_cookie(tab: Tab, cookie) -> dict:
    params = cookie_params(cookie, tab.url)
    try:
        answer = tab.session.call("Network.setCookie", params)
    except errors.CdpError as exc:
        raise errors.InvalidCookie(
            f"cookie {params['name']!r} was refused by Chromium: {exc.message}"
        ) from None
    if answer.get("success") is False:
        raise errors.InvalidCookie(
            f"cookie {params['name']!r} was refused by Chromium (check cookie.domain, "
            f"cookie.url, cookie.secure and cookie.sameSite)"
        )
    return {k: params[k] for k in ("name", "url", "domain", "path") if k in params}


def cookie_params(cookie, page_url: str = "") -> dict:
    """Network.setCookie parameters from a request's `cookie`;
    400 INVALID_COOKIE naming the field."""
    if not isinstance(cookie, dict):
        raise errors.InvalidCookie(
            "cookie must be an object such as {\"name\": \"a\", \"value\": \"1\", \"url\": ...}"
        )
    unknown = sorted(set(cookie) - _COOKIE_KEYS)
    if unknown:
        raise errors.InvalidCookie(
            f"unknown field cookie.{unknown[0]}; allowed: {', '.join(sorted(_COOKIE_KEYS))}"
        )
    params = {
        "name": _text(cookie, "name", empty=False),
        "value": _text(cookie, "value", empty=True),
    }
    for key in ("url", "domain", "path"):
        if cookie.get(key) is not None:
            params[key] = _text(cookie, key, empty=False)
    if "url" in params and not params["url"].startswith(("http://", "https://")):
        raise errors.InvalidCookie(f"cookie.url must be an http(s) URL, not {params['url']!r}")
    if "url" not in params and "domain" not in params:
        if not page_url.startswith(("http://", "https://")):
            raise errors.InvalidCookie(
                "cookie.url or cookie.domain is required (the page has no http(s) URL)"
            )
        params["url"] = page_url
    if "domain" in params and "url" not in params:
        params.setdefault("path", "/")
    for key in ("httpOnly", "secure"):
        if cookie.get(key) is not None:
            if not isinstance(cookie[key], bool):
                raise errors.InvalidCookie(f"cookie.{key} must be true or false")
            params[key] = cookie[key]
    if cookie.get("sameSite") is not None:
        same = _SAME_SITE.get(str(cookie["sameSite"]).lower())
        if same is None:
            raise errors.InvalidCookie(
                f"cookie.sameSite must be Strict, Lax or None, not {cookie['sameSite']!r}"
            )
        params["sameSite"] = same
    if cookie.get("expires") is not None:
        params["expires"] = _expires(cookie["expires"])
    return params


def _text(cookie: dict, key: str, *, empty: bool) -> str:
    value = cookie.get(key)
    if not isinstance(value, str) or (not empty and not value):
        raise errors.InvalidCookie(f"cookie.{key} must be a {'' if empty else 'non-empty '}string")
    if any(c in value for c in ";\r\n\0"):
        raise errors.InvalidCookie(
            f"cookie.{key} must not contain ';', control characters or newlines"
        )
    return value


def _expires(value) -> float:
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or value < 0
    ):
        raise errors.InvalidCookie(f"cookie.expires must be seconds since the epoch, not {value!r}")
    return float(value)


def clear_cookies(tab: Tab) -> None:
    tab.session.call("Network.clearBrowserCookies")


# -- local and session storage --------------------------------------------------------------------
def storage_name(kind: str) -> str:
    name = KINDS.get(kind)
    if name is None:
        raise errors.InvalidStorageKind(f"storage kind must be local or session, not {kind!r}")
    return name


def storage_get(tab: Tab, kind: str, key: str | None = None):
    """Every item as a dict, or one key's value (None when absent)."""
    area = storage_name(kind)
    if key is not None:
        return _in_page(tab, area, f"s.getItem({json.dumps(key)})")
    return _in_page(
        tab,
        area,
        "Object.fromEntries(Array.from({length: s.length}, (_, i) => s.key(i))"
        ".map(k => [k, s.getItem(k)]))",
    )


def storage_set(tab: Tab, kind: str, key: str, value: str) -> None:
    _in_page(tab, storage_name(kind), f"(s.setItem({json.dumps(key)}, {json.dumps(value)}), null)")


def storage_clear(tab: Tab, kind: str) -> int:
    return _in_page(tab, storage_name(kind), "((n) => (s.clear(), n))(s.length)")


def _in_page(tab: Tab, area: str, body: str):
    expression = f"(() => {{ const s = window.{area}; return {body}; }})()"
    answer = tab.session.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    details = answer.get("exceptionDetails")
    if details is not None:
        text = (details.get("exception") or {}).get("description") or details.get("text", "")
        first = text.split("\n", 1)[0]
        if "QuotaExceeded" in first:
            raise errors.InvalidRequest(f"{area} is full: {first}")
        raise errors.StorageUnavailable(
            f"the page at {tab.url or 'about:blank'} has no usable {area} "
            f"({first}); navigate to an http(s) page first"
        )
    return answer.get("result", {}).get("value")
