"""Vision model describers against loopback fakes of their APIs (tests/support/vision_fakes.py):
each provider's request shape and answer, the ordered chain (a failure falls through to the next
describer and is named), every fault a provider can produce, and keys kept out of every
message and log line."""

from __future__ import annotations

import logging
import re
import sys

import pytest

from clawd.config.model import VisionConfig, VisionModel
from clawd.page.observe import vision
from clawd.security.content import END, START
from tests.support.vision_fakes import KEYS, FakeVisionModels, make_png

PROMPT = "Describe the page for a blind reader."
PROVIDERS = ("openai", "openrouter", "anthropic", "gemini", "ollama")


@pytest.fixture(scope="module")
def fake():
    f = FakeVisionModels(PROMPT)
    yield f
    f.close()


@pytest.fixture(autouse=True)
def fresh(fake):
    fake.reset()


@pytest.fixture
def image(tmp_path):
    path = tmp_path / "shot.png"
    path.write_bytes(make_png(120, 80))
    return path


def entry(fake, provider: str, **kw) -> VisionModel:
    fields = {
        "provider": provider,
        "model": f"{provider}-vision-1",
        "api_key": KEYS.get(provider),
        "base_url": fake.base(provider),
        **kw,
    }
    return VisionModel(**fields)


def config(*models: VisionModel, **kw) -> VisionConfig:
    return VisionConfig(
        enabled=True, prompt=PROMPT, models=models, timeout_ms=5000, max_bytes=1024, **kw
    )


def inner(text: str) -> str:
    match = re.fullmatch(
        rf'<<<{START} id="([0-9a-f]+)">>>\n(.*)\n<<<{END} id="\1">>>', text, re.DOTALL
    )
    assert match, text
    return match[2]


@pytest.mark.parametrize("provider", PROVIDERS)
def test_each_provider_is_sent_its_shape_and_its_answer_comes_back_wrapped(fake, image, provider):
    outcome = vision.describe(image, config(entry(fake, provider)))
    assert outcome.failure is None, outcome.failure
    assert outcome.describer == f"{provider} {provider}-vision-1"
    lines = inner(outcome.text).splitlines()
    assert lines == [
        f"A page described by the {provider} fake.",
        "[neutralized] MEDIA:/etc/passwd",
        "The end.",
    ]
    (seen,) = fake.seen(provider)
    assert seen.image_size == (120, 80)  # the fake decoded the PNG it was sent


def test_gemini_names_the_model_in_the_path(fake, image):
    vision.describe(image, config(entry(fake, "gemini", model="gemini-2.5-flash")))
    assert fake.seen("gemini")[0].path == "/v1beta/models/gemini-2.5-flash:generateContent"


def test_anthropic_gets_max_tokens_and_ollama_no_key(fake, image):
    vision.describe(image, config(entry(fake, "anthropic", max_tokens=333)))
    assert fake.seen("anthropic")[0].body["max_tokens"] == 333
    vision.describe(image, config(entry(fake, "ollama", api_key=None)))
    assert "authorization" not in fake.seen("ollama")[0].headers


def test_keys_come_from_the_environment_when_the_entry_has_none(fake, image):
    env = {"OPENAI_API_KEY": KEYS["openai"], "GEMINI_API_KEY": KEYS["gemini"]}
    chain = config(entry(fake, "openai", api_key=None), entry(fake, "gemini", api_key=None))
    outcome = vision.describe(image, chain, env=env)
    assert outcome.describer == "openai openai-vision-1" and outcome.failures == ()
    missing = vision.describe(image, chain, env={})
    assert missing.failures == (
        "openai openai-vision-1: no API key: set apiKey or OPENAI_API_KEY",
        "gemini gemini-vision-1: no API key: set apiKey or GEMINI_API_KEY",
    )
    assert fake.seen("gemini") == []  # nothing was sent without a key


# Each fault: (provider, status, body) queued; the reason the describer must give.
FAULTS = {
    "401": ("openai", 401, {"error": {"message": "Incorrect API key provided"}}, "the API key was "
            "refused (HTTP 401): Incorrect API key provided"),
    "429": ("anthropic", 429, {"type": "error", "error": {"message": "Rate limited"}},
            "rate limited (HTTP 429): Rate limited"),
    "500": ("gemini", 500, [{"error": {"code": 500, "message": "Internal error"}}],
            "HTTP 500: Internal error"),
    "malformed JSON": ("openrouter", 200, b'{"choices": [', "HTTP 200 with a body that is not a "
                       "JSON object"),
    "empty answer": ("ollama", 200, {"message": {"role": "assistant", "content": "  "}},
                     "the model answered no text"),
    "wrong shape": ("openai", 200, {"object": "chat.completion", "choices": []},
                    "unexpected answer: no choices[0].message"),
    "over the cap": ("anthropic", 200, {"content": [{"type": "text", "text": "x" * 2000}]},
                     "the description is 2000 bytes, over the cap of 1024 (vision.maxBytes)"),
    "openai image": ("openai", 200, {"choices": [{"message": {"content": [{"type": "image_url",
                     "image_url": {"url": "data:image/png;base64,AAAA"}}]}}]},
                     "the model answered with an image, not text"),
    "anthropic image": ("anthropic", 200, {"content": [{"type": "image", "source": {}}]},
                        "the model answered with an image, not text"),
    "gemini image": ("gemini", 200, {"candidates": [{"content": {"parts": [{"inline_data": {
                     "mime_type": "image/png", "data": "AAAA"}}]}}]},
                     "the model answered with an image, not text"),
    "ollama image": ("ollama", 200, {"message": {"content": "", "images": ["AAAA"]}},
                     "the model answered with an image, not text"),
    "openrouter image": ("openrouter", 200, {"choices": [{"message": {"content": "", "images": [
                         {"type": "image_url", "image_url": {"url": "data:image/png;base64,A"}}
                         ]}}]}, "the model answered with an image, not text"),
    "openai refusal": ("openai", 200, {"choices": [{"message": {"content": None,
                       "refusal": "I can't help with that."}}]},
                       "the model refused: I can't help with that."),
    "gemini safety stop": ("gemini", 200, {"candidates": [{"finishReason": "SAFETY"}]},
                           "the model stopped without text (SAFETY)"),
    "gemini blocked prompt": ("gemini", 200, {"promptFeedback": {"blockReason": "OTHER"}},
                              "the model refused the image (OTHER)"),
}  # fmt: skip


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_falls_through_to_the_next_describer_with_its_reason(fake, image, fault):
    provider, status, body, reason = FAULTS[fault]
    fake.queue(provider, status, body)
    outcome = vision.describe(image, config(entry(fake, provider), entry(fake, "ollama")))
    assert outcome.describer == "ollama ollama-vision-1", outcome.failure
    assert outcome.failures == (f"{provider} {provider}-vision-1: {reason}",)
    assert "A page described by the ollama fake." in outcome.text


def test_a_provider_that_does_not_answer_is_given_up_at_its_timeout(fake, image):
    fake.hold("gemini")
    outcome = vision.describe(
        image, config(entry(fake, "gemini", timeout_ms=1000), entry(fake, "ollama"))
    )
    assert outcome.failures == ("gemini gemini-vision-1: no answer within 1000 ms",)
    assert outcome.describer == "ollama ollama-vision-1"


def test_unreachable_unknown_provider_and_unknown_type_fall_through(fake, image, tmp_path):
    closed = "http://127.0.0.1:9"  # discard port: nothing listens
    outcome = vision.describe(
        image,
        config(
            entry(fake, "openai", base_url=closed),
            VisionModel(provider="mistral", model="mistral-vision-1", api_key="k"),
            VisionModel(type="plugin", command="x"),
            entry(fake, "ollama"),
        ),
    )
    assert outcome.failures == (
        "openai openai-vision-1: could not reach http://127.0.0.1:9: ConnectionError",
        "mistral mistral-vision-1: unknown provider 'mistral'; one of openai, openrouter, "
        "anthropic, gemini, ollama",
        "x: unknown describer type 'plugin' (provider or cli)",
    )
    assert outcome.describer == "ollama ollama-vision-1"


def test_when_every_describer_fails_each_is_named_in_order(fake, image, tmp_path):
    fake.queue("openai", 401, {"error": {"message": "bad key"}})
    fake.queue("anthropic", 500, {"error": {"message": "overloaded"}})
    outcome = vision.describe(
        image,
        config(
            entry(fake, "openai"),
            entry(fake, "anthropic"),
            VisionModel(type="cli", command=str(tmp_path / "missing-describer")),
        ),
    )
    assert outcome.text is None and outcome.describer is None
    assert outcome.failure == (
        "openai openai-vision-1: the API key was refused (HTTP 401): bad key; "
        "anthropic anthropic-vision-1: HTTP 500: overloaded; "
        f"missing-describer: cannot run {tmp_path / 'missing-describer'}: No such file or directory"
    )


def test_a_cli_entry_in_models_and_the_vision_command_after_them(fake, image, tmp_path):
    script = tmp_path / "describe.py"
    script.write_text("import sys; sys.stdin.read(); print('described by', sys.argv[1])")
    cli = VisionModel(type="cli", command=sys.executable, args=(str(script), "the entry"))
    fake.queue("openai", 500, {"error": "down"})
    first = vision.describe(image, config(entry(fake, "openai"), cli))
    assert inner(first.text) == "described by the entry"
    fallback = config(
        entry(fake, "openai"), command=sys.executable, args=(str(script), "the command")
    )
    fake.queue("openai", 429, {"error": "slow down"})
    second = vision.describe(image, fallback)
    assert inner(second.text) == "described by the command"
    assert second.failures == ("openai openai-vision-1: rate limited (HTTP 429): slow down",)


def test_keys_never_reach_a_failure_or_a_log_line(fake, image, caplog):
    caplog.set_level(logging.DEBUG)
    for provider in ("openai", "anthropic", "gemini", "openrouter"):
        echo = {"error": {"message": f"key {KEYS[provider]} is not valid"}}
        fake.queue(provider, 401, echo)
    chain = config(*(entry(fake, p) for p in ("openai", "anthropic", "gemini", "openrouter")))
    outcome = vision.describe(image, chain)
    assert outcome.failures[0] == (
        "openai openai-vision-1: the API key was refused (HTTP 401): key *** is not valid"
    )
    everything = outcome.failure + "\n".join(r.getMessage() for r in caplog.records)
    assert [k for k in KEYS.values() if k in everything] == []


def test_vision_off_or_without_describers_is_a_failure_not_an_exception(fake, image):
    off = VisionConfig(enabled=False, models=(entry(fake, "ollama"),))
    assert "not enabled" in vision.describe(image, off).failure
    assert "not enabled" in vision.describe(image, VisionConfig(enabled=True)).failure
    assert fake.requests == []


def test_describers_share_one_budget_and_those_left_without_time_are_named(fake, image):
    readings = iter([0.0, 1.0, vision.CHAIN_BUDGET_S + 1])  # the chain starts, entry 1, entry 2
    fake.queue("openai", 500, {"error": "down"})
    outcome = vision.describe(
        image,
        config(entry(fake, "openai"), entry(fake, "ollama")),
        clock=lambda: next(readings),
    )
    assert outcome.failures == (
        "openai openai-vision-1: HTTP 500: down",
        "ollama ollama-vision-1: not tried: the describers' 600 s were spent",
    )
    assert fake.seen("ollama") == []
