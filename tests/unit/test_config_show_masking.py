"""`config show` ("secrets masked") masks credentials inside URLs too: a pool's cdpUrl (user info,
?token=), each of a failover list, a node's URL, a provider's base URL; each shown as the real
service's GET /profiles shows a cdpUrl, and the output still a valid config."""

from __future__ import annotations

import json
import pathlib

import pytest
import yaml

from tests.support.cli import isolate_env, run_cli
from tests.support.service import RunningService

PASSWORD, TOKEN, NODE_PASSWORD, KEY = "PoolPass77", "pooltok-4242", "NodePw-99", "AIzaKey0123"
POOL = f"wss://alice:{PASSWORD}@pool.example:3000/chromium?token={TOKEN}&timeout=60000"
FAILOVER = [
    f"https://bob:{PASSWORD}@one.example/?token={TOKEN}",
    "ws://[::1]:9333/devtools/browser/b",
]
CONFIG = {
    "browser": {
        "profiles": {
            "clawd": {"cdpPort": 18990, "color": "#FF4500"},
            "pool": {"cdpUrl": POOL, "color": "#00AA00"},
            "failover": {"cdpUrl": FAILOVER, "color": "#0000AA"},
        }
    },
    "nodes": {"lab": {"url": f"http://admin:{NODE_PASSWORD}@10.0.0.5:18791/?token={TOKEN}"}},
    "cli": {"url": f"http://me:{PASSWORD}@127.0.0.1:18791"},
    "web": {"search": {"brave": {"baseUrl": f"https://search.example/v1?key={KEY}"}}},
}
SECRETS = (PASSWORD, TOKEN, NODE_PASSWORD, KEY, "alice", "admin")


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


@pytest.fixture
def config_file(tmp_path) -> str:
    path = tmp_path / "clawd.yaml"
    path.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    return str(path)


def _show(config_file: str, *flags: str) -> str:
    ran = run_cli("--config", config_file, "config", "show", *flags)
    assert ran.status == 0, ran.err
    return ran.out


def test_show_masks_user_info_and_query_tokens_in_every_url(config_file):
    out = _show(config_file)
    assert [s for s in SECRETS if s in out] == []
    shown = yaml.safe_load(out)
    profiles = shown["browser"]["profiles"]
    assert profiles["pool"]["cdpUrl"] == "wss://pool.example:3000/chromium"
    assert profiles["failover"]["cdpUrl"] == [
        "https://one.example/",
        "ws://[::1]:9333/devtools/browser/b",
    ]
    assert shown["nodes"]["lab"]["url"] == "http://10.0.0.5:18791/"
    assert shown["cli"]["url"] == "http://127.0.0.1:18791"
    assert shown["web"]["search"]["brave"]["baseUrl"] == "https://search.example/v1"


def test_show_json_masks_them_too_and_the_yaml_still_validates(config_file, tmp_path):
    assert [s for s in SECRETS if s in _show(config_file, "--json")] == []
    shown = pathlib.Path(tmp_path / "shown.yaml")
    shown.write_text(_show(config_file), encoding="utf-8")
    assert run_cli("config", "check", str(shown)).status == 0


def test_show_masks_a_cdp_url_exactly_as_get_profiles_does(config_file, tmp_path):
    from clawd.config.loader import load_config

    running = RunningService(load_config(config_file, env={"CLAWD_HOME": str(tmp_path / "h")}))
    try:
        listed = running.client().request("GET", "/profiles")
    finally:
        running.close()
    served = {p["name"]: p["cdpUrl"] for p in listed["profiles"]}
    shown = json.loads(_show(config_file, "--json"))["browser"]["profiles"]
    assert (served["pool"], served["failover"]) == (
        shown["pool"]["cdpUrl"],
        shown["failover"]["cdpUrl"],
    )
