"""`clawd-browser config import-openclaw`: realistic OpenClaw configs (JSON5) become clawd.yaml that
clawd loads, and every key not carried over is named with its reason."""

from __future__ import annotations

import pathlib
import stat

import pytest
import yaml

from clawd.config import loader, openclaw
from tests.support.cli import isolate_env, run_cli

DATA = pathlib.Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def clean_env(monkeypatch, tmp_path):
    isolate_env(monkeypatch, tmp_path)


def imported(text: str) -> openclaw.Imported:
    return openclaw.convert(openclaw.parse(text))


def test_a_users_full_config_carries_browser_profiles_policy_and_auth():
    result = imported((DATA / "openclaw.json").read_text())
    config = loader.config_from_data(result.document, env={})
    assert (config.server.port, config.server.host, config.server.auth.token) == (
        18791,
        "127.0.0.1",
        "gw-token-0123",
    )
    browser = config.browser
    assert (browser.evaluate_enabled, browser.headless, browser.default_profile) == (
        False,
        True,
        "openclaw",
    )
    assert browser.snapshot_defaults.mode == "efficient" and browser.remote_cdp_timeout_ms == 2500
    assert (
        browser.ssrf_policy.dangerously_allow_private_network is False
    )  # from allowPrivateNetwork
    assert browser.ssrf_policy.allowed_hostnames == ("intranet.example",)
    profiles = browser.profiles
    assert set(profiles) == {"openclaw", "work", "remote", "user"}
    assert (profiles["work"].cdp_port, profiles["work"].color) == (18801, "#0066CC")
    assert (
        profiles["remote"].kind == "remote"
        and profiles["remote"].cdp_url == "http://10.0.0.42:9222"
    )
    assert profiles["user"].kind == "existing-session" and profiles["user"].user_data_dir is None
    assert (config.web.search.provider, config.web.search.brave.api_key) == ("brave", "BSA-xxxx")
    assert config.web.fetch.max_chars == 30000
    assert dict(result.skipped) == {
        "$.gateway.controlUi": "not a setting of the browser control service",
        "$.browser.profiles.chrome": "driver extension: clawd has no extension relay yet",
        "$.agents": "not a browser, gateway or tools setting: nothing of clawd's",
        "$.channels": "not a browser, gateway or tools setting: nothing of clawd's",
    }


def test_a_password_gateway_on_the_lan_and_the_legacy_cdp_url():
    result = imported(
        '{gateway: {port: 28789, bind: "lan", auth: {mode: "password", password: "s3cret"}},'
        ' browser: {cdpUrl: "http://10.1.1.1:9222"}}'
    )
    assert result.document["server"] == {
        "port": 28791,
        "host": "0.0.0.0",
        "auth": {"password": "s3cret"},
    }
    assert result.document["browser"] == {
        "uploadRoots": ["/tmp/openclaw/uploads"],
        "profiles": {"openclaw": {"cdpUrl": "http://10.1.1.1:9222"}},
        "defaultProfile": "openclaw",
    }  # OpenClaw's default, not clawd's
    assert result.skipped == []
    config = loader.config_from_data(result.document, env={})
    assert config.server.auth.password == "s3cret"


def test_values_clawd_refuses_are_left_out_and_named_so_the_result_still_loads():
    result = imported(
        '{browser: {maxTabs: "many", color: "red", profiles: {'
        ' Work: {cdpPort: 18801}, far: {driver: "remote"}, big: {cdpPort: 70000}, ok: {}},'
        ' ssrfPolicy: {allowPrivateNetwork: true, mystery: 1}, fancyFeature: true}}'
    )
    skipped = dict(result.skipped)
    assert loader.validate(result.document) == []
    assert "$.browser.maxTabs" in skipped and "$.browser.color" in skipped
    assert "$.browser.profiles.Work" in skipped and "$.browser.profiles.big.cdpPort" in skipped
    assert "required when driver is remote" in skipped["$.browser.profiles.far"]
    assert skipped["$.browser.ssrfPolicy.mystery"] == "no clawd setting of that name"
    assert skipped["$.browser.fancyFeature"] == "no clawd setting of that name"
    assert result.document["browser"]["ssrfPolicy"] == {"dangerouslyAllowPrivateNetwork": True}
    assert set(result.document["browser"]["profiles"]) == {"big", "ok"}
    assert result.document["browser"]["defaultProfile"] == "big"


def test_a_default_profile_that_was_left_out_gives_way_to_another():
    result = imported(
        '{browser: {defaultProfile: "Main", profiles: {Main: {}, openclaw: {cdpPort: 18800}}}}'
    )
    assert result.document["browser"]["defaultProfile"] == "openclaw"
    assert "'openclaw' is the default instead" in dict(result.skipped)["$.browser.defaultProfile"]


def test_the_cli_prints_yaml_and_names_the_left_out_keys_on_stderr(tmp_path):
    ran = run_cli("config", "import-openclaw", str(DATA / "openclaw.json"))
    assert ran.status == 0
    assert yaml.safe_load(ran.out)["server"]["auth"]["token"] == "gw-token-0123"
    assert ran.out.startswith("# clawd.yaml imported from the OpenClaw config")
    assert "#   $.agents: not a browser, gateway or tools setting" in ran.out
    assert "not carried over: $.browser.profiles.chrome: driver extension" in ran.err


def test_the_cli_writes_a_private_file_that_config_check_accepts(tmp_path):
    out = tmp_path / "clawd.yaml"
    assert (
        run_cli("config", "import-openclaw", str(DATA / "openclaw.json"), "--out", str(out)).status
        == 0
    )
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert run_cli("config", "check", str(out)).status == 0
    again = run_cli("config", "import-openclaw", str(DATA / "openclaw.json"), "--out", str(out))
    assert again.status == 2 and "--force" in again.err
    assert (
        run_cli(
            "config", "import-openclaw", str(DATA / "openclaw.json"), "--out", str(out), "--force"
        ).status
        == 0
    )


@pytest.mark.parametrize(
    "content, status, words",
    [
        (None, 2, "cannot read"),
        ("{browser: ", 1, "is not an OpenClaw config (JSON5)"),
        ("[1, 2]", 0, "not a JSON object"),
    ],
)
def test_a_missing_or_broken_file_is_a_clear_error(tmp_path, content, status, words):
    path = tmp_path / "openclaw.json"
    if content is not None:
        path.write_text(content)
    ran = run_cli("config", "import-openclaw", str(path))
    assert ran.status == status and words in ran.err


def test_web_tools_and_the_tool_policy_carry_over():
    result = imported('''{tools: {
        allow: ["browser", "group:web", "exec"], deny: ["web_fetch", "group:fs"], profile: "coding",
        web: {search: {provider: "perplexity", maxResults: 7, cacheTtlMinutes: 30,
                       perplexity: {apiKey: "pplx-1", baseUrl: "https://openrouter.ai/api/v1",
                                    model: "perplexity/sonar-pro"},
                       grok: {apiKey: "xai-1", inlineCitations: true}},
              fetch: {maxRedirects: 2, readability: false, maxCharsCap: 90000,
                      firecrawl: {enabled: true, apiKey: "fc-1", timeoutSeconds: 40}}}}}''')
    config = loader.config_from_data(result.document, env={})
    search, fetch = config.web.search, config.web.fetch
    assert (search.provider, search.count, search.cache_ttl_minutes) == ("perplexity", 7, 30)
    assert (search.perplexity.api_key, search.perplexity.model) == (
        "pplx-1",
        "perplexity/sonar-pro",
    )
    assert search.grok.inline_citations is True
    assert (fetch.max_redirects, fetch.readability, fetch.firecrawl.api_key) == (2, False, "fc-1")
    assert (config.tools.allow, config.tools.deny) == (("browser", "group:web"), ("web_fetch",))
    skipped = dict(result.skipped)
    assert skipped["$.tools.web.fetch.maxCharsCap"] == "no clawd setting of that name"
    assert skipped["$.tools.web.fetch.firecrawl.timeoutSeconds"] == "no clawd setting of that name"
    assert "'exec' names no tool of clawd's" in skipped["$.tools.allow"]
    assert skipped["$.tools.profile"] == "not a setting of the browser or web tools"
    shown = loader.config_to_dict(config)
    assert shown["web"]["search"]["perplexity"]["apiKey"] == "***"


def test_an_allow_list_of_other_tools_only_allows_none_of_clawds():
    result = imported('{tools: {allow: ["exec", "read"]}}')
    assert result.document["tools"] == {"deny": ["*"]}


def test_openclaw_uploads_folder_comes_in_as_an_upload_root():
    result = imported("{browser: {headless: true}}")
    assert result.document["browser"]["uploadRoots"] == ["/tmp/openclaw/uploads"]
    config = loader.config_from_data(result.document, env={})
    assert config.browser.upload_roots == ("/tmp/openclaw/uploads",)
