"""The service and its profiles: status, start, stop, profiles, profile create|delete,
reset-profile."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, either, group, route_help


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
        _name(inv), color=a.color, cdp_url=a.cdp_url, driver=a.driver, user_data_dir=a.user_data_dir
    )
    output.emit(inv, result, output.render_fields)


def delete_profile(inv: Invocation) -> None:
    output.emit(
        inv,
        inv.client.delete_profile(_name(inv), purge=inv.args.purge or None),
        output.render_fields,
    )


def _name(inv: Invocation) -> str:
    """The profile named as a word or with --name (OpenClaw's spelling)."""
    name = either(inv.args.name, inv.args.name_flag, "NAME", "--name")
    if name is None:
        raise UsageError("give the profile's name: NAME or --name NAME")
    return name


def reset_profile(inv: Invocation) -> None:
    output.emit(inv, inv.client.reset_profile(purge=inv.args.purge or None), output.render_fields)


def add_parsers(sub) -> None:
    command(sub, "status", status, "show the service and browser status")
    p = command(sub, "start", start, "start the browser of the profile")
    p.add_argument("--headless", action="store_true", help=route_help("POST", "/start", "headless"))
    command(
        sub,
        "stop",
        stop,
        "stop the browser of the profile (a remote browser is only disconnected)",
    )
    command(sub, "profiles", profiles, "list browser profiles")
    _, actions = group(sub, "profile", "create or delete a browser profile")
    _profile_create(actions, "create")
    _profile_delete(actions, "delete")
    _profile_create(sub, "create-profile")  # OpenClaw's spellings
    _profile_delete(sub, "delete-profile")
    p = command(
        sub,
        "reset-profile",
        reset_profile,
        "stop the browser and move the profile's user data (cookies, storage, history) to "
        "$CLAWD_HOME/trash, leaving a fresh profile",
    )
    p.add_argument(
        "--purge",
        action="store_true",
        help="erase the user data instead of keeping it in the trash",
    )


def _profile_create(sub, name: str) -> None:
    p = command(sub, name, create_profile, "create a browser profile")
    _name_arguments(p, "profile name: lowercase letters, digits and dashes")
    p.add_argument(
        "--color", metavar="HEX", help="profile color such as #0066CC (default: the first unused)"
    )
    p.add_argument(
        "--cdp-url", metavar="URL", help="attach to this DevTools endpoint instead of launching"
    )
    p.add_argument(
        "--driver",
        choices=("managed", "remote", "existing-session"),
        help="how the browser is obtained (default: managed, or remote with --cdp-url)",
    )
    p.add_argument(
        "--user-data-dir", metavar="DIR", help="existing-session: the browser's user data directory"
    )


def _profile_delete(sub, name: str) -> None:
    p = command(
        sub,
        name,
        delete_profile,
        "delete a browser profile; its user data goes to $CLAWD_HOME/trash",
    )
    _name_arguments(p, "profile to delete")
    p.add_argument(
        "--purge",
        action="store_true",
        help="erase the user data instead of keeping it in the trash",
    )


def _name_arguments(p, help_text: str) -> None:
    """NAME as a word, or --name NAME as OpenClaw's CLI writes it."""
    p.add_argument("name", metavar="NAME", nargs="?", help=help_text)
    p.add_argument("--name", dest="name_flag", metavar="NAME", help="the same as NAME")
