"""`serve`: run the service in the foreground (clawd.daemon owns signals, reload and shutdown)."""

from __future__ import annotations

import dataclasses
import importlib

from clawd.cli.commands import Invocation, command


def serve(inv: Invocation) -> int:
    # lazily: the client side of the CLI must not pay for the server's imports (and through
    # sys.modules, so a test can hand in a fake daemon whatever was imported before)
    daemon = importlib.import_module("clawd.daemon")
    a = inv.args
    # SIGHUP reads the file again through the same lookup, and this run's flags still win over it
    code = daemon.run(
        _overridden(inv.config, a),
        load=lambda: _overridden(inv.load_config(), a),
        allow_hosts=list(a.allow_host or []),
        log_level=a.log_level or "info",
        log_file=a.log_file,
    )
    return code or 0


def _overridden(config, args):
    """--host, --port and --headless win over the file for this run only."""
    server, browser = config.server, config.browser
    if args.host is not None:
        server = dataclasses.replace(server, host=args.host)
    if args.port is not None:
        server = dataclasses.replace(server, port=args.port)
    if args.headless is not None:
        headless = {"true": True, "false": False}.get(args.headless, "auto")
        browser = dataclasses.replace(browser, headless=headless)
    return dataclasses.replace(config, server=server, browser=browser)


def add_parsers(sub) -> None:
    p = command(sub, "serve", serve, "run the clawd service in the foreground", needs_service=False)
    p.add_argument("--host", metavar="HOST", help="address to listen on (default: server.host)")
    p.add_argument(
        "--port", type=int, metavar="PORT", help="port to listen on (default: server.port)"
    )
    p.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST",
        help="also allow navigating to this host for this run (repeatable), e.g. 127.0.0.1 "
        "for a local development server",
    )
    p.add_argument(
        "--log-level", choices=("debug", "info", "warning", "error"), help="log verbosity"
    )
    p.add_argument("--log-file", metavar="PATH", help="log here instead of stderr")
    p.add_argument(
        "--headless", choices=("auto", "true", "false"), help="override browser.headless"
    )
