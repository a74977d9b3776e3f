"""Reads clawd.yaml: find the file, parse the YAML, report every problem with its JSON path, fill
defaults from schema.json and build the frozen dataclasses of config/model.py. The only module of
clawd that reads configuration files; what the keys mean lives in schema.json."""

from __future__ import annotations

import collections.abc
import copy
import dataclasses
import difflib
import functools
import importlib.resources
import json
import os
import pathlib
import re
import typing
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import jsonschema
import yaml

from clawd.config.model import Config, state_home
from clawd.errors import ConfigError

SYSTEM_CONFIG = pathlib.Path("/etc/clawd/clawd.yaml")
SECRET_MASK = "***"
ALIAS_KEY = "x-aliasOf"  # schema keyword: another name for a sibling ("key") or its member
# ("section.key", as browser.visionEnabled names browser.vision.enabled)
SECRET_KEY = "x-secret"  # schema keyword: masked by config_to_dict
# a string whose schema pattern anchors one of these schemes is a URL: config_to_dict masks its
# userinfo and query (a pool's ?token=, a node's user:password@)
URL_PATTERNS = ("^https?://", "^(https?|wss?)://")

JsonPath = tuple  # a JSON path as a tuple of keys and indexes
Problem = tuple[JsonPath, str]
_MISSING = object()


# -- where the file is -----------------------------------------------------------------------------
def default_search_paths(env: Mapping[str, str] | None = None) -> tuple[pathlib.Path, ...]:
    """The files tried when neither --config nor $CLAWD_CONFIG names one, in order."""
    env = os.environ if env is None else env
    home = env.get("HOME") or os.path.expanduser("~")
    return (pathlib.Path(home) / ".clawd" / "clawd.yaml", SYSTEM_CONFIG)


def find_config_file(
    explicit: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    search_paths: Iterable[str | os.PathLike] | None = None,
) -> pathlib.Path | None:
    """--config PATH, else $CLAWD_CONFIG, else the first existing search path, else None
    (built-in defaults). A file named explicitly must exist: silently falling back to defaults
    would run a service with none of the settings its operator asked for."""
    env = os.environ if env is None else env
    named = _named_file(explicit, "--config") or _named_file(
        env.get("CLAWD_CONFIG"), "$CLAWD_CONFIG"
    )
    if named is not None:
        return named
    for candidate in default_search_paths(env) if search_paths is None else search_paths:
        if pathlib.Path(candidate).is_file():
            return pathlib.Path(candidate)
    return None


def _named_file(raw: str | None, origin: str) -> pathlib.Path | None:
    if not raw:
        return None
    path = pathlib.Path(raw).expanduser()
    if not path.is_file():
        why = "not a regular file" if path.exists() else "no such file"
        raise ConfigError([f"{path}: {why} (named by {origin})"], source=str(path))
    return path


# -- reading YAML ----------------------------------------------------------------------------------
class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys, which plain YAML resolves by silently keeping the
    last."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen = set()
    for key_node, _ in node.value:
        if key_node.tag == "tag:yaml.org,2002:merge":
            continue  # `<<:` merges may legitimately be overridden by explicit keys
        key = loader.construct_object(key_node, deep=deep)
        if isinstance(key, collections.abc.Hashable):
            if key in seen:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r}", key_node.start_mark
                )
            seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def parse_yaml(text: str, source: str | None = None) -> Any:
    """The document in `text`; a syntax error is a ConfigError naming its line and column."""
    try:
        return yaml.load(text, Loader=_StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        kind = "" if isinstance(exc, yaml.constructor.ConstructorError) else "YAML syntax error: "
        raise ConfigError([f"{where}{kind}{exc.problem or exc.context}"], source) from None
    except yaml.YAMLError as exc:
        raise ConfigError([f"YAML syntax error: {exc}"], source) from None


def read_config_file(path: str | os.PathLike) -> Any:
    try:
        text = pathlib.Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError([f"cannot read {path}: {exc}"], source=str(path)) from None
    return parse_yaml(text, source=str(path))


# -- the schema ------------------------------------------------------------------------------------
@functools.cache
def schema() -> dict:
    """The parsed schema.json. Shared: do not mutate it."""
    text = (
        importlib.resources.files("clawd.config")
        .joinpath("schema.json")
        .read_text(encoding="utf-8")
    )
    return json.loads(text)


@functools.cache
def _validator() -> jsonschema.protocols.Validator:
    return jsonschema.Draft202012Validator(schema())


def defaults() -> dict:
    """The full default document (camelCase, as a file would spell it), derived from the schema."""
    return copy.deepcopy(_defaults())


@functools.cache
def _defaults() -> dict:
    return _with_defaults(schema(), {})


def _map_item_schema(node: dict) -> dict | None:
    """The schema of each entry when `node` is a map keyed by names (browser.profiles)."""
    item = node.get("additionalProperties")
    return item if isinstance(item, dict) else None


# -- validation ------------------------------------------------------------------------------------
def validate(data: Any) -> list[str]:
    """Every problem of the document at once, each "$.json.path: message", sorted by path."""
    return [f"{render_path(path)}: {message}" for path, message in problems_of(data)]


def problems_of(data: Any) -> list[Problem]:
    """validate()'s problems as (path, message), sorted by path."""
    data = _empty_sections_as_defaults(schema(), data)
    problems = set(_semantic_problems(data))
    for error in _validator().iter_errors(data):
        problems.update(_schema_problems(error))
    return sorted(problems, key=lambda p: (_path_sort_key(p[0]), p[1]))


def render_path(path: Iterable) -> str:
    out = "$"
    for key in path:
        if isinstance(key, int) and not isinstance(key, bool):
            out += f"[{key}]"
        elif isinstance(key, str) and re.fullmatch(r"[A-Za-z0-9_-]+", key):
            out += f".{key}"
        else:
            out += f"[{json.dumps(str(key))}]"
    return out


def _path_sort_key(path: JsonPath) -> tuple:
    return tuple((0, key, "") if isinstance(key, int) else (1, 0, str(key)) for key in path)


def _empty_sections_as_defaults(node: dict, value: Any) -> Any:
    """A section whose keys are all commented out parses as null; read it as {} (all defaults)."""
    props, item = node.get("properties"), _map_item_schema(node)
    if props is not None and value is None:
        return {}
    if props is not None and isinstance(value, dict):
        return {
            k: _empty_sections_as_defaults(props[k], v) if k in props else v
            for k, v in value.items()
        }
    if item is not None and isinstance(value, dict):
        return {k: _empty_sections_as_defaults(item, v) for k, v in value.items()}
    return value


def _schema_problems(error: jsonschema.ValidationError) -> Iterator[Problem]:
    path = tuple(error.absolute_path)
    if error.validator == "additionalProperties" and error.validator_value is False:
        known = list(error.schema.get("properties", {}))
        for key in error.instance:
            if key not in known:
                yield path, _unknown_key_message(key, known)
    elif "propertyNames" in error.relative_schema_path:
        pattern = error.schema.get("pattern", "")
        yield path, f"{error.instance!r} is not a valid name: it must match {pattern}"
    else:
        yield path, _message(error)


def _unknown_key_message(key: Any, known: list[str]) -> str:
    close = difflib.get_close_matches(str(key), known, n=1) if isinstance(key, str) else []
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    return f"unknown key {key!r}{hint}"


def _message(error: jsonschema.ValidationError) -> str:
    if error.validator == "not" and isinstance(error.validator_value, dict):
        why = error.validator_value.get("description")
        if why:
            return f"{error.instance!r} is not allowed: {why}"
    if error.validator == "enum":
        choices = ", ".join(json.dumps(choice) for choice in error.validator_value)
        return f"{error.instance!r} is not one of: {choices}"
    if (
        error.validator == "type"
        and error.instance is None
        and error.schema.get("pattern", "").startswith("^#")
    ):
        # `color: #FF4500` unquoted is a YAML comment, which leaves the key null
        return f"{error.message} (quote values that start with #, as in \"#FF4500\")"
    return error.message


# -- checks the schema cannot express --------------------------------------------------------------
def _semantic_problems(data: Any) -> Iterator[Problem]:
    if not isinstance(data, dict):
        return
    browser, server = _section(data, "browser"), _section(data, "server")
    profiles = browser.get("profiles", _defaults()["browser"]["profiles"])
    if isinstance(profiles, dict):
        yield from _profile_driver_problems(profiles)
        yield from _cdp_port_clashes(profiles, server.get("port", _defaults()["server"]["port"]))
        yield from _default_profile_problems(browser, profiles)
    yield from _vision_problems(browser)
    yield from _node_problems(_section(data, "nodes"))
    yield from _alias_conflicts(data)


def _node_problems(nodes: dict) -> Iterator[Problem]:
    for name, entry in nodes.items():
        if isinstance(entry, dict) and not entry.get("url"):
            yield (
                ("nodes", name, "url"),
                "required: the node's control URL, such as http://10.0.0.5:18791",
            )


def _section(data: dict, key: str) -> dict:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def _profile_driver_problems(profiles: dict) -> Iterator[Problem]:
    for name, entry in profiles.items():
        if not isinstance(entry, dict):
            continue
        here = ("browser", "profiles", name)
        driver = entry.get("driver", "managed")
        if driver == "existing-session" and entry.get("cdpUrl"):
            yield (
                here,
                (
                    "cdpUrl and driver existing-session exclude each other: an existing session "
                    "is found through the DevToolsActivePort file in userDataDir"
                ),
            )
        if driver == "remote" and not entry.get("cdpUrl"):
            yield here + ("cdpUrl",), "required when driver is remote"


def _cdp_port_clashes(profiles: dict, server_port: Any) -> Iterator[Problem]:
    """Two managed browsers cannot listen on one port, nor can a browser and the service."""
    owners: dict[int, Any] = {}
    for name, entry in profiles.items():
        port = entry.get("cdpPort") if isinstance(entry, dict) else None
        if not _is_int(port) or entry.get("cdpUrl") or entry.get("driver", "managed") != "managed":
            continue
        here = ("browser", "profiles", name, "cdpPort")
        if port in owners:
            yield here, f"port {port} is already the cdpPort of profile {owners[port]!r}"
        elif _is_int(server_port) and port == server_port:
            yield here, f"port {port} is also server.port"
        else:
            owners[port] = name


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _default_profile_problems(browser: dict, profiles: dict) -> Iterator[Problem]:
    given = "defaultProfile" in browser
    name = browser.get("defaultProfile", _defaults()["browser"]["defaultProfile"])
    if isinstance(name, str) and profiles and name not in profiles:
        listed = ", ".join(sorted(str(p) for p in profiles))
        what = repr(name) if given else f"{name!r} (the default)"
        yield ("browser", "defaultProfile"), f"{what} is not one of the profiles ({listed})"


def _vision_problems(browser: dict) -> Iterator[Problem]:
    props = schema()["properties"]["browser"]["properties"]
    vision = _section(_resolve_aliases(props, browser), "vision")
    models = vision.get("models") if isinstance(vision.get("models"), list) else []
    if vision.get("enabled") is True and not vision.get("command") and not models:
        yield (
            ("browser", "vision", "command"),
            "required when vision is enabled and models (or browser.models) lists no describer",
        )
    where = ("browser", "models") if "models" in browser else ("browser", "vision", "models")
    for index, entry in enumerate(models):
        if isinstance(entry, dict):
            yield from _describer_problems(entry, where + (index,))


def _describer_problems(entry: dict, here: JsonPath) -> Iterator[Problem]:
    """A provider entry names its provider and model; a cli entry its command, and only that."""
    if entry.get("type", "provider") == "cli":
        if not entry.get("command"):
            yield here + ("command",), "required in a type: cli entry"
        for key in ("provider", "model", "apiKey", "baseUrl", "maxTokens"):
            if key in entry:
                yield here + (key,), "belongs to provider entries, not to type: cli"
        return
    for key in ("provider", "model"):
        if not entry.get(key):
            yield here + (key,), "required in a provider entry (or give type: cli and command)"
    for key in ("command", "args"):
        if key in entry:
            yield here + (key,), "belongs to type: cli entries"


def _alias_conflicts(data: dict) -> Iterator[Problem]:
    for node, obj, path in _objects(schema(), data, ()):
        for key, sub in node["properties"].items():
            target = sub.get(ALIAS_KEY)
            if not target or key not in obj:
                continue
            given = _member(obj, target)
            if given is not _MISSING and given != obj[key]:
                yield path + (key,), f"is an alias of {target}, which is set to a different value"


def _objects(node: dict, value: Any, path: JsonPath) -> Iterator[tuple[dict, dict, JsonPath]]:
    """Every (schema, object, path) in the document where the schema lists properties."""
    if not isinstance(value, dict):
        return
    props, item = node.get("properties"), _map_item_schema(node)
    if props is not None:
        yield node, value, path
        for key, sub in props.items():
            yield from _objects(sub, value.get(key), path + (key,))
    elif item is not None:
        for key, entry in value.items():
            yield from _objects(item, entry, path + (key,))


# -- defaults and dataclasses ----------------------------------------------------------------------
def _with_defaults(node: dict, value: Any) -> Any:
    """`value` (already valid) with every missing key filled from the schema and aliases
    resolved."""
    props, item = node.get("properties"), _map_item_schema(node)
    if props is not None:
        given = _resolve_aliases(props, value if isinstance(value, dict) else {})
        return {
            key: _with_defaults(sub, given.get(key, _MISSING))
            for key, sub in props.items()
            if ALIAS_KEY not in sub
        }
    if value is _MISSING:
        value = copy.deepcopy(node["default"])
    entry = _list_item_schema(node)
    if entry is not None and isinstance(value, list):
        return [_with_defaults(entry, v) for v in value]
    if item is not None:
        return {name: _with_defaults(item, entry) for name, entry in value.items()}
    return value


def _resolve_aliases(props: dict, obj: dict) -> dict:
    """obj with every alias key moved to the key it names (the named key wins: a difference is
    reported by _alias_conflicts)."""
    resolved = dict(obj)
    for key, sub in props.items():
        target = sub.get(ALIAS_KEY)
        if not target or key not in resolved:
            continue
        value = resolved.pop(key)
        section, _, member = target.rpartition(".")
        if not section:
            resolved.setdefault(target, value)
        elif isinstance(resolved.get(section, {}), dict):
            resolved[section] = {member: value, **(resolved.get(section) or {})}
    return resolved


def _member(obj: dict, dotted: str) -> Any:
    """obj's value at a dotted key ("vision.enabled"), _MISSING when absent."""
    node: Any = obj
    for key in dotted.split("."):
        if not isinstance(node, dict) or key not in node:
            return _MISSING
        node = node[key]
    return node


def _list_item_schema(node: dict) -> dict | None:
    """The schema of each element when `node` is a list of objects (browser.vision.models)."""
    items = node.get("items")
    if isinstance(items, dict) and "$ref" in items:
        items = _pointer(items["$ref"])
    return items if isinstance(items, dict) and "properties" in items else None


def _pointer(ref: str) -> dict:
    node = schema()
    for key in ref.removeprefix("#/").split("/"):
        node = node[key]
    return node


def _apply_env_auth(doc: dict, env: Mapping[str, str]) -> None:
    auth = doc["server"]["auth"]
    for key, variable in (("token", "CLAWD_TOKEN"), ("password", "CLAWD_PASSWORD")):
        if auth[key] is None and env.get(variable):
            auth[key] = env[variable]


def _build(cls: type, doc: Mapping, **extra: Any) -> Any:
    """Dataclass `cls` from a schema-shaped mapping: field foo_bar reads key fooBar."""
    hints = typing.get_type_hints(cls)
    kwargs = {
        f.name: _convert(hints[f.name], doc[camel_case(f.name)])
        for f in dataclasses.fields(cls)
        if f.init and camel_case(f.name) in doc
    }
    kwargs.update(extra)
    return cls(**kwargs)


def _convert(hint: Any, value: Any) -> Any:
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return _build(hint, value)
    item_cls = _tuple_item(hint)
    if item_cls is not None and isinstance(value, list):
        return tuple(_build(item_cls, entry) for entry in value)
    if typing.get_origin(hint) is collections.abc.Mapping:
        item_cls = typing.get_args(hint)[1]
        return {name: _build(item_cls, entry, name=name) for name, entry in value.items()}
    if isinstance(value, list):
        return tuple(value)  # frozen dataclasses hold tuples, never shared mutable lists
    return value


def _tuple_item(hint: Any) -> type | None:
    """C for a tuple[C, ...] of dataclasses, else None."""
    if typing.get_origin(hint) is not tuple:
        return None
    args = typing.get_args(hint)
    if args and isinstance(args[0], type) and dataclasses.is_dataclass(args[0]):
        return args[0]
    return None


def camel_case(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def snake_case(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


# -- the public entry points -----------------------------------------------------------------------
def config_from_data(
    data: Any, *, source: str | None = None, env: Mapping[str, str] | None = None
) -> Config:
    """A Config from an already parsed document; every problem raises one ConfigError."""
    env = os.environ if env is None else env
    data = _empty_sections_as_defaults(schema(), data)
    problems = validate(data)
    if problems:
        raise ConfigError(problems, source)
    doc = _with_defaults(schema(), data)
    _apply_env_auth(doc, env)
    return _build(Config, doc, home=state_home(env), source=source)


def load_config(
    path: str | None = None,
    env: Mapping[str, str] | None = None,
    *,
    search_paths: Iterable[str | os.PathLike] | None = None,
) -> Config:
    """Find the file (see find_config_file), read, validate and fill defaults. No file found and
    an empty file both mean built-in defaults."""
    env = os.environ if env is None else env
    found = find_config_file(path, env, search_paths=search_paths)
    if found is None:
        return config_from_data({}, source=None, env=env)
    return config_from_data(read_config_file(found), source=str(found), env=env)


def config_to_dict(config: Config, *, mask_secrets: bool = True) -> dict:
    """The effective configuration in the schema's (camelCase) shape; secrets read "***"."""
    return _to_doc(schema(), config, mask_secrets)


def _to_doc(node: dict, value: Any, mask: bool) -> Any:
    props, item = node.get("properties"), _map_item_schema(node)
    if props is not None:
        return {
            key: _to_doc(sub, getattr(value, snake_case(key)), mask)
            for key, sub in props.items()
            if ALIAS_KEY not in sub
        }
    if item is not None:
        return {name: _to_doc(item, entry, mask) for name, entry in value.items()}
    entry = _list_item_schema(node)
    if entry is not None:
        return [_to_doc(entry, v, mask) for v in value]
    if mask and node.get(SECRET_KEY) and value is not None:
        return SECRET_MASK
    if mask and value and str(node.get("pattern", "")).startswith(URL_PATTERNS):
        return _without_credentials(value)
    return list(value) if isinstance(value, tuple) else value


def secret_values(config: Config) -> list[str]:
    """The values of the configuration's secrets (its x-secret keys: tokens, passwords, API
    keys), for the log to mask wherever they appear (clawd.log.register_secret)."""
    masked, plain = config_to_dict(config), config_to_dict(config, mask_secrets=False)
    return list(dict.fromkeys(_masked_away(masked, plain)))


def _masked_away(masked: Any, plain: Any) -> Iterator[str]:
    if isinstance(masked, dict):
        for key, value in masked.items():
            yield from _masked_away(value, plain[key])
    elif isinstance(masked, list):
        for value, was in zip(masked, plain):
            yield from _masked_away(value, was)
    elif masked == SECRET_MASK and isinstance(plain, str) and plain != SECRET_MASK:
        yield plain


def _without_credentials(url: str | tuple[str, ...]) -> str | list[str]:
    """A URL (or failover list) as GET /profiles shows a cdpUrl: no userinfo, no query."""
    from clawd.cdp.discovery import redact  # at config show only: it brings websocket-client

    return redact(url) if isinstance(url, str) else [redact(u) for u in url]
