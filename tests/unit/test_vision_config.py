"""browser.vision and its OpenClaw spellings (visionEnabled, visionPrompt, visionTimeoutMs,
visionMaxBytes, visionMaxSide, browser.models) in one schema; describer entries checked with clear
messages; keys masked by `config show`; `config import-openclaw` carrying vision settings."""

from __future__ import annotations

import json

import pytest
import yaml

from clawd.config import loader, openclaw
from clawd.config.loader import config_from_data, config_to_dict, validate
from clawd.config.model import VisionModel
from tests.support.cli import isolate_env, run_cli


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def test_openclaw_names_and_the_vision_block_read_the_same():
    openclaw_names = {
        "visionEnabled": True,
        "visionPrompt": "What is shown?",
        "visionTimeoutMs": 12000,
        "visionMaxBytes": 4096,
        "visionMaxSide": 800,
        "models": [{"provider": "ollama", "model": "llava"}],
    }
    block = {
        "vision": {
            "enabled": True,
            "prompt": "What is shown?",
            "timeoutMs": 12000,
            "maxBytes": 4096,
            "maxSide": 800,
            "models": [{"provider": "ollama", "model": "llava"}],
        }
    }
    a = config_from_data({"browser": openclaw_names}, env={}).browser.vision
    b = config_from_data({"browser": block}, env={}).browser.vision
    assert a == b
    assert a.models == (VisionModel(provider="ollama", model="llava"),)
    assert (a.enabled, a.prompt, a.timeout_ms, a.max_bytes, a.max_side) == (
        True,
        "What is shown?",
        12000,
        4096,
        800,
    )


def test_both_spellings_may_be_mixed_but_not_disagree():
    mixed = {"visionEnabled": True, "vision": {"command": "/usr/bin/describe"}}
    assert config_from_data({"browser": mixed}, env={}).browser.vision.enabled is True
    assert validate({"browser": {"visionPrompt": "a", "vision": {"prompt": "b"}}}) == [
        "$.browser.visionPrompt: is an alias of vision.prompt, which is set to a different value"
    ]


def test_describer_entries_are_checked_with_their_paths():
    problems = validate(
        {
            "browser": {
                "models": [
                    {"provider": "mistral", "model": "pixtral"},
                    {"provider": "openai"},
                    {"type": "cli"},
                    {"type": "cli", "command": "d", "apiKey": "k"},
                    {"provider": "ollama", "model": "llava", "command": "d"},
                    {"provider": "gemini", "model": "g", "baseUrl": "ftp://x"},
                    {"provider": "openai", "model": "m", "colour": "red"},
                ]
            }
        }
    )
    assert problems[0].startswith("$.browser.models[0].provider: 'mistral' is not one of: ")
    assert problems[1:] == [
        "$.browser.models[1].model: required in a provider entry (or give type: cli and command)",
        "$.browser.models[2].command: required in a type: cli entry",
        "$.browser.models[3].apiKey: belongs to provider entries, not to type: cli",
        "$.browser.models[4].command: belongs to type: cli entries",
        "$.browser.models[5].baseUrl: 'ftp://x' does not match '^https?://[^/?#]+'",
        "$.browser.models[6]: unknown key 'colour'",
    ]


def test_vision_enabled_needs_models_or_a_command():
    assert validate({"browser": {"visionEnabled": True}}) == [
        "$.browser.vision.command: required when vision is enabled and models (or browser.models) "
        "lists no describer"
    ]
    assert (
        validate({"browser": {"visionEnabled": True, "models": [{"type": "cli", "command": "d"}]}})
        == []
    )


def test_api_keys_are_masked_by_config_show(tmp_path):
    path = tmp_path / "clawd.yaml"
    path.write_text(
        yaml.safe_dump(
            {
                "browser": {
                    "visionEnabled": True,
                    "models": [
                        {"provider": "openai", "model": "gpt-4o-mini", "apiKey": "sk-live-77"},
                        {"provider": "anthropic", "model": "claude", "apiKey": "sk-ant-88"},
                    ],
                }
            }
        )
    )
    config = loader.load_config(str(path), env={})
    assert config.browser.vision.models[0].api_key == "sk-live-77"
    shown = config_to_dict(config)["browser"]["vision"]["models"]
    assert [m["apiKey"] for m in shown] == ["***", "***"]
    result = run_cli("--config", str(path), "--json", "config", "show")
    assert result.status == 0, result.status
    assert "sk-live-77" not in result.out and "sk-ant-88" not in result.out
    models = json.loads(result.out)["browser"]["vision"]["models"]
    assert [(m["provider"], m["apiKey"]) for m in models] == [
        ("openai", "***"),
        ("anthropic", "***"),
    ]


OPENCLAW = """{
  // the browser's own vision keys and describers
  browser: {
    visionEnabled: true,
    visionPrompt: "Describe the page.",
    visionTimeoutMs: 20000,
    visionMaxBytes: 8192,
    models: [
      {provider: "openai", model: "gpt-4o-mini", timeoutSeconds: 15},
      {type: "cli", command: "/usr/local/bin/describe", args: ["--short"]},
    ],
  },
  tools: {
    media: {
      concurrency: 2,
      models: [
        {provider: "openai", model: "gpt-4o-mini-transcribe", capabilities: ["audio"]},
        {provider: "google", model: "gemini-2.5-flash", capabilities: ["image", "video"]},
        {provider: "bytedance", model: "doubao-seed", capabilities: ["image"]},
        {provider: "anthropic", capabilities: ["image"]},
      ],
      image: {maxChars: 500, maxBytes: 10485760},
    },
  },
  models: {
    providers: {
      openai: {apiKey: "sk-oc-openai", baseUrl: "https://proxy.example/v1", api: "openai"},
      google: {apiKey: "oc-gemini-key"},
    },
  },
}"""


def test_import_openclaw_carries_vision_settings_models_and_their_keys():
    result = openclaw.convert(openclaw.parse(OPENCLAW))
    config = config_from_data(result.document, env={})
    vision = config.browser.vision
    assert (vision.enabled, vision.prompt, vision.timeout_ms, vision.max_bytes) == (
        True,
        "Describe the page.",
        20000,
        8192,
    )
    assert vision.models == (
        VisionModel(
            provider="openai",
            model="gpt-4o-mini",
            timeout_ms=15000,
            api_key="sk-oc-openai",
            base_url="https://proxy.example/v1",
        ),
        VisionModel(type="cli", command="/usr/local/bin/describe", args=("--short",)),
        VisionModel(provider="gemini", model="gemini-2.5-flash", api_key="oc-gemini-key"),
    )
    skipped = dict(result.skipped)
    assert skipped["$.tools.media.models[0]"] == (
        "not an image model: clawd describes only screenshots"
    )
    assert skipped["$.tools.media.models[2]"] == "clawd has no describer for provider 'bytedance'"
    assert skipped["$.tools.media.models[3]"] == (
        "clawd needs the model (or a cli entry's command) named in the entry"
    )
    assert "$.tools.media.image.maxChars" in skipped and "$.tools.media.concurrency" in skipped
    assert skipped["$.models.providers.openai.api"] == "clawd uses only apiKey and baseUrl"


def test_import_openclaw_cli_writes_a_config_that_loads(tmp_path):
    source = tmp_path / "openclaw.json"
    source.write_text(OPENCLAW)
    out = tmp_path / "clawd.yaml"
    result = run_cli("config", "import-openclaw", str(source), "--out", str(out))
    assert result.status == 0, result.status
    config = loader.load_config(str(out), env={})
    assert [m.provider or m.type for m in config.browser.vision.models] == [
        "openai",
        "cli",
        "gemini",
    ]
