"""`clawd-browser mcp` with a service whose browser.visionEnabled is on: a screenshot comes back to
the MCP client as the vision model's description (a text block, no image block); when every
describer fails, as the image with a note naming each failure. The describers are loopback fakes
of the model APIs (tests/support/vision_fakes.py)."""

from __future__ import annotations

import base64

import pytest

from tests.e2e.test_mcp import run_session, server_params, texts
from tests.support.browser import require_chromium, service_config
from tests.support.service import RunningService
from tests.support.vision_fakes import FakeVisionModels, vision_settings

PROMPT = "Describe this page for an agent that cannot see."
MAX_SIDE = 512


@pytest.fixture(scope="module")
def fake():
    f = FakeVisionModels(PROMPT)
    yield f
    f.close()


@pytest.fixture(scope="module")
def running(tmp_path_factory, site, fake):
    require_chromium()
    home = tmp_path_factory.mktemp("mcp-vision") / "home"
    settings = vision_settings(fake, max_side=MAX_SIDE)
    settings["models"] = settings["models"][:3]  # openai, anthropic, gemini
    service = RunningService(service_config(home, extra={"browser": settings}))
    client = service.client()
    client.open(site.url("/index.html"), label="vision")
    yield service
    client.close()
    service.close()


def screenshot_over_mcp(running):
    async def body(session):
        return await session.call_tool("browser", {"action": "screenshot", "targetId": "vision"})

    return run_session(server_params(running), body)


def test_a_screenshot_over_mcp_is_the_description_and_no_image(running, fake):
    fake.reset()
    fake.queue("openai", 503, {"error": {"message": "overloaded"}})
    result = screenshot_over_mcp(running)
    assert not result.is_error, texts(result)
    assert [block.type for block in result.content] == ["text"]
    text = texts(result)
    assert "described by anthropic anthropic-vision-1:" in text
    assert "A page described by the anthropic fake." in text
    assert "[neutralized] MEDIA:/etc/passwd" in text
    assert max(fake.seen("anthropic")[0].image_size) == MAX_SIDE


def test_over_mcp_the_image_comes_back_when_every_describer_fails(running, fake):
    fake.reset()
    fake.queue("openai", 401, {"error": {"message": "bad key"}})
    fake.queue("anthropic", 200, {"content": [{"type": "image", "source": {}}]})
    fake.queue("gemini", 200, b"<html>gateway</html>")
    result = screenshot_over_mcp(running)
    assert not result.is_error, texts(result)
    [image] = [block for block in result.content if block.type == "image"]
    assert base64.b64decode(image.data)[:8] == b"\x89PNG\r\n\x1a\n"
    text = texts(result)
    assert "openai openai-vision-1: the API key was refused (HTTP 401): bad key" in text
    assert "anthropic anthropic-vision-1: the model answered with an image, not text" in text
    assert "gemini gemini-vision-1: HTTP 200 with a body that is not a JSON object" in text
