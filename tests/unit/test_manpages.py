"""The man pages are rendered from the argparse tree, the route table and the schema: the committed
man/ must be what the generator writes now, and what it writes must cover every declaration."""

from __future__ import annotations

import pathlib
import shutil
import subprocess
import sys

import pytest

from clawd.cli.parser import build_parser
from clawd.config import loader
from clawd.docs import manpages
from clawd.server.routes import ROUTES

REPO = pathlib.Path(__file__).resolve().parents[2]
PAGES = ("clawd-browser.1", "clawd.yaml.5")


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("man")
    done = subprocess.run(
        [sys.executable, "-m", "clawd.docs.manpages", str(out)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("name", PAGES)
def test_committed_man_page_matches_the_generator(generated, name):
    committed = REPO / "man" / name
    assert committed.exists(), (
        f"man/{name} is missing: run `make man` (python -m clawd.docs.manpages man/)"
    )
    assert committed.read_text(encoding="utf-8") == (generated / name).read_text(
        encoding="utf-8"
    ), (
        f"man/{name} drifted from cli/parser.py, server/routes.py or config/schema.json: "
        "run `make man` and commit the result"
    )


def test_generation_is_deterministic(generated, tmp_path):
    manpages.write(tmp_path)
    for name in PAGES:
        assert (tmp_path / name).read_bytes() == (generated / name).read_bytes()


def _roff_literal(value: str) -> str:
    return manpages.literal(value)


def test_every_command_and_every_flag_is_in_clawd_browser_1(generated):
    page = (generated / "clawd-browser.1").read_text(encoding="utf-8")
    parser = build_parser()
    listed = list(manpages.commands(parser))
    assert len(listed) > 40
    for words, _summary, child in listed:
        assert f".SS {_roff_literal(' '.join(words))}\n" in page, words
        for action in child._actions:
            for option in action.option_strings:
                if option not in ("-h", "--help"):
                    assert manpages.bold(option) in page, (words, option)
    for action in parser._actions:
        for option in action.option_strings:
            assert manpages.bold(option) in page, option


def test_every_route_exit_status_and_variable_is_in_clawd_browser_1(generated):
    page = (generated / "clawd-browser.1").read_text(encoding="utf-8")
    for route in ROUTES:
        assert f"{manpages.bold(route.method)} {manpages.bold(route.pattern)}" in page, (
            route.pattern
        )
    for status in range(6):
        assert f".TP\n\\fB{status}\\fR\n" in page
    for variable in ("CLAWD_HOME", "CLAWD_CONFIG", "CLAWD_TOKEN", "CLAWD_PASSWORD"):
        assert f"\\fB{variable}\\fR" in page
    for section in (
        "SYNOPSIS",
        "COMMANDS",
        "CREDENTIALS",
        "HTTP API",
        "EXIT STATUS",
        "ENVIRONMENT",
        "FILES",
        "EXAMPLES",
    ):
        assert f".SH {section}\n" in page
    assert (
        "clawd\\-browser \\-\\-autostart open" in page and "\\-\\-full\\-page \\-\\-out" in page
    )  # cron


def test_every_schema_key_with_type_and_default_is_in_clawd_yaml_5(generated):
    page = (generated / "clawd.yaml.5").read_text(encoding="utf-8")
    keys = list(manpages.schema_keys(loader.schema()))
    assert len(keys) > 40
    for dotted, node, _section in keys:
        if "." in dotted:
            assert manpages.bold(dotted).replace("NAME", "\\fINAME\\fB") in page, dotted
        assert manpages.text(node["description"]) in page, dotted
    defaults = loader.defaults()
    assert '\\fBserver.port\\fR (integer, default 18791)' in page
    assert f'default {defaults["browser"]["actionTimeoutMs"]})' in page
    assert (
        "Secret: clawd\\-browser config show prints it as ***." not in page
    )  # prose keeps its hyphens
    assert "Secret: clawd-browser config show prints it as ***." in page


@pytest.mark.skipif(shutil.which("groff") is None, reason="groff is not installed")
@pytest.mark.parametrize("name", PAGES)
def test_man_pages_render_without_groff_warnings(generated, name):
    done = subprocess.run(
        ["groff", "-man", "-ww", "-z", str(generated / name)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_the_credentials_section_orders_every_way_a_secret_comes_in(generated):
    page = (generated / "clawd-browser.1").read_text(encoding="utf-8")
    section = page.split(".SH CREDENTIALS\n")[1].split(".SH ")[0]
    order = [
        section.index(word)
        for word in (
            "--token=TOKEN or --token-file PATH",
            "server.auth.token",
            "$CLAWD_TOKEN",
            "$CLAWD_HOME/auth-token",
        )
    ]
    assert order == sorted(order), section
    assert "--password=PASSWORD or --password-file PATH" in section and "$CLAWD_PASSWORD" in section
