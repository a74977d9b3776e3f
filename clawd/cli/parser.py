"""The `clawd-browser` argument tree: the global flags and the command list. The CLI's one
declaration, also rendered as its man page.

Each module of cli/commands/ declares its commands and their flags (`add_parsers(sub)`) beside
their handlers; every parser sets `func` and `needs_service` (False for commands that run without
a service: serve, config, mcp) and carries help text on every flag.
"""

from __future__ import annotations

import argparse

from clawd import __version__
from clawd.cli.commands import (
    act,
    basic,
    config_cmd,
    debug,
    doctor,
    extension,
    handoff,
    mcp,
    network,
    page,
    record,
    sandbox,
    serve,
    settings,
    state,
    tabs,
    web,
    webmcp,
)

EPILOG = """exit status: 0 ok, 1 error, 2 usage, 3 service unreachable, 4 not found, 5 timeout.
Refs (e12, @e12, ref=e12, or just 12) come from `clawd-browser snapshot`."""

# the command list, in the order `clawd-browser --help` and the man page show it
COMMANDS = (
    basic,
    tabs,
    page,
    act,
    debug,
    network,
    record,
    state,
    handoff,
    settings,
    web,
    webmcp,
    doctor,
    serve,
    config_cmd,
    sandbox,
    extension,
    mcp,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clawd-browser",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Drive clawd's own Chromium through the clawd service: read pages as "
        "accessibility text with refs, act on refs, take screenshots and PDFs.",
    )
    _global_flags(parser)
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        title="commands",
        help="what to do; `clawd-browser COMMAND --help` for its options",
    )
    for module in COMMANDS:
        module.add_parsers(sub)
    return parser


def _global_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help="print the version and exit",
    )
    # dest names are prefixed: commands have their own url/password arguments
    # (navigate URL, set credentials)
    parser.add_argument(
        "--url",
        dest="service_url",
        metavar="URL",
        help="control URL of the service (default: cli.url from the config, else "
        "http://server.host:server.port, i.e. http://127.0.0.1:18791)",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token",
        dest="service_token",
        metavar="TOKEN",
        help="bearer token, written --token=TOKEN; --token-file or $CLAWD_TOKEN keep it "
        "out of ps (default: server.auth.token, $CLAWD_TOKEN, then $CLAWD_HOME/auth-token)",
    )
    token.add_argument(
        "--token-file",
        dest="service_token_file",
        metavar="PATH",
        help="read the bearer token from the first line of PATH",
    )
    password = parser.add_mutually_exclusive_group()
    password.add_argument(
        "--password",
        dest="service_password",
        metavar="PASSWORD",
        help="service password, written --password=PASSWORD; --password-file or "
        "$CLAWD_PASSWORD keep it out of ps (default: server.auth.password, $CLAWD_PASSWORD)",
    )
    password.add_argument(
        "--password-file",
        dest="service_password_file",
        metavar="PATH",
        help="read the service password from the first line of PATH",
    )
    parser.add_argument(
        "--browser-profile",
        "--profile",
        dest="profile",
        metavar="NAME",
        help="browser profile to use (default: the service's browser.defaultProfile)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the service's JSON answer instead of text"
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="configuration file (default: $CLAWD_CONFIG, ~/.clawd/clawd.yaml, "
        "/etc/clawd/clawd.yaml, else built-in defaults)",
    )
    parser.add_argument(
        "--autostart",
        action="store_true",
        default=None,
        help="start a local service in the background when a loopback control URL "
        "does not answer (also cli.autostart in the config)",
    )
    parser.add_argument(
        "--timeout",
        dest="service_timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for the service's answer (default: 60)",
    )
