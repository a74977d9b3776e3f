"""When web_fetch may not render: the browser tool denied (render opens a tab: browser_open), or a
profile whose browser clawd cannot put behind its pinning proxy. render always answers why, render
auto keeps the static text, and neither starts or touches a browser."""

from __future__ import annotations

import contextlib

import pytest

from clawd import errors
from tests.support.browser import free_ports, service_config
from tests.support.service import RunningService


@contextlib.contextmanager
def serving(home, **extra):
    running = RunningService(service_config(home, extra=extra))
    client = running.client()
    try:
        yield running, client
    finally:
        client.close()
        running.close()


@pytest.fixture(scope="module")
def denied(tmp_path_factory):
    with serving(tmp_path_factory.mktemp("render-denied"), tools={"deny": ["browser"]}) as pair:
        yield pair


@pytest.fixture(scope="module")
def attached(tmp_path_factory):
    """A profile that only attaches to a browser someone else started: not ours to pin."""
    managed, nobody = free_ports(2)
    profiles = {
        "clawd": {"cdpPort": managed, "color": "#FF4500"},
        "attached": {"cdpPort": nobody, "attachOnly": True, "color": "#0066CC"},
    }
    with serving(
        tmp_path_factory.mktemp("render-attached"), browser={"profiles": profiles}
    ) as pair:
        yield pair


def fetch(client, url: str, profile: str | None = None, **body) -> dict:
    return client.request(
        "POST", "/web/fetch", json={"url": url, "wrap": False, **body}, profile=profile
    )


def test_render_always_answers_tool_denied_when_the_browser_tool_is_denied(denied, site):
    running, client = denied
    with pytest.raises(errors.ToolDenied) as caught:
        fetch(client, site.url("/web/spa.html"), render="always")
    assert caught.value.http_status == 403 and caught.value.details.get("tool") == "browser_open"
    assert not running.service.runtime(None).running()


def test_render_auto_keeps_the_static_text_when_the_browser_tool_is_denied(denied, site):
    running, client = denied
    result = fetch(client, site.url("/web/spa.html"))
    assert result["extractor"] != "browser" and "Lighthouse" not in result["text"]
    assert not running.service.runtime(None).running()


def test_render_always_is_refused_on_a_profile_clawd_cannot_pin(attached, site):
    running, client = attached
    with pytest.raises(errors.WebRenderUnavailable) as caught:
        fetch(client, site.url("/web/spa.html"), profile="attached", render="always")
    assert caught.value.http_status == 409 and "attached" in str(caught.value)


def test_render_auto_on_a_profile_clawd_cannot_pin_keeps_the_static_text(attached, site):
    running, client = attached
    result = fetch(client, site.url("/web/spa.html"), profile="attached")
    assert result["extractor"] != "browser" and "Lighthouse" not in result["text"]
    assert not running.service.runtime("attached").running()
