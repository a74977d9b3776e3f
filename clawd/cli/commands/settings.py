"""`set ...`: emulation and network overrides (offline, headers, credentials, geolocation, media,
timezone, locale, device, viewport)."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, either, json_value
from clawd.cli.credentials import secret_from_file


def _done(inv: Invocation, result: dict) -> None:
    output.emit(inv, result, output.render_fields)


def offline(inv: Invocation) -> None:
    _done(inv, inv.client.set_offline(inv.args.state == "on", target_id=inv.target()))


def headers(inv: Invocation) -> None:
    a = inv.args
    if a.clear == bool(a.headers_json):
        raise UsageError("set headers takes --json JSON (--headers-json) or --clear")
    if a.clear:
        _done(inv, inv.client.set_headers(clear=True, target_id=inv.target()))
        return
    _done(inv, inv.client.set_headers(_header_map(a.headers_json), target_id=inv.target()))


def _header_map(text: str) -> dict[str, str]:
    value = json_value(text, "--headers-json", dict, 'a JSON object such as {"X-Team": "qa"}')
    return {str(k): str(v) for k, v in value.items()}


def credentials(inv: Invocation) -> None:
    a = inv.args
    if a.clear == (a.username is not None):
        raise UsageError("set credentials takes USER PASS or --clear")
    if a.password is not None and a.password_file is not None:
        raise UsageError("set credentials takes PASS or --password-file, not both")
    password = (
        a.password
        if a.password is not None
        else secret_from_file(a.password_file, "--password-file")
    )
    if not a.clear and password is None:
        raise UsageError("set credentials needs both USER and PASS")
    result = inv.client.set_credentials(
        username=a.username, password=password, clear=a.clear or None, target_id=inv.target()
    )
    _done(inv, result)


def geolocation(inv: Invocation) -> None:
    a = inv.args
    if a.clear == (a.latitude is not None):
        raise UsageError("set geo takes LAT LON or --clear")
    if not a.clear and a.longitude is None:
        raise UsageError("set geo needs both LAT and LON")
    result = inv.client.set_geolocation(
        latitude=a.latitude,
        longitude=a.longitude,
        accuracy=a.accuracy,
        origin=a.origin,
        clear=a.clear or None,
        target_id=inv.target(),
    )
    _done(inv, result)


def media(inv: Invocation) -> None:
    a = inv.args
    scheme = either(a.scheme, a.color_scheme, "SCHEME", "--color-scheme")
    if scheme is None and a.reduced_motion is None:
        raise UsageError("set media needs SCHEME (--color-scheme) and/or --reduced-motion")
    _done(
        inv,
        inv.client.set_media(
            color_scheme=scheme, reduced_motion=a.reduced_motion, target_id=inv.target()
        ),
    )


def timezone(inv: Invocation) -> None:
    value = _value_or_clear(inv, "timezone", "TZ")
    _done(inv, inv.client.set_timezone(value, clear=inv.args.clear or None, target_id=inv.target()))


def locale(inv: Invocation) -> None:
    value = _value_or_clear(inv, "locale", "LOC")
    _done(inv, inv.client.set_locale(value, clear=inv.args.clear or None, target_id=inv.target()))


def device(inv: Invocation) -> None:
    value = _value_or_clear(inv, "name", "NAME")
    _done(inv, inv.client.set_device(value, clear=inv.args.clear or None, target_id=inv.target()))


def _value_or_clear(inv: Invocation, dest: str, metavar: str) -> str | None:
    value = getattr(inv.args, dest)
    if inv.args.clear == (value is not None):
        raise UsageError(f"set {inv.args.set_action} takes {metavar} or --clear")
    return value


def viewport(inv: Invocation) -> None:
    a = inv.args
    _done(
        inv,
        inv.client.set_viewport(
            a.width,
            a.height,
            device_scale_factor=a.scale,
            mobile=a.mobile or None,
            target_id=inv.target(),
        ),
    )
