"""Who may talk to the service: a bearer token, a password (either header or HTTP Basic), compared
in constant time. With no credential configured, a token is generated once into
$CLAWD_HOME/auth-token (mode 0600), which the CLI reads too."""

from __future__ import annotations

import base64
import hmac
import logging
import os
import pathlib
import secrets
from collections.abc import Mapping

from clawd import errors

log = logging.getLogger("clawd.security")

# clawd's own, and the one agents written for OpenClaw's browser tool send (docs/architecture.md)
PASSWORD_HEADERS = ("X-Clawd-Password", "X-OpenClaw-Password")


class Authenticator:
    def __init__(self, token: str | None = None, password: str | None = None):
        self.token = token
        self.password = password

    @property
    def enabled(self) -> bool:
        return bool(self.token or self.password)

    def check(self, headers: Mapping[str, str]) -> None:
        if not self.enabled or self._accepts(headers):
            return
        raise errors.Unauthorized(
            "missing or wrong credentials: send `Authorization: Bearer <token>` "
            "(the token is in $CLAWD_HOME/auth-token)"
        )

    def _accepts(self, headers: Mapping[str, str]) -> bool:
        authorization = headers.get("Authorization") or ""
        scheme, _, value = authorization.partition(" ")
        scheme = scheme.lower()
        if self.token and scheme == "bearer" and _same(value.strip(), self.token):
            return True
        if not self.password:
            return False
        if any(_same(headers.get(name) or "", self.password) for name in PASSWORD_HEADERS):
            return True
        if scheme == "basic":
            try:
                _, _, given = base64.b64decode(value.strip()).decode("utf-8").partition(":")
            except (ValueError, UnicodeDecodeError):
                return False
            return _same(given, self.password)
        return False


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode("utf-8"), expected.encode("utf-8"))


def load_or_create_token(path: pathlib.Path) -> str:
    """The token in `path`, generated (mode 0600) when the file does not exist."""
    try:
        token = path.read_text().strip()
        if token:
            return token
    except FileNotFoundError:
        pass
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    token = new_token()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as handle:
        handle.write(token + "\n")
    os.chmod(path, 0o600)
    log.info("generated an auth token in %s", path)
    return token


def new_token() -> str:
    """256 random bits as 64 hex digits: a token never begins with "-", so no command line can
    mistake it for an option (token_urlsafe's alphabet has "-", once in 64 tokens at the front)."""
    return secrets.token_hex(32)


def authenticator_for(
    token: str | None, password: str | None, token_file: pathlib.Path
) -> Authenticator:
    if token or password:
        return Authenticator(token, password)
    return Authenticator(load_or_create_token(token_file))
