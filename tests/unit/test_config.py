"""Config: lookup order, schema <-> dataclass agreement, validation messages, defaults,
round trip."""

from __future__ import annotations

import dataclasses
import pathlib
import typing

import jsonschema
import pytest

from clawd.config import loader
from clawd.config.loader import (
    config_from_data,
    config_to_dict,
    defaults,
    find_config_file,
    load_config,
    schema,
    validate,
)
from clawd.config.model import AuthConfig, Config, ProfileConfig, ServerConfig, state_home
from clawd.errors import ConfigError

REPO = pathlib.Path(__file__).resolve().parents[2]
SAMPLE = REPO / "clawd" / "config" / "sample.yaml"
ETC_SAMPLE = REPO / "etc" / "clawd.yaml"


def write(path: pathlib.Path, text: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def places(tmp_path):
    """A fake home and a fake /etc, so lookup never touches the real ones."""
    home_file = tmp_path / "home" / ".clawd" / "clawd.yaml"
    etc_file = tmp_path / "etc" / "clawd" / "clawd.yaml"
    env = {"HOME": str(tmp_path / "home"), "CLAWD_HOME": str(tmp_path / "state")}
    return tmp_path, env, [home_file, etc_file]


# -- lookup order ---------------------------------------------------------------------------------
def test_explicit_path_wins_over_env_home_and_etc(places):
    tmp, env, paths = places
    for p in paths:
        write(p, "{}")
    env["CLAWD_CONFIG"] = str(write(tmp / "env.yaml", "{}"))
    explicit = write(tmp / "explicit.yaml", "{}")
    assert find_config_file(str(explicit), env, search_paths=paths) == explicit


def test_env_wins_over_home_and_etc(places):
    tmp, env, paths = places
    for p in paths:
        write(p, "{}")
    env["CLAWD_CONFIG"] = str(write(tmp / "env.yaml", "{}"))
    assert find_config_file(None, env, search_paths=paths) == tmp / "env.yaml"


def test_home_file_wins_over_etc(places):
    _, env, paths = places
    for p in paths:
        write(p, "{}")
    assert find_config_file(None, env, search_paths=paths) == paths[0]


def test_etc_file_is_used_when_there_is_no_home_file(places):
    _, env, paths = places
    write(paths[1], "{}")
    assert find_config_file(None, env, search_paths=paths) == paths[1]


def test_no_file_anywhere_means_none(places):
    _, env, paths = places
    assert find_config_file(None, env, search_paths=paths) is None


def test_default_search_paths_are_home_dot_clawd_then_etc(tmp_path):
    assert loader.default_search_paths({"HOME": str(tmp_path)}) == (
        tmp_path / ".clawd" / "clawd.yaml",
        pathlib.Path("/etc/clawd/clawd.yaml"),
    )


def test_missing_explicit_path_is_an_error(places):
    tmp, env, paths = places
    write(paths[0], "{}")
    with pytest.raises(ConfigError, match="--config"):
        find_config_file(str(tmp / "nope.yaml"), env, search_paths=paths)


def test_missing_env_path_is_an_error(places):
    tmp, env, paths = places
    env["CLAWD_CONFIG"] = str(tmp / "nope.yaml")
    with pytest.raises(ConfigError, match=r"\$CLAWD_CONFIG"):
        find_config_file(None, env, search_paths=paths)


def test_directory_named_by_config_is_an_error(places):
    tmp, env, paths = places
    with pytest.raises(ConfigError, match="not a regular file"):
        find_config_file(str(tmp), env, search_paths=paths)


def test_load_config_without_any_file_uses_builtin_defaults(places):
    tmp, env, paths = places
    config = load_config(None, env, search_paths=paths)
    assert config.source is None
    assert config.home == tmp / "state"
    assert config == Config(home=tmp / "state")


def test_load_config_records_the_file_it_read(places):
    _, env, paths = places
    write(paths[1], "server: {port: 19000}\n")
    config = load_config(None, env, search_paths=paths)
    assert config.source == str(paths[1])
    assert config.server.port == 19000


def test_empty_file_means_defaults(places):
    tmp, env, paths = places
    config = load_config(str(write(tmp / "empty.yaml", "")), env)
    assert config == Config(home=tmp / "state", source=str(tmp / "empty.yaml"))


def test_comments_only_section_means_defaults():
    assert (
        config_from_data({"server": None, "browser": {"vision": None}}, env={}).server
        == ServerConfig()
    )


def test_home_comes_from_clawd_home(tmp_path):
    assert config_from_data({}, env={"CLAWD_HOME": str(tmp_path)}).home == tmp_path
    assert state_home({"CLAWD_HOME": str(tmp_path)}) == tmp_path


# -- the schema and the dataclasses agree ----------------------------------------------------------
def schema_properties(node=None, path="$"):
    """Every (path, property schema) in the schema, profile entries included."""
    node = schema() if node is None else node
    for key, sub in node.get("properties", {}).items():
        yield f"{path}.{key}", sub
        yield from schema_properties(sub, f"{path}.{key}")
    item = node.get("additionalProperties")
    if isinstance(item, dict):
        yield from schema_properties(item, f"{path}.<name>")


def object_nodes(node=None, path="$"):
    node = schema() if node is None else node
    if "properties" in node:
        yield path, node
    for sub_path, sub in schema_properties(node, path):
        if "properties" in sub:
            yield sub_path, sub


def test_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(schema())


def test_every_property_has_a_description_and_a_default():
    missing = [
        path
        for path, sub in schema_properties()
        if not sub.get("description", "").strip() or "default" not in sub
    ]
    assert missing == []


def test_every_description_is_a_sentence():
    bad = [
        path
        for path, sub in schema_properties()
        if not (sub["description"][0].isupper() and sub["description"].endswith("."))
    ]
    assert bad == []


def test_every_object_refuses_unknown_keys():
    assert [
        path for path, node in object_nodes() if node.get("additionalProperties") is not False
    ] == []


def test_every_default_validates_against_its_own_property():
    bad = [
        path
        for path, sub in schema_properties()
        if list(jsonschema.Draft202012Validator(sub).iter_errors(sub["default"]))
    ]
    assert bad == []


def test_object_defaults_agree_with_their_members_defaults():
    derived = defaults()
    assert schema()["properties"]["server"]["default"] == derived["server"]
    assert schema()["properties"]["cli"]["default"] == derived["cli"]
    browser_default = dict(schema()["properties"]["browser"]["default"])
    assert browser_default.pop("profiles") == {"clawd": {"cdpPort": 18800, "color": "#FF4500"}}
    assert {k: v for k, v in derived["browser"].items() if k != "profiles"} == browser_default


def dataclass_defaults(cls):
    out = {}
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


def leaf_mismatches(node, cls, path="$"):
    """(path, schema default, dataclass default) wherever they differ, leaf by leaf."""
    hints, field_defaults = typing.get_type_hints(cls), dataclass_defaults(cls)
    for key, sub in node["properties"].items():
        if loader.ALIAS_KEY in sub:
            continue
        name = loader.snake_case(key)
        if "properties" in sub:
            yield from leaf_mismatches(sub, hints[name], f"{path}.{key}")
            continue
        expected = sub["default"]
        if isinstance(expected, list):
            expected = tuple(expected)
        if key == "profiles":
            expected = config_from_data({}, env={}).browser.profiles
        if field_defaults.get(name, "<no default>") != expected:
            yield f"{path}.{key}", expected, field_defaults.get(name, "<no default>")


def test_every_schema_default_equals_the_dataclass_default():
    assert list(leaf_mismatches(schema(), Config)) == []


def test_every_profile_default_equals_the_profile_dataclass_default():
    item = schema()["properties"]["browser"]["properties"]["profiles"]["additionalProperties"]
    assert list(leaf_mismatches(item, ProfileConfig)) == []


def fields_without_schema_keys(node, cls, path="$"):
    """Dataclass fields no schema property feeds (the loader would silently leave them default)."""
    not_from_schema = {(Config, "home"), (Config, "source"), (ProfileConfig, "name")}
    hints, props = typing.get_type_hints(cls), node["properties"]
    for f in dataclasses.fields(cls):
        key = loader.camel_case(f.name)
        if (cls, f.name) in not_from_schema:
            continue
        if key not in props:
            yield f"{path}.{key}"
        elif dataclasses.is_dataclass(hints[f.name]):
            yield from fields_without_schema_keys(props[key], hints[f.name], f"{path}.{key}")


def test_every_dataclass_field_has_a_schema_key():
    profile_item = schema()["properties"]["browser"]["properties"]["profiles"][
        "additionalProperties"
    ]
    assert list(fields_without_schema_keys(schema(), Config)) == []
    assert (
        list(fields_without_schema_keys(profile_item, ProfileConfig, "$.browser.profiles.<name>"))
        == []
    )


def test_builtin_defaults_equal_the_dataclass_defaults():
    assert config_from_data({}, env={}) == Config(home=state_home({}))


def test_defaults_is_a_fresh_copy():
    defaults()["server"]["port"] = 1
    assert defaults()["server"]["port"] == 18791


# -- validation ------------------------------------------------------------------------------------
def test_unknown_key_is_named_with_its_path():
    problems = validate({"server": {"prot": 1}})
    assert len(problems) == 1
    assert problems[0].startswith("$.server: unknown key 'prot'")
    assert "did you mean 'port'" in problems[0]


def test_unknown_top_level_and_profile_keys_are_errors():
    problems = validate({"bogus": 1, "browser": {"profiles": {"clawd": {"cdpport": 18800}}}})
    assert problems[0] == "$: unknown key 'bogus'"
    assert problems[1].startswith("$.browser.profiles.clawd: unknown key 'cdpport'")


def test_out_of_range_port_and_unknown_key_are_both_reported(tmp_path):
    path = write(tmp_path / "c.yaml", "server:\n  port: 70000\n  prot: 1\n")
    with pytest.raises(ConfigError) as caught:
        load_config(str(path), {})
    assert caught.value.problems == [
        "$.server: unknown key 'prot' (did you mean 'port'?)",
        "$.server.port: 70000 is greater than the maximum of 65535",
    ]
    assert str(path) in str(caught.value)


def test_profile_port_message_carries_the_full_path():
    problems = validate(
        {"browser": {"profiles": {"clawd": {"cdpPort": 18800}, "work": {"cdpPort": 70000}}}}
    )
    assert problems == [
        "$.browser.profiles.work.cdpPort: 70000 is greater than the maximum of 65535"
    ]


def test_problems_are_sorted_by_path_and_deterministic():
    data = {"cli": {"url": 5}, "server": {"port": 0, "zz": 1}, "browser": {"maxTabs": 101, "aa": 1}}
    first = validate(data)
    assert first == validate(data)
    assert [p.split(":")[0] for p in first] == sorted(p.split(":")[0] for p in first)
    assert len(first) == 5


def test_profile_port_9222_is_refused():
    problems = validate({"browser": {"profiles": {"clawd": {"cdpPort": 9222}}}})
    assert len(problems) == 1
    assert problems[0].startswith("$.browser.profiles.clawd.cdpPort: 9222 is not allowed")


@pytest.mark.parametrize(
    "key, good, bad",
    [
        ("actionTimeoutMs", [500, 60000], [499, 60001]),
        ("maxTabs", [1, 100], [0, 101]),
        ("cdpPortRangeStart", [1024, 65435], [1023, 65436]),
    ],
)
def test_browser_ranges(key, good, bad):
    for value in good:
        assert validate({"browser": {key: value}}) == []
    for value in bad:
        assert len(validate({"browser": {key: value}})) == 1


@pytest.mark.parametrize("value", [True, False, "auto"])
def test_headless_and_no_sandbox_accept_true_false_auto(value):
    assert validate({"browser": {"headless": value, "noSandbox": value}}) == []


def test_headless_refuses_other_values():
    assert validate({"browser": {"headless": "yes please"}}) == [
        "$.browser.headless: 'yes please' is not one of: true, false, \"auto\""
    ]
    assert len(validate({"browser": {"noSandbox": 1}})) == 1


def test_colors_must_be_hex():
    assert validate({"browser": {"color": "#00aaFF"}}) == []
    assert len(validate({"browser": {"color": "red"}})) == 1
    assert len(validate({"browser": {"profiles": {"clawd": {"color": "#12345"}}}})) == 1


def test_unquoted_color_gets_a_yaml_hint(tmp_path):
    path = write(tmp_path / "c.yaml", "browser:\n  color: #FF4500\n")
    with pytest.raises(ConfigError, match="quote values that start with #"):
        load_config(str(path), {})


def test_profile_names_are_checked():
    problems = validate(
        {"browser": {"defaultProfile": "ok-1", "profiles": {"ok-1": {}, "Work": {}, "-x": {}}}}
    )
    assert problems == [
        "$.browser.profiles: '-x' is not a valid name: it must match ^[a-z0-9][a-z0-9-]{0,63}$",
        "$.browser.profiles: 'Work' is not a valid name: it must match ^[a-z0-9][a-z0-9-]{0,63}$",
    ]


def test_snapshot_mode_is_null_or_efficient():
    assert validate({"browser": {"snapshotDefaults": {"mode": "efficient"}}}) == []
    assert len(validate({"browser": {"snapshotDefaults": {"mode": "fast"}}})) == 1


def test_unknown_driver_is_an_error():
    assert len(validate({"browser": {"profiles": {"clawd": {"driver": "playwright"}}}})) == 1


def test_non_mapping_document_is_an_error():
    assert validate([1, 2]) == ["$: [1, 2] is not of type 'object'"]


# -- checks beyond the schema ---------------------------------------------------------------------
def test_two_profiles_on_one_port_are_an_error():
    problems = validate(
        {"browser": {"profiles": {"clawd": {"cdpPort": 18800}, "work": {"cdpPort": 18800}}}}
    )
    assert problems == [
        "$.browser.profiles.work.cdpPort: port 18800 is already the cdpPort of profile 'clawd'"
    ]


def test_a_profile_on_the_service_port_is_an_error():
    problems = validate({"browser": {"profiles": {"clawd": {"cdpPort": 18791}}}})
    assert problems == ["$.browser.profiles.clawd.cdpPort: port 18791 is also server.port"]


def test_cdp_url_with_existing_session_is_an_error():
    problems = validate(
        {
            "browser": {
                "profiles": {
                    "clawd": {},
                    "user": {
                        "driver": "existing-session",
                        "cdpUrl": "http://127.0.0.1:9333",
                        "userDataDir": "/x",
                    },
                }
            }
        }
    )
    assert len(problems) == 1
    assert problems[0].startswith("$.browser.profiles.user: cdpUrl and driver existing-session")


def test_existing_session_without_user_data_dir_is_valid_its_browser_is_found_at_run_time():
    assert (
        validate({"browser": {"profiles": {"clawd": {}, "mine": {"driver": "existing-session"}}}})
        == []
    )


def test_remote_driver_needs_cdp_url():
    problems = validate({"browser": {"profiles": {"clawd": {}, "far": {"driver": "remote"}}}})
    assert problems == ["$.browser.profiles.far.cdpUrl: required when driver is remote"]


def test_default_profile_must_be_among_the_profiles():
    assert validate({"browser": {"defaultProfile": "work"}}) == [
        "$.browser.defaultProfile: 'work' is not one of the profiles (clawd)"
    ]
    problems = validate({"browser": {"profiles": {"work": {}}}})
    assert problems == [
        "$.browser.defaultProfile: 'clawd' (the default) is not one of the profiles (work)"
    ]


def test_vision_enabled_needs_a_command():
    assert validate({"browser": {"vision": {"enabled": True}}}) == [
        "$.browser.vision.command: required when vision is enabled and models (or browser.models) "
        "lists no describer"
    ]
    assert validate({"browser": {"vision": {"enabled": True, "command": "describe"}}}) == []


def test_schema_and_semantic_problems_are_reported_together():
    problems = validate(
        {
            "server": {"port": 70000},
            "browser": {"profiles": {"clawd": {"cdpPort": 18800}, "b": {"cdpPort": 18800}}},
        }
    )
    assert len(problems) == 2


def test_non_loopback_host_without_auth_is_not_a_config_error():
    assert validate({"server": {"host": "0.0.0.0"}}) == []


def test_profiles_replace_the_default_set_and_may_omit_port_and_color():
    config = config_from_data(
        {
            "browser": {
                "defaultProfile": "work",
                "profiles": {
                    "work": None,
                    "far": {"cdpUrl": "ws://10.0.0.42:3000?token=x"},
                    "user": {
                        "driver": "existing-session",
                        "userDataDir": "~/.config/google-chrome",
                    },
                },
            }
        },
        env={},
    )
    profiles = config.browser.profiles
    assert set(profiles) == {"work", "far", "user"}
    assert profiles["work"] == ProfileConfig("work")
    assert (
        profiles["far"].kind == "remote"
        and profiles["far"].cdp_url == "ws://10.0.0.42:3000?token=x"
    )
    assert profiles["user"].kind == "existing-session"


# -- YAML ------------------------------------------------------------------------------------------
def test_yaml_syntax_error_names_line_and_column(tmp_path):
    path = write(tmp_path / "c.yaml", "server:\n  port: 1\n    host: x\n")
    with pytest.raises(ConfigError) as caught:
        load_config(str(path), {})
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith("line 3, column 9: YAML syntax error:")
    assert caught.value.source == str(path)


def test_duplicate_yaml_key_is_an_error(tmp_path):
    path = write(tmp_path / "c.yaml", "server:\n  port: 1\n  port: 2\n")
    with pytest.raises(ConfigError, match="line 3, column 3: duplicate key 'port'"):
        load_config(str(path), {})


def test_yaml_merge_keys_still_work():
    data = loader.parse_yaml("a: &a {port: 1}\nserver:\n  <<: *a\n  port: 2\n")
    assert data["server"] == {"port": 2}


# -- environment and aliases -----------------------------------------------------------------------
def test_env_fills_auth_when_the_file_does_not_set_it():
    config = config_from_data({}, env={"CLAWD_TOKEN": "t0k", "CLAWD_PASSWORD": "pw"})
    assert config.server.auth == AuthConfig(token="t0k", password="pw")


def test_file_auth_wins_over_env():
    config = config_from_data(
        {"server": {"auth": {"token": "file"}}}, env={"CLAWD_TOKEN": "env", "CLAWD_PASSWORD": ""}
    )
    assert config.server.auth == AuthConfig(token="file", password=None)


def test_allow_private_network_is_an_alias():
    config = config_from_data({"browser": {"ssrfPolicy": {"allowPrivateNetwork": True}}}, env={})
    assert config.browser.ssrf_policy.dangerously_allow_private_network is True
    assert "allowPrivateNetwork" not in config_to_dict(config)["browser"]["ssrfPolicy"]


def test_alias_and_its_target_must_agree():
    same = {"allowPrivateNetwork": True, "dangerouslyAllowPrivateNetwork": True}
    assert validate({"browser": {"ssrfPolicy": same}}) == []
    differ = {"allowPrivateNetwork": True, "dangerouslyAllowPrivateNetwork": False}
    assert validate({"browser": {"ssrfPolicy": differ}}) == [
        "$.browser.ssrfPolicy.allowPrivateNetwork: is an alias of dangerouslyAllowPrivateNetwork, "
        "which is set to a different value"
    ]


# -- the dataclasses -------------------------------------------------------------------------------
def test_lists_become_tuples_and_config_is_frozen():
    config = config_from_data(
        {
            "browser": {
                "extraArgs": ["--lang=en"],
                "ssrfPolicy": {"allowedHostnames": ["127.0.0.1"]},
            }
        },
        env={},
    )
    assert config.browser.extra_args == ("--lang=en",)
    assert config.browser.ssrf_policy.allowed_hostnames == ("127.0.0.1",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.browser.max_tabs = 3


def test_invalid_data_raises_one_config_error_with_every_problem():
    with pytest.raises(ConfigError) as caught:
        config_from_data({"server": {"port": "x", "host": ""}}, source="here.yaml", env={})
    assert len(caught.value.problems) == 2
    assert caught.value.code == "CONFIG_INVALID"
    assert "in here.yaml" in str(caught.value)


# -- config_to_dict --------------------------------------------------------------------------------
def test_config_to_dict_masks_secrets():
    config = config_from_data({"server": {"auth": {"token": "s3cret"}}}, env={})
    shown = config_to_dict(config)
    assert shown["server"]["auth"] == {"token": "***", "password": None}
    assert "s3cret" not in repr(shown)
    assert config_to_dict(config, mask_secrets=False)["server"]["auth"]["token"] == "s3cret"


def test_config_to_dict_of_defaults_is_the_default_document():
    assert config_to_dict(config_from_data({}, env={})) == defaults()


def test_config_to_dict_round_trips():
    data = {
        "server": {"host": "0.0.0.0", "port": 9000, "auth": {"token": "t", "password": "p"}},
        "browser": {
            "headless": True,
            "noSandbox": False,
            "extraArgs": ["--a"],
            "defaultProfile": "work",
            "snapshotDefaults": {"mode": "efficient"},
            "profiles": {
                "work": {"cdpPort": 18801, "color": "#0066CC"},
                "far": {"cdpUrl": "https://h:9222", "attachOnly": True},
            },
            "tabCleanup": {"enabled": True, "idleMinutes": 5},
            "vision": {"enabled": True, "command": "describe", "args": ["-q"]},
        },
        "cli": {"url": "http://127.0.0.1:9000", "autostart": True},
    }
    config = config_from_data(data, env={})
    shown = config_to_dict(config, mask_secrets=False)
    assert validate(shown) == []
    assert config_from_data(shown, env={}) == config


# -- the sample ------------------------------------------------------------------------------------
def test_sample_validates_and_spells_out_every_default():
    config = load_config(str(SAMPLE), {})
    assert config_to_dict(config) == defaults()
    assert validate(loader.read_config_file(SAMPLE)) == []


def test_sample_sets_every_key_of_the_schema():
    def paths(doc, prefix=""):
        for key, value in doc.items():
            yield prefix + key
            if isinstance(value, dict):
                yield from paths(value, prefix + key + ".")

    assert set(paths(loader.read_config_file(SAMPLE))) == set(paths(defaults()))


def test_sample_mentions_the_alias():
    assert "allowPrivateNetwork" in SAMPLE.read_text().replace("dangerouslyAllowPrivateNetwork", "")


def test_etc_sample_is_the_packaged_sample_and_validates():
    assert ETC_SAMPLE.read_text() == SAMPLE.read_text()
    assert validate(loader.read_config_file(ETC_SAMPLE)) == []


def test_nodes_are_read_with_their_secrets_masked_and_need_a_url():
    config = config_from_data(
        {"nodes": {"lab": {"url": "http://10.0.0.5:18791", "token": "t0k"}}}, env={}
    )
    assert (config.nodes["lab"].url, config.nodes["lab"].token) == ("http://10.0.0.5:18791", "t0k")
    assert config_to_dict(config)["nodes"]["lab"]["token"] == "***"
    assert validate({"nodes": {"lab": {"token": "t0k"}}}) == [
        "$.nodes.lab.url: required: the node's control URL, such as http://10.0.0.5:18791"
    ]
    assert validate({"nodes": {"lab": {"url": "ftp://x"}}})[0].startswith(
        "$.nodes.lab.url: 'ftp://x' does not match"
    )
