"""Browser state of the current page: cookies and local/session storage."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, either


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
