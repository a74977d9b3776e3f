"""The tool policy (config `tools: {allow, deny}`): which agent tools (browser, web_fetch,
web_search) are offered and may be called. The agent tool set, the MCP server and the HTTP routes
of the web tier all ask the same ToolPolicy; what each tool does lives elsewhere."""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable

from clawd import errors
from clawd.config.model import ToolsConfig

TOOLS = ("browser", "web_fetch", "web_search")
GROUPS = {"group:web": ("web_search", "web_fetch"), "group:browser": ("browser",)}
# `mcp --tools split` offers browser_<action> tools: they are the browser tool, action by action
_SPLIT_FAMILY = "browser"


class ToolPolicy:
    """Deny wins; an empty allow list allows every tool. Entries are names, `*` wildcards
    (web_*) and groups (group:web, group:browser)."""

    def __init__(self, allow: Iterable[str] = (), deny: Iterable[str] = ()):
        self.allow = tuple(_expand(allow))
        self.deny = tuple(_expand(deny))

    @classmethod
    def from_config(cls, tools: ToolsConfig) -> ToolPolicy:
        return cls(tools.allow, tools.deny)

    def allowed(self, name: str) -> bool:
        if not self.allow and not self.deny:
            return True
        names = _identities(name)
        if any(_matches(pattern, n) for pattern in self.deny for n in names):
            return False
        return not self.allow or any(_matches(p, n) for p in self.allow for n in names)

    def check(self, name: str) -> None:
        """Raise 403 TOOL_DENIED when `name` may not be used."""
        if not self.allowed(name):
            raise errors.ToolDenied(
                f"the tool {name} is not allowed here (tools.allow and "
                "tools.deny of the service's configuration)",
                tool=name,
            )

    def offered(self, names: Iterable[str]) -> list[str]:
        """The allowed ones of `names`, in their order (what a tool list announces)."""
        return [name for name in names if self.allowed(name)]


def _expand(entries: Iterable[str]) -> Iterable[str]:
    """Groups become their members; an unknown group is kept as is and so matches nothing (the
    config schema refuses unknown groups before they get here)."""
    for entry in entries:
        key = str(entry).strip().lower()
        yield from GROUPS.get(key, (key,))


def _identities(name: str) -> tuple[str, ...]:
    """The names a tool answers to: its own, and `browser` for a split browser_<action> tool."""
    key = str(name).strip().lower()
    if key.startswith(_SPLIT_FAMILY + "_"):
        return key, _SPLIT_FAMILY
    return (key,)


def _matches(pattern: str, name: str) -> bool:
    if "*" not in pattern:
        return pattern == name
    # fnmatch's other wildcards ([...], ?) cannot occur: the schema allows letters, digits, _ - *
    return fnmatch.fnmatchcase(name, pattern)


ALLOW_ALL = ToolPolicy()
