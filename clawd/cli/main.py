"""`clawd-browser`: parse, build the client, dispatch, and the one place exceptions become
exit statuses.

Exit status: 0 ok, 1 error, 2 usage, 3 service unreachable, 4 not found, 5 timeout.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from clawd import errors
from clawd.cli import autostart
from clawd.cli.commands import Invocation, UsageError
from clawd.cli.credentials import attach_secret_values, secret_from_file
from clawd.cli.parser import build_parser
from clawd.client import Client, ServiceUnreachable
from clawd.config.model import Config
from clawd.security.content import sanitize_markers

EXIT_OK, EXIT_ERROR, EXIT_USAGE, EXIT_UNREACHABLE, EXIT_NOT_FOUND, EXIT_TIMEOUT = range(6)


def main(
    argv: Sequence[str] | None = None, *, stdout: TextIO | None = None, stderr: TextIO | None = None
) -> int:
    stdout, stderr = stdout or sys.stdout, stderr or sys.stderr
    parser = build_parser()
    argv = attach_secret_values(sys.argv[1:] if argv is None else argv, parser)
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help is 0, a usage error 2
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    inv = Invocation(
        args,
        stdout,
        stderr,
        make_client=lambda: _make_client(inv),
        load_config=lambda: load_config(args.config),
    )
    try:
        return _dispatch(inv)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `clawd-browser tabs | head -1`: the reader left, nothing to report
        _silence(stdout)
        return EXIT_ERROR
    except (errors.ClawdError, UsageError, OSError) as exc:
        status, message = exit_status(exc)
        print(message, file=stderr)
        return status


def _silence(stream: TextIO) -> None:
    """Point a closed pipe's descriptor at /dev/null so the interpreter's final flush stays
    quiet."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), stream.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _dispatch(inv: Invocation) -> int:
    if inv.args.needs_service and autostart.wanted(inv):
        if autostart.ensure_for(inv):
            del inv.client  # built before the new service wrote $CLAWD_HOME/auth-token: read it now
    return inv.args.func(inv) or EXIT_OK


def exit_status(exc: BaseException) -> tuple[int, str]:
    """The ladder: (exit status, the line for stderr). A service's message may quote a page
    (a title, a redirect's Location): its marker look-alikes are sanitized (docs/security.md)."""
    if isinstance(exc, UsageError):
        return EXIT_USAGE, f"error: {exc} (USAGE)"
    if not isinstance(exc, errors.ClawdError):
        return EXIT_ERROR, f"error: {exc}"
    return _status_of(exc), f"error: {sanitize_markers(exc.message)} ({exc.code})"


def _status_of(exc: errors.ClawdError) -> int:
    if isinstance(exc, ServiceUnreachable):
        return EXIT_UNREACHABLE
    if exc.http_status == 404:
        return EXIT_NOT_FOUND
    if exc.http_status in (408, 504) or isinstance(exc, TimeoutError):
        return EXIT_TIMEOUT
    return EXIT_ERROR


# -- configuration and client ----------------------------------------------------------------------
def load_config(path: str | None) -> Config:
    """The configuration from `path` (or the usual places), read by config/loader.py."""
    from clawd.config import loader  # jsonschema and friends: only commands that read it

    return loader.load_config(path=path)


def _make_client(inv: Invocation) -> Client:
    a, config = inv.args, inv.config
    url = a.service_url or config.cli.url or server_url(config.server.host, config.server.port)
    token = a.service_token or secret_from_file(a.service_token_file, "--token-file")
    password = a.service_password or secret_from_file(a.service_password_file, "--password-file")
    return Client(
        url,
        token=token or config.server.auth.token,
        password=password or config.server.auth.password,
        profile=a.profile,
        timeout=a.service_timeout,
        home=config.home,
    )


def server_url(host: str, port: int) -> str:
    """Where a service bound to host:port answers locally (a wildcard bind answers on loopback)."""
    if host in ("", "0.0.0.0", "::"):
        host = "127.0.0.1"
    if ":" in host:
        host = f"[{host}]"
    return f"http://{host}:{port}"
