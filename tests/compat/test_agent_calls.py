"""OpenClaw-style agent tool calls replayed against the real service (DESIGN.md §17): the call
shapes an agent written for OpenClaw's browser tool sends, each answered as clawd's own is."""

from __future__ import annotations

import re

import pytest

from clawd.agent.tool import BrowserTool, unwrap
from clawd.config.model import NodeConfig
from tests.support.browser import service_config
from tests.support.service import RunningService


def text(result) -> str:
    assert not result.is_error, result.text
    return unwrap(result.text)


def ref_of(snapshot: str, line: str) -> str:
    found = re.search(re.escape(line) + r" \[ref=(e\d+)\]", snapshot)
    assert found, f"no {line!r} in:\n{snapshot}"
    return found[1]


@pytest.fixture
def tool(service, client):
    return BrowserTool(service.client())


@pytest.fixture
def forms(tool, site):
    opened = text(
        tool.run({"action": "open", "url": site.url("/act/forms.html"), "label": "compat-forms"})
    )
    assert "compat-forms" in opened
    yield "compat-forms"
    tool.run({"action": "close", "targetId": "compat-forms"})


def test_act_with_a_request_object_clicks_like_the_flat_call(tool, forms):
    snapshot = text(tool.run({"action": "snapshot", "targetId": forms}))
    button = ref_of(snapshot, 'button "Count"')
    text(
        tool.run({"action": "act", "targetId": forms, "request": {"kind": "click", "ref": button}})
    )
    text(tool.run({"action": "act", "targetId": forms, "kind": "click", "ref": button}))
    counted = text(
        tool.run(
            {
                "action": "act",
                "targetId": forms,
                "request": {"kind": "evaluate", "fn": "() => window.count"},
            }
        )
    )
    assert "2" in counted


def test_target_host_and_profile_openclaw_reach_this_services_default_browser(tool, forms):
    listed = text(tool.run({"action": "tabs", "target": "host", "profile": "openclaw"}))
    assert "compat-forms" in listed


def test_target_sandbox_is_a_clear_error_until_sandbox_profiles_exist(tool):
    result = tool.run({"action": "tabs", "target": "sandbox"})
    assert result.is_error and result.code == "TARGET_UNAVAILABLE" and "sandbox" in result.text


@pytest.fixture(scope="module")
def node(tmp_path_factory):
    """A second clawd service, with a browser of its own: the far end of target node."""
    running = RunningService(service_config(tmp_path_factory.mktemp("node-home")))
    yield running
    running.close()


def test_target_node_drives_the_nodes_browser_and_copies_uploads_there(
    service, client, site, node, tmp_path
):
    local_uploads = tmp_path / "uploads"
    local_uploads.mkdir()
    (local_uploads / "from-agent.txt").write_text("agent bytes")
    tool = BrowserTool(
        service.client(),
        uploads=local_uploads,
        nodes={"lab": NodeConfig("lab", node.url, token=node.token)},
    )
    opened = text(
        tool.run(
            {"action": "open", "target": "node", "node": "lab", "url": site.url("/act/upload.html")}
        )
    )
    tab_id = re.search(r"opened (t\d+)", opened)[1]
    assert tab_id in text(tool.run({"action": "tabs", "target": "node"}))
    assert all(
        t["url"] != site.url("/act/upload.html") for t in client.tabs()["tabs"]
    )  # not on the host
    snapshot = text(tool.run({"action": "snapshot", "target": "node", "targetId": tab_id}))
    text(
        tool.run(
            {
                "action": "upload",
                "target": "node",
                "targetId": tab_id,
                "paths": ["from-agent.txt"],
                "inputRef": ref_of(snapshot, 'button "Document"'),
            }
        )
    )
    assert "chosen from-agent.txt:11" in text(
        tool.run({"action": "snapshot", "target": "node", "targetId": tab_id})
    )
    assert (node.service.layout.uploads / "from-agent.txt").read_text() == "agent bytes"
    text(tool.run({"action": "close", "target": "node", "targetId": tab_id}))


def test_a_node_with_a_wrong_token_answers_unauthorized_as_text(service, node):
    tool = BrowserTool(
        service.client(), nodes={"lab": NodeConfig("lab", node.url, token="not-the-token")}
    )
    result = tool.run({"action": "tabs", "target": "node"})
    assert result.is_error and result.code == "UNAUTHORIZED"
