"""A storage state file, without a browser: Playwright's storageState shape ({cookies, origins:
[{origin, localStorage}]}, each origin's sessionStorage in `origins[].sessionStorage`, a key
Playwright ignores), checked whole before anything is applied; written confined under
$CLAWD_HOME/state, mode 0600, optionally sealed with Fernet (`cryptography`) under a key kept
in $CLAWD_HOME. The browser's side is clawd/page/state/portable.py."""

from __future__ import annotations

import datetime
import json
import os
import pathlib
import urllib.parse
from dataclasses import dataclass, field

from clawd import errors
from clawd.page.state import storage
from clawd.security import paths

MAX_ORIGINS = 200
MAX_COOKIES = 10000
MAX_FILE = 32 * 1024 * 1024
KEY_FILE = "state.key"
_SAME_SITE = ("Strict", "Lax", "None")
_DEFAULT_PORTS = {"http": 80, "https": 443}


@dataclass
class Origin:
    origin: str
    local: list[tuple[str, str]] = field(default_factory=list)
    session: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class State:
    cookies: list[dict]  # Storage.setCookies parameters
    origins: list[Origin]


def origin_of(url: str) -> str | None:
    """The http(s) origin of `url` as a page's location.origin spells it (no default port)."""
    parts = urllib.parse.urlsplit(url or "")
    try:
        port = parts.port
    except ValueError:
        return None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return None
    host = parts.netloc.rsplit("@", 1)[-1].lower()
    if port is not None:
        host = host.rsplit(":", 1)[0]
        if port != _DEFAULT_PORTS[parts.scheme]:
            host = f"{host}:{port}"
    return f"{parts.scheme}://{host}"


# -- validating a file ----------------------------------------------------------------------------
def parse(data) -> State:
    """A storageState document checked whole, before anything is applied; a foreign or broken
    one is 400 INVALID_STATE_FILE naming the first bad field."""
    if not isinstance(data, dict) or not isinstance(data.get("cookies", []), list):
        raise errors.InvalidStateFile(
            "not a storage state: expected {cookies: [...], origins: [...]}"
        )
    if "cookies" not in data and "origins" not in data:
        raise errors.InvalidStateFile("not a storage state: it has neither cookies nor origins")
    origins = data.get("origins", [])
    if not isinstance(origins, list):
        raise errors.InvalidStateFile("origins must be a list")
    if len(data.get("cookies", [])) > MAX_COOKIES or len(origins) > MAX_ORIGINS:
        raise errors.InvalidStateFile(
            f"too many entries (at most {MAX_COOKIES} cookies and {MAX_ORIGINS} origins)"
        )
    cookies = [_cookie(c, f"cookies[{i}]") for i, c in enumerate(data.get("cookies", []))]
    return State(cookies, [_origin(o, f"origins[{i}]") for i, o in enumerate(origins)])


def _cookie(cookie, where: str) -> dict:
    if not isinstance(cookie, dict):
        raise errors.InvalidStateFile(f"{where} must be an object")
    known = {k: v for k, v in cookie.items() if k in storage.COOKIE_FIELDS or k == "url"}
    known.pop("session", None)
    if known.get("expires") == -1:
        known.pop("expires")  # Playwright's session cookie
    if known.get("sameSite") is not None and known["sameSite"] not in _SAME_SITE:
        raise errors.InvalidStateFile(f"{where}.sameSite must be one of {', '.join(_SAME_SITE)}")
    if known.get("sameSite") == "None" and known.get("secure") is not True:
        raise errors.InvalidStateFile(f"{where}: sameSite None needs secure: true (Chromium)")
    try:
        return storage.cookie_params(known)
    except errors.InvalidCookie as exc:
        raise errors.InvalidStateFile(f"{where}: {exc.message}") from None


def _origin(entry, where: str) -> Origin:
    if not isinstance(entry, dict):
        raise errors.InvalidStateFile(f"{where} must be an object")
    return Origin(
        check_origin(entry.get("origin"), f"{where}.origin", errors.InvalidStateFile),
        _named(entry.get("localStorage", []), f"{where}.localStorage"),
        _named(entry.get("sessionStorage", []), f"{where}.sessionStorage"),
    )


def _named(items, where: str) -> list[tuple[str, str]]:
    if not isinstance(items, list):
        raise errors.InvalidStateFile(f"{where} must be a list of {{name, value}}")
    out = []
    for i, item in enumerate(items):
        if (
            not isinstance(item, dict)
            or not isinstance(item.get("name"), str)
            or not isinstance(item.get("value"), str)
        ):
            raise errors.InvalidStateFile(f"{where}[{i}] must be {{name: string, value: string}}")
        out.append((item["name"], item["value"]))
    return out


def check_origin(value, where: str, error: type = errors.InvalidRequest) -> str:
    """An http(s) origin exactly (scheme://host[:port], nothing after it), lower-cased."""
    origin = origin_of(value) if isinstance(value, str) else None
    parts = urllib.parse.urlsplit(value) if origin else None
    extra = parts and (parts.username is not None or parts.query or parts.fragment)
    if origin is None or extra or (parts.path or "/") != "/":
        raise error(f"{where} must be an http(s) origin such as https://example.com, not {value!r}")
    return origin


# -- the file -------------------------------------------------------------------------------------
def write(root: pathlib.Path, path: str | None, state: dict, key_file: pathlib.Path | None) -> dict:
    """`state` as JSON (sealed when `key_file` is given) at `path` under `root`, mode 0600,
    replacing the file there at once (never half-written, never through a symlink)."""
    target = _target(root, path)
    data = json.dumps(state, indent=1, ensure_ascii=False).encode()
    if key_file is not None:
        data = _fernet(key_file, create=True).encrypt(data)
    temp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(temp, target)
    except BaseException:
        temp.unlink(missing_ok=True)
        raise
    return {"path": str(target), "bytes": len(data), "encrypted": key_file is not None}


def _target(root: pathlib.Path, path: str | None) -> pathlib.Path:
    root.mkdir(parents=True, exist_ok=True, mode=0o700)
    if path is None:
        stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
        return paths.unique_path(root, f"state-{stamp}.json")
    target = paths.confine(root, path, must_exist=False)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return paths.confine(root, path, must_exist=False)  # again: the new directories included


def read(root: pathlib.Path, path: str, key_file: pathlib.Path) -> tuple[State, bool]:
    """The state file at `path` under `root`, unsealed when sealed, checked whole; and whether
    it was sealed."""
    source = paths.confine(root, path)
    fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as src:
        data = src.read(MAX_FILE + 1)
    if len(data) > MAX_FILE:
        raise errors.InvalidStateFile(f"{source} is larger than {MAX_FILE} bytes")
    sealed = not data.lstrip().removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"{")
    if sealed:
        data = _unseal(key_file, data)
    try:
        document = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise errors.InvalidStateFile(f"{source} is not JSON: {exc}") from None
    return parse(document), sealed


def _unseal(key_file: pathlib.Path, data: bytes) -> bytes:
    from cryptography.fernet import InvalidToken

    if not key_file.exists():
        raise errors.InvalidStateFile(
            f"the file is not JSON, and no key to unseal it exists ({key_file})"
        )
    try:
        return _fernet(key_file, create=False).decrypt(data.strip())
    except InvalidToken:
        raise errors.InvalidStateFile(
            "the file is neither JSON nor sealed with this clawd's key (corrupt, or another key)"
        ) from None


def _fernet(key_file: pathlib.Path, *, create: bool):
    """Fernet over the key in `key_file`, made (mode 0600) on first use when `create`."""
    from cryptography.fernet import Fernet  # only sealed files need it: not at the start

    if create and not key_file.exists():
        key_file.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            fd = os.open(key_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        except FileExistsError:
            pass  # another request made it first: use that one
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(Fernet.generate_key())
    fd = os.open(key_file, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as src:
        return Fernet(src.read().strip())
