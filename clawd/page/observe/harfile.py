"""The HAR 1.2 file (http://www.softwareishard.com/blog/har-12-spec/) of a recording har.py made:
its exchanges become entries (request, response, cookies, timings, bodies embedded or attached);
what is recorded, and when, is har.py's."""

from __future__ import annotations

import base64
import datetime
import email.utils
import hashlib
import json
import mimetypes
import os
import pathlib
from urllib.parse import parse_qsl, urlsplit

from clawd import __version__
from clawd.security.paths import confine

MAX_COOKIE_AGE = 400 * 86400


def save(target: pathlib.Path, held: dict, content: str, root: pathlib.Path) -> dict:
    """Write a finished recording (HarRecorder.finish(): its exchanges are har.Exchange) as a HAR
    file at `target`, with `content` "attach" its bodies in a folder beside it; how many entries
    and pages it holds."""
    bodies = target.parent / f"{target.stem}-bodies" if content == "attach" else None
    entries = [_entry(ex, content, bodies, root) for ex in held["exchanges"]]
    # a page nothing was recorded on (the one open when recording began, often) is left out:
    # readers such as haralyzer take a page's URL from its first entry
    pages = [p for p in held["pages"] if any(e["pageref"] == p["id"] for e in entries)]
    document = _log(pages, entries, held["comment"])
    write(target, json.dumps(document, ensure_ascii=False, indent=1).encode("utf-8"))
    return {"entries": len(entries), "pages": len(pages)}


def write(target: pathlib.Path, data: bytes) -> None:
    """A new file only its owner reads, never through a symlink."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0)
    with os.fdopen(os.open(target, flags, 0o600), "wb") as out:
        out.write(data)


def _log(pages: list[dict], entries: list[dict], comment: str | None) -> dict:
    log = {
        "version": "1.2",
        "creator": {"name": "clawd", "version": __version__},
        "pages": pages,
        "entries": sorted(entries, key=lambda e: e["startedDateTime"]),
    }
    if comment:
        log["comment"] = comment
    return {"log": log}


def _entry(ex, content: str, bodies: pathlib.Path | None, root: pathlib.Path) -> dict:
    response = ex.response or {}
    timings = _timings(ex, response.get("timing"))
    entry = {
        "pageref": ex.page_id,
        "startedDateTime": iso(ex.wall),
        "time": round(sum(v for k, v in timings.items() if k != "ssl" and v > 0), 3),
        "request": _request(ex, response),
        "response": _response(ex, response, content, bodies, root),
        "cache": {},
        "timings": timings,
        "_resourceType": ex.resource_type.lower(),
    }
    if response.get("remoteIPAddress"):
        entry["serverIPAddress"] = response["remoteIPAddress"].strip("[]")
    return entry


def _request(ex, response: dict) -> dict:
    # the headers on the wire (with the Cookie the network stack added) when Chromium told them
    headers = (ex.sent or {}).get("headers") or response.get("requestHeaders") or ex.headers
    request = {
        "method": ex.method,
        "url": ex.url,
        "httpVersion": _http_version(response.get("protocol")),
        "cookies": _sent_cookies((_header(headers, "cookie") or "").replace("\n", ";"), ex.sent),
        "headers": _headers(headers),
        "queryString": [{"name": k, "value": v} for k, v in parse_qsl(urlsplit(ex.url).query)],
        "headersSize": -1,
        "bodySize": len(ex.post_data.encode("utf-8")) if ex.post_data else 0,
    }
    if ex.post_data is not None:
        mime = _header(headers, "content-type") or "application/octet-stream"
        request["postData"] = {"mimeType": mime, "text": ex.post_data}
    return request


def _response(ex, response: dict, content: str, bodies, root) -> dict:
    # the raw headers hold Set-Cookie, which the page's view of them may lack
    headers = (ex.received or {}).get("headers") or response.get("headers") or {}
    out = {
        "status": int(response.get("status") or 0),
        "statusText": response.get("statusText") or "",
        "httpVersion": _http_version(response.get("protocol")),
        "cookies": _set_cookies(headers, ex),
        "headers": _headers(headers),
        "content": _content(ex, response, content, bodies, root),
        "redirectURL": ex.redirect_url or _header(headers, "location") or "",
        "headersSize": -1,
        "bodySize": -1,
        "_transferSize": ex.transfer,
    }
    if ex.error is not None:
        out["_error"] = ex.error
    return out


def _content(ex, response: dict, mode: str, bodies, root) -> dict:
    mime = response.get("mimeType") or "x-unknown"
    out = {"size": 0, "mimeType": mime}
    if ex.body is None:
        length = _header(response.get("headers") or {}, "content-length")
        out["size"] = int(length) if length and length.isdigit() else 0
        if ex.note and mode != "omit":
            out["comment"] = ex.note
        return out
    data, binary = ex.body
    out["size"] = len(data)
    if mode == "embed" and binary:
        out.update(text=base64.b64encode(data).decode("ascii"), encoding="base64")
    elif mode == "embed":
        out["text"] = data.decode("utf-8", errors="replace")
    else:
        out["_file"] = _attach(data, mime, bodies, root)
    return out


def _attach(data: bytes, mime: str, bodies: pathlib.Path, root: pathlib.Path) -> str:
    """The body as a file named by its SHA-1 beside the HAR; the name relative to the HAR."""
    bodies.mkdir(parents=True, exist_ok=True, mode=0o700)
    confine(root, bodies, must_exist=True, kind="dir")
    name = hashlib.sha1(data).hexdigest() + (mimetypes.guess_extension(mime.split(";")[0]) or "")
    target = bodies / name
    if not target.exists():
        write(target, data)
    return f"{bodies.name}/{name}"


def _timings(ex, timing: dict | None) -> dict:
    """HAR's phases from Chromium's ResourceTiming (ms after requestTime); without one (a
    route's answer, a cache hit, a failure) the whole time counts as waiting."""
    total = max(0.0, ((ex.ended or ex.started) - ex.started) * 1000)
    if not timing:
        unknown = dict.fromkeys(("blocked", "dns", "connect", "ssl"), -1)
        return {**unknown, "send": 0, "wait": round(total, 3), "receive": 0}
    base = (timing["requestTime"] - ex.started) * 1000

    def span(start: str, end: str) -> float:
        a, b = timing.get(start, -1), timing.get(end, -1)
        return round(b - a, 3) if a >= 0 and b >= 0 else -1

    starts = (timing.get(k, -1) for k in ("dnsStart", "connectStart", "sendStart"))
    first = next((t for t in starts if t >= 0), 0)
    headers_end = timing.get("receiveHeadersEnd", 0)
    return {
        "blocked": round(max(0.0, base + first), 3),
        "dns": span("dnsStart", "dnsEnd"),
        "connect": span("connectStart", "connectEnd"),
        "send": max(0, span("sendStart", "sendEnd")),
        "wait": round(max(0.0, headers_end - max(timing.get("sendEnd", 0), 0)), 3),
        "receive": round(max(0.0, total - base - headers_end), 3),
        "ssl": span("sslStart", "sslEnd"),
    }


def _headers(headers: dict) -> list[dict]:
    # Chromium joins repeated headers (Set-Cookie) with newlines: HAR lists each
    return [
        {"name": name, "value": value}
        for name, joined in headers.items()
        for value in str(joined).split("\n")
    ]


def _header(headers: dict, name: str) -> str | None:
    return next((str(v) for k, v in headers.items() if k.lower() == name), None)


def _sent_cookies(header: str, sent: dict | None) -> list[dict]:
    """The Cookie header's pairs, with the attributes of the stored cookie each one was."""
    stored = {(c.get("name"), c.get("value")): c for c in (sent or {}).get("cookies", ())}
    cookies = []
    for part in header.split(";"):
        name, equals, value = part.strip().partition("=")
        if not equals:
            continue
        cookie = {"name": name, "value": value}
        found = stored.get((name, value))
        if found is not None:
            cookie.update(path=found.get("path", "/"), domain=found.get("domain", ""))
            if (found.get("expires") or -1) > 0:
                cookie["expires"] = iso(found["expires"])
            cookie.update(httpOnly=bool(found.get("httpOnly")), secure=bool(found.get("secure")))
        cookies.append(cookie)
    return cookies


def _set_cookies(headers: dict, ex) -> list[dict]:
    """Each Set-Cookie line as a HAR cookie; one Chromium did not store says why."""
    blocked = (ex.received or {}).get("blocked", {})
    lines = (
        line
        for name, v in headers.items()
        if name.lower() == "set-cookie"
        for line in str(v).split("\n")
    )
    cookies = []
    for line in lines:
        cookie = _set_cookie(line, ex.wall)
        if cookie is None:
            continue
        if line in blocked:
            cookie["comment"] = "not stored: " + ", ".join(blocked[line])
        cookies.append(cookie)
    return cookies


def _set_cookie(line: str, wall: float) -> dict | None:
    """name=value; Attr=..., as HAR 1.2 writes a cookie (RFC 6265's attributes)."""
    pair, *attributes = line.split(";")
    name, equals, value = pair.strip().partition("=")
    if not equals or not name:
        return None
    cookie = {"name": name, "value": value.strip()}
    for attribute in attributes:
        key, _, given = attribute.strip().partition("=")
        key = key.lower()
        if key in ("path", "domain"):
            cookie[key] = given
        elif key in ("httponly", "secure"):
            cookie["httpOnly" if key == "httponly" else "secure"] = True
        elif key == "max-age" and given.lstrip("-").isdigit():
            # Max-Age wins over Expires; 0 or less is "now"; browsers cap it at 400 days
            # (RFC 6265bis)
            cookie["expires"] = iso(wall + min(max(int(given), 0), MAX_COOKIE_AGE))
        elif key == "expires" and "expires" not in cookie:
            cookie.update(_http_date(given))
    return cookie


def _http_date(text: str) -> dict:
    try:
        return {"expires": iso(email.utils.parsedate_to_datetime(text).timestamp())}
    except (TypeError, ValueError, IndexError, OverflowError, OSError):
        return {}


def _http_version(protocol: str | None) -> str:
    known = {"http/1.0": "HTTP/1.0", "http/1.1": "HTTP/1.1", "h2": "HTTP/2", "h3": "HTTP/3"}
    return known.get((protocol or "").lower(), protocol or "HTTP/1.1")


def iso(wall: float) -> str:
    moment = datetime.datetime.fromtimestamp(wall, tz=datetime.UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
