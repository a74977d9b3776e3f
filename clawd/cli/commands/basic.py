"""The service and its profiles: status, start, stop, profiles, profile create|delete,
reset-profile."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation


def status(inv: Invocation) -> None:
    output.emit(inv, inv.client.status(), output.render_fields)


def start(inv: Invocation) -> None:
    output.emit(
        inv, inv.client.start(headless=True if inv.args.headless else None), output.render_fields
    )


def stop(inv: Invocation) -> None:
    output.emit(inv, inv.client.stop(), output.render_fields)


def profiles(inv: Invocation) -> None:
    output.emit(inv, inv.client.profiles(), output.render_profiles)


def create_profile(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.create_profile(
        a.name, color=a.color, cdp_url=a.cdp_url, driver=a.driver, user_data_dir=a.user_data_dir
    )
    output.emit(inv, result, output.render_fields)


def delete_profile(inv: Invocation) -> None:
    output.emit(
        inv,
        inv.client.delete_profile(inv.args.name, purge=inv.args.purge or None),
        output.render_fields,
    )


def reset_profile(inv: Invocation) -> None:
    output.emit(inv, inv.client.reset_profile(purge=inv.args.purge or None), output.render_fields)
