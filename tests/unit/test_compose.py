"""etc/compose/: the documented deployment (clawd beside a Browserless container) holds together:
clawd's file validates, its profiles point at the compose service with the pool's token, and the
pool's own options ride on cdpUrl."""

from __future__ import annotations

import json
import pathlib
import urllib.parse

import yaml

from clawd.config.loader import config_from_data

COMPOSE = pathlib.Path(__file__).resolve().parents[2] / "etc" / "compose"


def test_the_compose_files_agree():
    compose = yaml.safe_load((COMPOSE / "compose.yaml").read_text())
    pool = compose["services"]["browserless"]
    assert "clawd" in compose["services"] and (COMPOSE / "Dockerfile").exists()
    data = yaml.safe_load((COMPOSE / "clawd.yaml.example").read_text())
    config = config_from_data(data, env={"CLAWD_HOME": "/tmp/clawd-compose", "CLAWD_TOKEN": "t"})
    remote = [p for p in config.browser.profiles.values() if p.kind == "remote"]
    assert remote and config.browser.default_profile in config.browser.profiles
    first = urllib.parse.urlsplit(config.browser.profiles["agent-1"].cdp_url)
    assert first.hostname == "browserless"
    query = urllib.parse.parse_qs(first.query)
    assert query["token"] == [pool["environment"]["TOKEN"]]
    assert int(query["timeout"][0]) > 0
    assert json.loads(query["launch"][0])["args"]  # URL-encoded JSON, decoded by parse_qs
    assert config.browser.profiles["agent-1"].remote.restore == "tabs"
    assert len(config.browser.profiles["agent-3"].cdp_urls) == 2
