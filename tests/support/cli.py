"""`clawd-browser` run in-process, as the tests run it: secrets passed as the documentation says
(`--token=TOKEN`), and an exit status that explains itself when an assertion on it fails."""

from __future__ import annotations

import io
import pathlib
import re
from collections.abc import Sequence
from typing import NamedTuple

from clawd.cli.main import main

_SECRET = re.compile(r"^(--(?:token|password))=.*")


class ExitStatus(int):
    """An int whose repr carries the command line and its stderr: `assert status == 0` then prints
    `assert 2 (clawd-browser --token=*** status; stderr: '...') == 0` instead of a bare 2."""

    def __new__(cls, value: int, argv: Sequence[str], stderr: str):
        status = super().__new__(cls, value)
        status.argv, status.stderr = list(argv), stderr
        return status

    def __repr__(self) -> str:
        shown = " ".join(_SECRET.sub(r"\1=***", word) for word in self.argv)
        return f"{int(self)} (clawd-browser {shown}; stderr: {self.stderr!r})"


class Ran(NamedTuple):
    status: ExitStatus
    out: str
    err: str


def run_cli(*argv: str) -> Ran:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return Ran(ExitStatus(status, argv, err.getvalue()), out.getvalue(), err.getvalue())


def service_argv(service) -> list[str]:
    """The global flags that point the CLI at a test service."""
    return ["--url", service.url, f"--token={service.token}"]


def cli_of(service, *argv: str) -> Ran:
    return run_cli(*service_argv(service), *argv)


CLAWD_VARIABLES = ("CLAWD_CONFIG", "CLAWD_TOKEN", "CLAWD_PASSWORD")


def isolate_env(monkeypatch, tmp_path: pathlib.Path, home: str = "home") -> pathlib.Path:
    """Nothing of this machine's clawd reaches the test: the CLAWD_ settings unset, HOME (no
    ~/.clawd/clawd.yaml) and CLAWD_HOME in `tmp_path`. Returns CLAWD_HOME."""
    for variable in CLAWD_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("CLAWD_HOME", str(tmp_path / home))
    return tmp_path / home
