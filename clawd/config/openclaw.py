"""`clawd-browser config import-openclaw`: the browser (and its uploads folder), profiles, SSRF
policy, gateway auth, web tools, tool policy and screenshot vision (browser.vision*/models,
tools.media's image models and models.providers' keys) of an OpenClaw config (JSON5, as
~/.openclaw/openclaw.json is written) as a clawd.yaml document, with every key that could not be
carried over named and the reason why."""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from clawd.config import loader

# OpenClaw browser.<key> and browser.profiles.<name>.<key> that mean the same in clawd
BROWSER_KEYS = (
    "enabled",
    "evaluateEnabled",
    "headless",
    "noSandbox",
    "attachOnly",
    "executablePath",
    "extraArgs",
    "color",
    "defaultProfile",
    "cdpPortRangeStart",
    "remoteCdpTimeoutMs",
    "remoteCdpHandshakeTimeoutMs",
    "actionTimeoutMs",
    "maxTabs",
    "snapshotDefaults",
)
SSRF_KEYS = {
    "dangerouslyAllowPrivateNetwork": "dangerouslyAllowPrivateNetwork",
    "allowPrivateNetwork": "dangerouslyAllowPrivateNetwork",
    "allowedHostnames": "allowedHostnames",
    "hostnameAllowlist": "hostnameAllowlist",
    "strict": "strict",
}
_PROFILES = loader.schema()["properties"]["browser"]["properties"]["profiles"]
PROFILE_NAME = re.compile(_PROFILES["propertyNames"]["pattern"])
PROFILE_KEYS = ("cdpPort", "cdpUrl", "color", "attachOnly", "userDataDir")
DRIVERS = {
    "openclaw": "managed",
    "managed": "managed",
    "clawd": "managed",
    "existing-session": "existing-session",
    "remote": "remote",
}
BINDS = {"loopback": "127.0.0.1", "localhost": "127.0.0.1", "lan": "0.0.0.0"}
CONTROL_PORT_OFFSET = 2  # OpenClaw serves browser control on the gateway's port + 2
# Where OpenClaw's users keep the files they upload (its docs' examples): readable for uploads
# once imported, if it is a directory only its owner can change (server/api/uploads.py)
OPENCLAW_UPLOADS = "/tmp/openclaw/uploads"
_PROVIDER = {"apiKey": "apiKey", "baseUrl": "baseUrl", "model": "model"}
# OpenClaw tools.web.<tool>.<key> -> clawd web.<tool>.<key> (a dict: a nested block)
WEB_KEYS = {
    "search": {
        "enabled": "enabled",
        "provider": "provider",
        "apiKey": "brave.apiKey",
        "maxResults": "count",
        "count": "count",
        "timeoutSeconds": "timeoutSeconds",
        "cacheTtlMinutes": "cacheTtlMinutes",
        "country": "country",
        "search_lang": "search_lang",
        "ui_lang": "ui_lang",
        "freshness": "freshness",
        "brave": _PROVIDER,
        "gemini": _PROVIDER,
        "kimi": _PROVIDER,
        "perplexity": _PROVIDER,
        "grok": {**_PROVIDER, "inlineCitations": "inlineCitations"},
    },
    "fetch": {
        "enabled": "enabled",
        "readability": "readability",
        "maxChars": "maxChars",
        "maxResponseBytes": "maxResponseBytes",
        "maxRedirects": "maxRedirects",
        "timeoutSeconds": "timeoutSeconds",
        "cacheTtlMinutes": "cacheTtlMinutes",
        "userAgent": "userAgent",
        "firecrawl": {
            "enabled": "enabled",
            "apiKey": "apiKey",
            "baseUrl": "baseUrl",
            "onlyMainContent": "onlyMainContent",
            "maxAgeMs": "maxAgeMs",
            "proxy": "proxy",
        },
    },
}


# OpenClaw's browser-level vision keys: clawd accepts them by the same names (aliases of
# browser.vision's members)
VISION_KEYS = (
    "visionEnabled",
    "visionPrompt",
    "visionTimeoutMs",
    "visionMaxBytes",
    "visionMaxSide",
)
# OpenClaw provider ids -> clawd's describer providers
VISION_PROVIDERS = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google": "gemini",
    "gemini": "gemini",
    "openrouter": "openrouter",
    "ollama": "ollama",
}
DESCRIBER_KEYS = ("type", "model", "apiKey", "baseUrl", "timeoutMs", "maxTokens", "command", "args")


@dataclass
class Imported:
    document: dict = field(default_factory=dict)
    skipped: list[tuple[str, str]] = field(default_factory=list)  # ("$.json.path", why)
    # models.providers.<id> {apiKey, baseUrl}, for the describers of that provider without them
    provider_settings: dict[str, dict] = field(default_factory=dict)

    def put(self, path: tuple, value: Any) -> None:
        node = self.document
        for key in path[:-1]:
            node = node.setdefault(key, {})
        node[path[-1]] = value

    def skip(self, path: tuple, why: str) -> None:
        self.skipped.append((loader.render_path(path), why))


def parse(text: str) -> Any:
    """OpenClaw's config is JSON5: comments, unquoted keys and trailing commas are allowed."""
    import json5

    return json5.loads(text)


def convert(data: Any) -> Imported:
    """The clawd document for an OpenClaw config, checked against clawd's schema: a value clawd
    refuses is left out and reported, so the result always validates."""
    out = Imported()
    if not isinstance(data, dict):
        out.skip((), "the file is not a JSON object")
        return out
    for key, value in data.items():
        handler = _SECTIONS.get(key)
        if handler is None:
            out.skip((key,), "not a browser, gateway or tools setting: nothing of clawd's")
        else:
            handler(value, out)
    _provider_settings_to_describers(out)
    _drop_refused(out)
    return out


def _browser(browser: Any, out: Imported) -> None:
    if isinstance(browser, dict):
        out.put(("browser", "uploadRoots"), [OPENCLAW_UPLOADS])
    for key, value in _items(browser, ("browser",), out):
        here = ("browser", key)
        if key in BROWSER_KEYS:
            out.put(here, value)
        elif key == "ssrfPolicy":
            _ssrf(value, out)
        elif key == "profiles":
            _profiles(value, out)
        elif key in VISION_KEYS:
            out.put(here, value)
        elif key == "models":
            _describers(value, here, out)
        elif key == "cdpUrl":
            out.put(
                ("browser", "profiles", browser.get("defaultProfile") or "openclaw", "cdpUrl"),
                value,
            )
        else:
            out.skip(here, "no clawd setting of that name")


def _ssrf(policy: Any, out: Imported) -> None:
    for key, value in _items(policy, ("browser", "ssrfPolicy"), out):
        if key in SSRF_KEYS:
            out.put(("browser", "ssrfPolicy", SSRF_KEYS[key]), value)
        else:
            out.skip(("browser", "ssrfPolicy", key), "no clawd setting of that name")


def _profiles(profiles: Any, out: Imported) -> None:
    for name, profile in _items(profiles, ("browser", "profiles"), out):
        here = ("browser", "profiles", name)
        if not PROFILE_NAME.match(str(name)):
            out.skip(here, f"clawd profile names match {PROFILE_NAME.pattern}; rename it")
            continue
        driver = profile.get("driver") if isinstance(profile, dict) else None
        if driver is not None and driver not in DRIVERS:
            why = (
                "clawd has no extension relay yet"
                if driver == "extension"
                else f"no clawd driver {driver!r}"
            )
            out.skip(here, f"driver {driver}: {why}")
            continue
        out.put(here, {})
        if driver is not None:
            out.put(here + ("driver",), DRIVERS[driver])
        for key, value in _items(profile, here, out):
            if key in PROFILE_KEYS:
                out.put(here + (key,), value)
            elif key != "driver":
                out.skip(here + (key,), "no clawd profile setting of that name")


def _gateway(gateway: Any, out: Imported) -> None:
    for key, value in _items(gateway, ("gateway",), out):
        if key == "port" and isinstance(value, int) and not isinstance(value, bool):
            out.put(("server", "port"), value + CONTROL_PORT_OFFSET)
        elif key == "bind" and value in BINDS:
            out.put(("server", "host"), BINDS[value])
        elif key == "auth":
            _auth(value, out)
        else:
            out.skip(("gateway", key), "not a setting of the browser control service")


def _auth(auth: Any, out: Imported) -> None:
    for key, value in _items(auth, ("gateway", "auth"), out):
        if key in ("token", "password"):
            out.put(("server", "auth", key), value)
        elif key != "mode":  # the mode follows from which secret is set
            out.skip(("gateway", "auth", key), "clawd takes a token or a password")


def _tools(tools: Any, out: Imported) -> None:
    for key, value in _items(tools, ("tools",), out):
        if key == "web":
            _web(value, out)
        elif key == "media":
            _media(value, out)
        elif key in ("allow", "deny") and isinstance(value, list):
            _tool_list(key, value, out)
        else:
            out.skip(("tools", key), "not a setting of the browser or web tools")


def _web(web: Any, out: Imported) -> None:
    for key, value in _items(web, ("tools", "web"), out):
        table = WEB_KEYS.get(key)
        if table is None:
            out.skip(("tools", "web", key), "no clawd web tool of that name")
            continue
        for sub, item in _items(value, ("tools", "web", key), out):
            _web_key(("tools", "web", key, sub), ("web", key), table, sub, item, out)


def _web_key(
    source: tuple, section: tuple, table: dict, key: str, value: Any, out: Imported
) -> None:
    target = table.get(key)
    if isinstance(target, dict) and isinstance(value, dict):  # a provider or firecrawl block
        for sub, item in value.items():
            _web_key(source + (sub,), section + (key,), target, sub, item, out)
    elif isinstance(target, str):
        out.put(section + tuple(target.split(".")), value)
    else:
        out.skip(source, "no clawd setting of that name")


def _tool_list(key: str, entries: list, out: Imported) -> None:
    """Entries naming clawd's tools (browser, web_fetch, web_search, their groups, wildcards that
    match one) carry over; others name OpenClaw tools clawd does not have."""
    kept = [e for e in entries if isinstance(e, str) and _names_a_clawd_tool(e)]
    for entry in entries:
        if entry not in kept:
            out.skip(
                ("tools", key),
                f"{entry!r} names no tool of clawd's (browser, web_fetch, web_search)",
            )
    if kept:
        out.put(("tools", key), kept)
    elif key == "allow" and entries:  # an allow list of other tools allows none of ours
        out.put(("tools", "deny"), ["*"])


def _names_a_clawd_tool(entry: str) -> bool:
    if entry in ("group:web", "group:browser"):
        return True
    return any(
        fnmatch.fnmatchcase(tool, entry.lower()) for tool in ("browser", "web_fetch", "web_search")
    )


# -- screenshot vision ---------------------------------------------------------------------------
def _describers(entries: Any, source: tuple, out: Imported) -> None:
    """OpenClaw model entries as browser.models describers, in their order; entries for other
    media (audio, video) or providers clawd has no describer for are named and left out."""
    if not isinstance(entries, list):
        out.skip(source, f"expected a list, found {type(entries).__name__}")
        return
    kept = out.document.setdefault("browser", {}).setdefault("models", [])
    for index, entry in enumerate(entries):
        converted = _describer(entry, source + (index,), out)
        if converted is not None:
            kept.append(converted)


def _describer(entry: Any, here: tuple, out: Imported) -> dict | None:
    if not isinstance(entry, dict):
        out.skip(here, f"expected an object, found {type(entry).__name__}")
        return None
    capabilities = entry.get("capabilities")
    if isinstance(capabilities, list) and "image" not in capabilities:
        out.skip(here, "not an image model: clawd describes only screenshots")
        return None
    provider = entry.get("provider")
    if entry.get("type", "provider") == "provider" and provider not in VISION_PROVIDERS:
        out.skip(here, f"clawd has no describer for provider {provider!r}")
        return None
    if not entry.get("model" if entry.get("type", "provider") == "provider" else "command"):
        out.skip(here, "clawd needs the model (or a cli entry's command) named in the entry")
        return None
    converted = {"provider": VISION_PROVIDERS[provider]} if provider is not None else {}
    for key, value in entry.items():
        if key in DESCRIBER_KEYS:
            converted[key] = value
        elif key == "timeoutSeconds" and isinstance(value, (int, float)):
            converted["timeoutMs"] = int(value * 1000)
        elif key not in ("provider", "capabilities"):
            out.skip(here + (key,), "no clawd describer setting of that name")
    return converted


def _media(media: Any, out: Imported) -> None:
    """tools.media: its image models describe screenshots in OpenClaw too (its browser docs)."""
    for key, value in _items(media, ("tools", "media"), out):
        if key == "models":
            _describers(value, ("tools", "media", "models"), out)
        elif key == "image":
            _media_image(value, out)
        else:
            out.skip(("tools", "media", key), "clawd describes only screenshots")


_MEDIA_IMAGE = {"enabled": "visionEnabled", "prompt": "visionPrompt"}


def _media_image(image: Any, out: Imported) -> None:
    for key, value in _items(image, ("tools", "media", "image"), out):
        here = ("tools", "media", "image", key)
        if key in _MEDIA_IMAGE:
            out.put(("browser", _MEDIA_IMAGE[key]), value)
        elif key == "timeoutSeconds" and isinstance(value, (int, float)):
            out.put(("browser", "visionTimeoutMs"), int(value * 1000))
        elif key == "models":
            _describers(value, here, out)
        elif key == "maxBytes":
            out.skip(here, "a limit on the input image; clawd scales screenshots to visionMaxSide")
        elif key == "maxChars":
            out.skip(here, "clawd caps descriptions in bytes: browser.visionMaxBytes")
        else:
            out.skip(here, "no clawd vision setting of that name")


def _models(models: Any, out: Imported) -> None:
    """models.providers.<id>.{apiKey, baseUrl}: where OpenClaw keeps describers' credentials."""
    for key, value in _items(models, ("models",), out):
        if key != "providers":
            out.skip(("models", key), "clawd uses only the providers' apiKey and baseUrl")
            continue
        for name, settings in _items(value, ("models", "providers"), out):
            here = ("models", "providers", name)
            if name not in VISION_PROVIDERS:
                out.skip(here, "clawd has no describer for that provider")
                continue
            for sub, item in _items(settings, here, out):
                if sub in ("apiKey", "baseUrl"):
                    out.provider_settings.setdefault(VISION_PROVIDERS[name], {})[sub] = item
                else:
                    out.skip(here + (sub,), "clawd uses only apiKey and baseUrl")


def _provider_settings_to_describers(out: Imported) -> None:
    browser = out.document.get("browser")
    describers = browser.get("models") if isinstance(browser, dict) else None
    if not isinstance(describers, list):
        return
    if not describers:
        del browser["models"]
        return
    for entry in describers:
        for key, value in out.provider_settings.get(entry.get("provider"), {}).items():
            entry.setdefault(key, value)


_SECTIONS = {"browser": _browser, "gateway": _gateway, "tools": _tools, "models": _models}


def _items(value: Any, path: tuple, out: Imported) -> Iterator[tuple[str, Any]]:
    if not isinstance(value, dict):
        out.skip(path, f"expected an object, found {type(value).__name__}")
        return
    yield from value.items()


def _drop_refused(out: Imported) -> None:
    """Leave out what clawd refuses, and say why: the value a problem names, or the nearest
    enclosing one that is there (`cdpUrl` required on a remote profile: the profile goes)."""
    for _ in range(500):  # each round removes one value: bounded by the document's size
        _settle_default_profile(out)
        problems = loader.problems_of(out.document)
        if not problems:
            return
        path, message = problems[0]
        removed = _remove(out.document, path)
        out.skip(removed, f"clawd refuses it: {message}")
    raise AssertionError(f"the imported document does not settle: {loader.validate(out.document)}")


def _settle_default_profile(out: Imported) -> None:
    """clawd's default profile is `clawd`, OpenClaw's `openclaw`: with profiles but no default among
    them, the default is `openclaw` when imported, else the first profile."""
    browser = out.document.get("browser")
    profiles = browser.get("profiles") if isinstance(browser, dict) else None
    if not isinstance(profiles, dict) or not profiles or browser.get("defaultProfile") in profiles:
        return
    chosen = "openclaw" if "openclaw" in profiles else next(iter(profiles))
    if "defaultProfile" in browser:
        out.skip(
            ("browser", "defaultProfile"),
            f"names no imported profile; {chosen!r} is the default instead",
        )
    browser["defaultProfile"] = chosen


def _remove(document: dict, path: tuple) -> tuple:
    """Delete the longest prefix of `path` present in `document` (never the root); that prefix."""
    node, present = document, ()
    for key in path:
        in_list = isinstance(node, list) and isinstance(key, int) and 0 <= key < len(node)
        if not in_list and (not isinstance(node, dict) or key not in node):
            break
        present, node = present + (key,), node[key]
    if not present:  # a problem outside what we wrote (none is known): keep nothing doubtful
        document.clear()
        return ()
    parent = document
    for key in present[:-1]:
        parent = parent[key]
    del parent[present[-1]]
    return present
