"""A provider's error message that echoes the API key is scrubbed before it is cut: a key that
straddles the cut (web_search at 300 characters, vision at 200), or that the provider shortened
itself, leaves none of its first 8 characters in the message (loopback fakes of the providers)."""

from __future__ import annotations

from urllib.parse import quote, unquote

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import VisionConfig, VisionModel
from clawd.page.observe import vision
from clawd.security import redact
from clawd.vision.models import MESSAGE_CHARS as VISION_CHARS
from clawd.web.search import WebSearch
from clawd.web.search.base import MESSAGE_CHARS as SEARCH_CHARS
from tests.support import vision_fakes, web_fakes


def _echoes(key: str, cut: int) -> dict[str, str]:
    """Messages that echo `key` where a cut at `cut` characters would leave part of it."""
    return {
        "all but its last character before the cut": "x" * (cut - len(key) + 1) + key + " tail",
        "its first 8 characters before the cut": "x" * (cut - 8) + key + " tail",
        "shortened by the provider": f"invalid key {key[:-2]}... (check your dashboard)",
        "its tail only": f"key ending {key[3:]} is not valid",
        "in another case": f"invalid key {key.upper()} (keys are case-sensitive)",
        "percent-encoded in a URL": f"GET /v1?key={quote(key + '+/=', safe='')} failed",
    }


def _leaked(text: str, key: str) -> bool:
    """Any 8 characters of the key in a row, in any case or percent-encoded."""
    forms = {text, text.lower(), unquote(text)}
    pieces = {key[i : i + 8].lower() for i in range(len(key) - 7)}
    return any(piece in form.lower() for piece in pieces for form in forms)


# -- web_search -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def search_fakes():
    fakes = web_fakes.FakeProviders()
    yield fakes
    fakes.close()


@pytest.mark.parametrize("where", list(_echoes("k" * 20, SEARCH_CHARS)))
@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_search_provider_error_echoing_the_key_at_the_cut_keeps_none_of_it(
    search_fakes, where, as_json
):
    key = web_fakes.KEYS["brave"]
    said = _echoes(key, SEARCH_CHARS)[where]
    body = {"error": {"message": said}} if as_json else said.encode()
    search_fakes.queue("brave", 401, body)
    config = web_fakes.search_config(search_fakes, cacheTtlMinutes=0)
    search = WebSearch(config_from_data({"web": {"search": config}}, env={}).web.search, env={})
    with pytest.raises(errors.WebSearchAuth) as refused:
        search.search("tides", provider="brave")
    message = str(refused.value.to_dict())
    assert "***" in refused.value.message and not _leaked(message, key), message


# -- vision ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def vision_fake():
    fake = vision_fakes.FakeVisionModels("Describe.")
    yield fake
    fake.close()


@pytest.mark.parametrize("where", list(_echoes("k" * 20, VISION_CHARS)))
def test_a_vision_provider_error_echoing_the_key_at_the_cut_keeps_none_of_it(
    vision_fake, tmp_path, where
):
    vision_fake.reset()
    key = vision_fakes.KEYS["openai"]
    vision_fake.queue("openai", 401, {"error": {"message": _echoes(key, VISION_CHARS)[where]}})
    image = tmp_path / "shot.png"
    image.write_bytes(vision_fakes.make_png(40, 30))
    model = VisionModel(
        provider="openai", model="m", api_key=key, base_url=vision_fake.base("openai")
    )
    chain = VisionConfig(enabled=True, prompt="Describe.", models=(model,), timeout_ms=5000)
    outcome = vision.describe(image, chain)
    (failure,) = outcome.failures
    assert "the API key was refused (HTTP 401)" in failure and "***" in failure
    assert not _leaked(failure + outcome.failure, key), failure


@pytest.mark.parametrize(
    "echo",
    [
        lambda key: f"tail={key[4:]}",
        lambda key: f"lower={key.lower()}",
        lambda key: f"url-encoded={quote(key, safe='')}",
        lambda key: f"middle={key[5:17]}",
    ],
    ids=["tail", "lower case", "percent-encoded", "a middle piece"],
)
def test_every_copy_of_eight_or_more_of_a_keys_characters_is_masked(echo):
    key = "BRAVEKEY-Qq+Ww/Ee=Rr0123456789"  # the re-probe's: not URL-safe
    scrubbed = redact.scrub(echo(key), [key])
    assert "***" in scrubbed and not _leaked(scrubbed, key), scrubbed
    assert redact.scrub("an ordinary line about BRAVE keys", [key]).endswith("BRAVE keys")
