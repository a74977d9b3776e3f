"""`set ...`: emulation and network overrides (offline, headers, credentials, geolocation, media,
timezone, locale, device, viewport)."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, either, group, json_value
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


def add_parsers(sub) -> None:
    _, actions = group(
        sub, "set", "emulate network, location, media, locale or device for a tab", tab=True
    )
    p = command(
        actions,
        "offline",
        offline,
        "cut the page off the network, or reconnect it",
        tab=True,
    )
    p.add_argument("state", choices=("on", "off"), help="on: offline; off: back online")
    p = command(
        actions,
        "headers",
        headers,
        "send extra HTTP headers with every request",
        tab=True,
        json_output=False,
    )
    p.add_argument(
        "--headers-json",
        "--json",
        dest="headers_json",
        metavar="JSON",
        help='headers as a JSON object: {"X-Team": "qa"} (here --json takes the headers; '
        "clawd-browser --json set headers ... prints JSON)",
    )
    p.add_argument("--clear", action="store_true", help="stop sending extra headers")
    p = command(
        actions,
        "credentials",
        credentials,
        "answer HTTP authentication challenges",
        tab=True,
    )
    p.add_argument("username", metavar="USER", nargs="?", help="user name")
    p.add_argument(
        "password",
        metavar="PASS",
        nargs="?",
        help="password (one that begins with '-' goes after --: USER -- PASS)",
    )
    p.add_argument(
        "--password-file", metavar="PATH", help="read PASS from the first line of PATH instead"
    )
    p.add_argument("--clear", action="store_true", help="forget the credentials")
    _geo(actions)
    p = command(actions, "media", media, "emulate CSS media features", tab=True)
    p.add_argument(
        "scheme",
        metavar="SCHEME",
        nargs="?",
        choices=("light", "dark", "no-preference", "none"),
        help="prefers-color-scheme, as --color-scheme",
    )
    p.add_argument(
        "--color-scheme",
        choices=("light", "dark", "no-preference", "none"),
        help="prefers-color-scheme (none: clear the override)",
    )
    p.add_argument(
        "--reduced-motion",
        choices=("reduce", "no-preference", "none"),
        help="prefers-reduced-motion (none: clear the override)",
    )
    p = command(actions, "timezone", timezone, "emulate a time zone", tab=True)
    p.add_argument("timezone", metavar="TZ", nargs="?", help="IANA time zone such as Europe/Berlin")
    p.add_argument("--clear", action="store_true", help="back to the system's time zone")
    p = command(actions, "locale", locale, "emulate a locale", tab=True)
    p.add_argument("locale", metavar="LOC", nargs="?", help="locale such as de-DE")
    p.add_argument("--clear", action="store_true", help="back to the browser's own locale")
    p = command(
        actions,
        "device",
        device,
        "emulate a device's viewport, scale and user agent",
        tab=True,
    )
    p.add_argument("name", metavar="NAME", nargs="?", help='device name such as "iPhone 13"')
    p.add_argument("--clear", action="store_true", help="stop emulating a device")
    p = command(actions, "viewport", viewport, "set the viewport size", tab=True)
    p.add_argument("width", type=int, metavar="W", help="width in CSS pixels")
    p.add_argument("height", type=int, metavar="H", help="height in CSS pixels")
    p.add_argument("--scale", type=float, metavar="F", help="device scale factor (default: 1)")
    p.add_argument(
        "--mobile",
        action="store_true",
        help="emulate a mobile viewport (meta viewport, overlay scrollbars)",
    )


def _geo(actions) -> None:
    p = command(actions, "geo", geolocation, "emulate a geolocation", tab=True)
    p.add_argument("latitude", type=float, metavar="LAT", nargs="?", help="latitude in degrees")
    p.add_argument("longitude", type=float, metavar="LON", nargs="?", help="longitude in degrees")
    p.add_argument("--accuracy", type=float, metavar="M", help="accuracy in meters")
    p.add_argument(
        "--origin", metavar="ORIGIN", help="grant the geolocation permission to this origin"
    )
    p.add_argument("--clear", action="store_true", help="stop emulating a location")
