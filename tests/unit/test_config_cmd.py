"""`clawd-browser config check | sample | show`, run through the CLI's main() in-process."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml

from tests.support.cli import isolate_env, run_cli

REPO = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


run = run_cli


def write(tmp_path: pathlib.Path, text: str) -> str:
    path = tmp_path / "clawd.yaml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_check_of_a_good_file_exits_0(tmp_path):
    path = write(tmp_path, "server:\n  port: 18999\nbrowser:\n  headless: true\n")
    status, out, _ = run("config", "check", path)
    assert (status, out) == (0, f"{path}: ok\n")


def test_check_lists_both_the_port_out_of_range_and_the_unknown_key_and_exits_1(tmp_path):
    path = write(tmp_path, "server:\n  port: 70000\n  colour: red\n")
    status, out, _ = run("config", "check", path)
    assert status == 1
    assert out.splitlines() == [
        f"{path}: 2 problem(s)",
        "  $.server: unknown key 'colour'",
        "  $.server.port: 70000 is greater than the maximum of 65535",
    ]


def test_check_lists_problems_in_nested_profiles_with_their_json_path(tmp_path):
    path = write(
        tmp_path,
        "browser:\n  profiles:\n    clawd: {cdpPort: 70000}\n    Bad_Name: {}\n"
        "  headless: sometimes\n",
    )
    status, out, _ = run("config", "check", path)
    assert status == 1
    assert "$.browser.profiles.clawd.cdpPort: 70000 is greater than the maximum of 65535" in out
    assert "$.browser.headless: 'sometimes' is not one of" in out
    assert "'Bad_Name' is not a valid name" in out


def test_check_json_gives_every_problem_as_a_list(tmp_path):
    path = write(tmp_path, "server:\n  port: 70000\nbogus: 1\n")
    status, out, _ = run("config", "check", "--json", path)
    assert status == 1
    answer = json.loads(out)
    assert answer["ok"] is False and answer["file"] == path
    assert answer["problems"] == [
        "$: unknown key 'bogus'",
        "$.server.port: 70000 is greater than the maximum of 65535",
    ]


def test_check_of_a_yaml_syntax_error_names_line_and_column(tmp_path):
    path = write(tmp_path, "server:\n  port: [1, 2\n")
    status, out, _ = run("config", "check", path)
    assert status == 1
    assert "line " in out and "column " in out and "YAML syntax error" in out


def test_check_of_a_missing_file_exits_1(tmp_path):
    status, out, _ = run("config", "check", str(tmp_path / "nope.yaml"))
    assert status == 1
    assert "no such file" in out


def test_sample_is_the_commented_etc_clawd_yaml_and_it_validates(tmp_path):
    status, out, _ = run("config", "sample")
    assert status == 0
    assert out == (REPO / "etc" / "clawd.yaml").read_text(encoding="utf-8")
    assert out.count("\n#") + out.count("  #") > 20  # commented, not a bare dump
    assert run("config", "check", write(tmp_path, out))[0] == 0


def test_show_masks_secrets_from_the_file_and_the_environment(tmp_path, monkeypatch):
    path = write(tmp_path, "server:\n  auth:\n    password: hunter2\n")
    monkeypatch.setenv("CLAWD_TOKEN", "tok-from-env")
    status, out, _ = run("--config", path, "config", "show")
    assert status == 0
    assert "hunter2" not in out and "tok-from-env" not in out
    shown = yaml.safe_load(out)
    assert shown["server"]["auth"] == {"token": "***", "password": "***"}
    assert out.startswith(f"# effective configuration from {path}")


def test_show_prints_every_default_and_its_output_validates_as_a_config(tmp_path):
    status, out, _ = run("config", "show")
    assert status == 0
    shown = yaml.safe_load(out)
    assert (
        shown["server"]["port"] == 18791
        and shown["browser"]["profiles"]["clawd"]["cdpPort"] == 18800
    )
    assert shown["server"]["auth"] == {"token": None, "password": None}
    assert run("config", "check", write(tmp_path, out))[0] == 0


def test_show_json(tmp_path):
    status, out, _ = run("config", "show", "--json")
    assert status == 0
    assert json.loads(out)["cli"] == {"url": None, "autostart": False}
