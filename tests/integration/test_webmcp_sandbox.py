"""WebMCP on a sandbox profile (DESIGN §14, §19): the container's Chromium starts with the feature
on (the image's entrypoint), so the page's tools are listed and called as on a managed profile
(without the flag none would ever be listed).
A real dockerd and the sandbox image (tests/support/docker.py); the test site is served on the
sandbox network's gateway, which the container reaches."""

from __future__ import annotations

import os

import pytest

from clawd.config.loader import config_from_data
from clawd.sandbox import container as sbx
from tests.support.browser import service_config
from tests.support.docker import gateway_of, require_docker
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import Site

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(300)]

NETWORK = "clawd-sandbox-test"
PROFILE = f"wmcp{os.getpid() % 100000}"


@pytest.fixture(scope="module")
def sandboxed(tmp_path_factory):
    """A started client of a service whose default profile is a headless sandbox, and the
    test site as the container reaches it."""
    docker_client = require_docker()
    gateway = gateway_of(docker_client, NETWORK)
    site = Site(host=gateway)
    home = tmp_path_factory.mktemp("webmcp-sandbox")
    config = service_config(home)
    sandbox = {"network": NETWORK, "headless": True, "autoStartTimeoutMs": 30000}
    data = {
        "server": {"host": "127.0.0.1", "port": config.server.port},
        "browser": {
            "defaultProfile": PROFILE,
            "ssrfPolicy": {"allowedHostnames": [gateway]},
            "profiles": {PROFILE: {"driver": "sandbox", "sandbox": sandbox}},
        },
    }
    running = RunningService(config_from_data(data, env={"CLAWD_HOME": str(home)}))
    client = running.client()
    try:
        yield client, site
    finally:
        client.close()
        running.close()
        site.close()
        _remove(docker_client, sbx.container_name(PROFILE))


def _remove(docker_client, name: str) -> None:
    import docker.errors

    try:
        docker_client.containers.get(name).remove(force=True)
    except docker.errors.NotFound:
        pass


def test_a_sandbox_profiles_page_tools_are_listed_and_called(sandboxed):
    client, site = sandboxed
    tab = client.open(site.url("/webmcp/tools.html"))
    # the gateway's http: origin is no secure context: document.modelContext (the script's
    # tools) is not there, a <form toolname> is
    wait_until(
        lambda: "search_flights" in {t["name"] for t in client.webmcp_tools(tab["tabId"])["tools"]},
        timeout=30,
        message=lambda: f"the tools listed: {client.webmcp_tools(tab['tabId'])['tools']}"[:600],
    )
    answer = client.webmcp_call("search_flights", {"from": "AMS", "to": "LIS"}, tab["tabId"])
    assert answer["status"] == "Completed" and "results.html?from=AMS&to=LIS" in answer["url"]
