"""Browser state: the page's cookies and local/session storage, and the profile's state as a
portable file (`state save|load`, Playwright's storageState shape)."""

from __future__ import annotations

import argparse

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, either, group, route_help


def cookies(inv: Invocation) -> None:
    output.emit(
        inv, inv.client.cookies(all=inv.args.all, target_id=inv.target()), output.render_cookies
    )


def set_cookie(inv: Invocation) -> None:
    a = inv.args
    name, value = (
        either(a.name_arg, a.name, "NAME", "--name"),
        either(a.value_arg, a.value, "VALUE", "--value"),
    )
    if name is None or value is None:
        raise UsageError("cookies set needs NAME and VALUE (or --name and --value)")
    if not (a.url or a.domain):
        raise UsageError("cookies set needs --url or --domain")
    cookie = {
        "name": name,
        "value": value,
        "url": a.url,
        "domain": a.domain,
        "path": a.path,
        "secure": a.secure or None,
        "httpOnly": a.http_only or None,
        "sameSite": a.same_site,
        "expires": a.expires,
    }
    cookie = {k: v for k, v in cookie.items() if v is not None}
    output.emit(inv, inv.client.set_cookie(cookie, target_id=inv.target()), output.render_fields)


def clear_cookies(inv: Invocation) -> None:
    output.emit(inv, inv.client.clear_cookies(target_id=inv.target()), output.render_fields)


def storage_get(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.storage(a.kind, key=getattr(a, "key", None), target_id=inv.target())
    output.emit(inv, result, output.render_storage)


def storage_set(inv: Invocation) -> None:
    a = inv.args
    output.emit(
        inv,
        inv.client.set_storage(a.kind, a.key, a.value, target_id=inv.target()),
        output.render_fields,
    )


def storage_clear(inv: Invocation) -> None:
    output.emit(
        inv, inv.client.clear_storage(inv.args.kind, target_id=inv.target()), output.render_fields
    )


def save_state(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.save_state(
        a.path, origins=a.origin or None, encrypt=a.encrypt or None, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def load_state(inv: Invocation) -> None:
    result = inv.client.load_state(inv.args.path, target_id=inv.target())
    output.emit(inv, result, output.render_fields)


def _state(sub) -> None:
    _, actions = group(sub, "state", "save or load the profile's cookies and storage as a file")
    p = command(actions, "save", save_state, "write cookies and storage to a file", tab=True)
    p.add_argument(
        "path", metavar="PATH", nargs="?", help=route_help("POST", "/state/save", "path")
    )
    p.add_argument(
        "--origin",
        action="append",
        metavar="ORIGIN",
        help="an origin whose storage to save, such as https://example.com (repeatable; "
        "default: the open tabs')",
    )
    p.add_argument(
        "--encrypt", action="store_true", help=route_help("POST", "/state/save", "encrypt")
    )
    p = command(actions, "load", load_state, "restore cookies and storage from a file", tab=True)
    p.add_argument("path", metavar="PATH", help=route_help("POST", "/state/load", "path"))


def add_parsers(sub) -> None:
    _state(sub)
    p, actions = group(
        sub, "cookies", "list, set or clear cookies", required=False, func=cookies, tab=True
    )
    p.add_argument(
        "--all", action="store_true", help="every cookie of the browser, not just the page's"
    )
    _cookie_set(actions)
    command(actions, "clear", clear_cookies, "delete every cookie", tab=True)
    _, actions = group(
        sub,
        "storage",
        "read or change the page's localStorage or sessionStorage",
        required=False,
        func=storage_get,
        tab=True,
        before=_storage_kind,
    )
    p = command(actions, "get", storage_get, "print one key, or every key", tab=True)
    p.add_argument("key", metavar="KEY", nargs="?", help="key to print (default: all)")
    p = command(actions, "set", storage_set, "set a key", tab=True)
    p.add_argument("key", metavar="KEY", help="key to set")
    p.add_argument("value", metavar="VALUE", help="its value")
    command(actions, "clear", storage_clear, "remove every key", tab=True)


def _storage_kind(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=("local", "session"), help="which storage")


def _cookie_set(actions) -> None:
    p = command(actions, "set", set_cookie, "set a cookie", tab=True)
    p.add_argument("name_arg", metavar="NAME", nargs="?", help="cookie name (or --name)")
    p.add_argument("value_arg", metavar="VALUE", nargs="?", help="cookie value (or --value)")
    p.add_argument("--name", help="cookie name")
    p.add_argument("--value", help="cookie value")
    p.add_argument("--url", help="URL the cookie belongs to (or give --domain)")
    p.add_argument("--domain", help="domain the cookie belongs to (or give --url)")
    p.add_argument("--path", help="cookie path (default: /)")
    p.add_argument("--secure", action="store_true", help="only sent over https")
    p.add_argument("--http-only", action="store_true", help="hidden from page JavaScript")
    p.add_argument("--same-site", choices=("Strict", "Lax", "None"), help="SameSite attribute")
    p.add_argument(
        "--expires",
        type=float,
        metavar="EPOCH",
        help="expiry in seconds since the epoch (default: a session cookie)",
    )
