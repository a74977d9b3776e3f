"""Secrets that begin with "-" (issue 23): a generated token never does, and a token or password
that does (set by hand, or generated before) reaches a real service through every documented way
in: --token=VALUE, --token VALUE, --token-file, $CLAWD_TOKEN, the token file, the client."""

from __future__ import annotations

import json
import re

import pytest

from clawd import errors
from clawd.client import Client
from clawd.security.auth import load_or_create_token, new_token
from tests.support import browser as support
from tests.support.cli import isolate_env, run_cli
from tests.support.service import RunningService
from tests.unit.test_client import FakeService

TOKEN = "-AbC_dash-token-0123456789"
PASSWORD = "--pw-begins-with-dashes"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path, home="empty-home")


def _service(home, **auth) -> RunningService:
    extra = {"server": {"auth": auth}} if auth else None
    return RunningService(support.service_config(home, extra=extra))


@pytest.fixture
def token_service(tmp_path):
    running = _service(tmp_path / "home-token", token=TOKEN)
    yield running
    running.close()


@pytest.fixture
def password_service(tmp_path):
    running = _service(tmp_path / "home-password", password=PASSWORD)
    yield running
    running.close()


def _status(url: str, *flags: str):
    ran = run_cli("--url", url, *flags, "--json", "status")
    assert ran.status == 0
    return json.loads(ran.out)


# -- generation ------------------------------------------------------------------------------------
def test_generated_tokens_never_begin_with_a_dash_and_carry_256_bits():
    tokens = {new_token() for _ in range(2000)}
    assert len(tokens) == 2000
    assert all(re.fullmatch(r"[0-9a-f]{64}", token) for token in tokens)  # 64 hex digits = 256 bits


def test_a_token_already_on_disk_that_begins_with_a_dash_is_kept(tmp_path):
    path = tmp_path / "auth-token"
    path.write_text(TOKEN + "\n")
    assert load_or_create_token(path) == TOKEN
    assert path.read_text() == TOKEN + "\n"


def test_the_service_and_the_cli_both_use_a_dash_token_found_on_disk(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "auth-token").write_text(TOKEN + "\n")
    running = _service(home)
    try:
        assert running.token == TOKEN
        monkeypatch.setenv("CLAWD_HOME", str(home))
        _status(running.url)  # the CLI reads the same file
    finally:
        running.close()


# -- the token -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "flags",
    [
        (f"--token={TOKEN}",),
        ("--token", TOKEN),  # getopt's rule: the word after --token is its value
    ],
    ids=["equals", "separate-word"],
)
def test_a_dash_token_on_the_command_line_reaches_the_service(token_service, flags):
    _status(token_service.url, *flags)


def test_a_dash_token_from_a_file(token_service, tmp_path):
    path = tmp_path / "token"
    path.write_text(f"\n{TOKEN}\n")
    _status(token_service.url, "--token-file", str(path))
    _status(token_service.url, f"--token-file={path}")


def test_a_dash_token_from_the_environment(token_service, monkeypatch):
    monkeypatch.setenv("CLAWD_TOKEN", TOKEN)
    _status(token_service.url)


def test_a_wrong_token_is_refused_not_mistaken_for_an_option(token_service):
    ran = run_cli("--url", token_service.url, "--token", "-wrong", "status")
    assert ran.status == 1 and "UNAUTHORIZED" in ran.err


def test_token_and_token_file_together_are_a_usage_error(tmp_path):
    (tmp_path / "t").write_text("abc\n")
    ran = run_cli("--token=abc", "--token-file", str(tmp_path / "t"), "status")
    assert ran.status == 2 and "not allowed with argument" in ran.err


@pytest.mark.parametrize(
    "content, reason", [(None, "No such file"), ("\n  \n", "the file is empty")]
)
def test_an_unreadable_or_empty_token_file_is_a_usage_error(tmp_path, content, reason):
    path = tmp_path / "token"
    if content is not None:
        path.write_text(content)
    ran = run_cli("--url", "http://127.0.0.1:9", "--token-file", str(path), "status")
    assert ran.status == 2 and f"--token-file {path}: {reason}" in ran.err


def test_secret_flags_after_the_command_are_left_to_the_command(tmp_path):
    """Only the global flags take the next word whatever it is; `--url` keeps its own value."""
    ran = run_cli("--url", "http://127.0.0.1:9", "--token", "-x", "type", "e1", "--", "--password")
    assert ran.status == 3, ran  # parsed: service unreachable, not a usage error


# -- the password ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "flags",
    [
        (f"--password={PASSWORD}",),
        ("--password", PASSWORD),
    ],
    ids=["equals", "separate-word"],
)
def test_a_dash_password_on_the_command_line_reaches_the_service(password_service, flags):
    _status(password_service.url, *flags)


def test_a_dash_password_from_a_file_and_from_the_environment(
    password_service, tmp_path, monkeypatch
):
    path = tmp_path / "password"
    path.write_text(PASSWORD + "\n")
    _status(password_service.url, "--password-file", str(path))
    monkeypatch.setenv("CLAWD_PASSWORD", PASSWORD)
    _status(password_service.url)


# -- the client ------------------------------------------------------------------------------------
def test_the_client_sends_dash_secrets_as_they_are(token_service, password_service):
    with Client(token_service.url, token=TOKEN) as c:
        assert c.status()["ok"] is True
    with Client(password_service.url, password=PASSWORD) as c:
        assert c.status()["ok"] is True
    with Client(password_service.url, password="-wrong") as c, pytest.raises(errors.Unauthorized):
        c.status()


# -- a page's password (set credentials) -----------------------------------------------------------
def test_a_page_password_that_begins_with_a_dash_goes_after_double_dash_or_in_a_file(tmp_path):
    path = tmp_path / "page-password"
    path.write_text("-page-secret\n")
    with FakeService() as fake:
        assert (
            run_cli("--url", fake.url, "set", "credentials", "alice", "--", "-page-secret").status
            == 0
        )
        assert fake.last.body == {"username": "alice", "password": "-page-secret"}
        assert (
            run_cli(
                "--url", fake.url, "set", "credentials", "bob", "--password-file", str(path)
            ).status
            == 0
        )
        assert fake.last.body == {"username": "bob", "password": "-page-secret"}
        ran = run_cli(
            "--url", fake.url, "set", "credentials", "bob", "pw", "--password-file", str(path)
        )
        assert ran.status == 2 and "not both" in ran.err
