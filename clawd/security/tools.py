"""The tool policy (config `tools: {allow, deny}`): which agent tools (browser, web_fetch,
web_search) are offered and may be called, the browser tool action by action (browser_<action>).
The agent tool set, the MCP server and the HTTP routes all ask the same ToolPolicy; what each tool
does lives elsewhere."""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Mapping

from clawd import errors
from clawd.config.model import ToolsConfig

TOOLS = ("browser", "web_fetch", "web_search")
GROUPS = {"group:web": ("web_search", "web_fetch"), "group:browser": ("browser",)}
# The browser tool is its actions: browser_<action> is one of them (what `mcp --tools split`
# offers as a tool, what each HTTP route of the browser is tagged with), `browser` all of them.
BROWSER = "browser"
WEBMCP = "webmcp"  # the page's own tools: the browser tool's webmcp action
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
# POST /tabs/action does what four actions do, by its body's `action` (the CLI's `tab` command)
_BODY_ACTIONS = {
    ("POST", "/tabs/action"): (
        "action",
        {"list": "tabs", "new": "open", "close": "close", "select": "focus"},
    )
}


def action_tool(action: str) -> str:
    """The policy's name of one browser action: browser_act."""
    return f"{BROWSER}_{action}"


@functools.cache
def _declared_actions() -> tuple[str, ...]:
    """The browser tool's actions, as the agent tool declares them (read on first use: the
    service needs the list only for a policy that names actions)."""
    from clawd.agent.schema import ACTIONS

    return tuple(ACTIONS)


class ToolPolicy:
    """Deny wins; an empty allow list allows every tool. Entries are names, `*` wildcards
    (web_*, browser_*) and groups (group:web, group:browser). `browser` denied denies each of its
    actions; `browser` is allowed while one of its actions is (the tool is then offered with those
    actions only), and browser_<action> is checked at every call."""

    def __init__(self, allow: Iterable[str] = (), deny: Iterable[str] = ()):
        self.allow = tuple(_expand(allow))
        self.deny = tuple(_expand(deny))

    @classmethod
    def from_config(cls, tools: ToolsConfig) -> ToolPolicy:
        return cls(tools.allow, tools.deny)

    def allowed(self, name: str) -> bool:
        if not self.allow and not self.deny:
            return True
        if str(name).strip().lower() == BROWSER:
            return bool(self.browser_actions())
        return self._allowed(_identities(name))

    def browser_actions(self) -> list[str]:
        """The browser tool's actions this policy allows, in their declared order."""
        actions = _declared_actions()
        if not self.allow and not self.deny:
            return list(actions)
        return [a for a in actions if self._allowed(_identities(action_tool(a)))]

    def _allowed(self, names: tuple[str, ...]) -> bool:
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


def page_tool(name: str) -> str:
    """The policy's (and MCP's) name of one page tool: webmcp_<name>, sanitized to the letters,
    digits, _ and - a policy entry and an MCP tool name may hold."""
    return f"{WEBMCP}_{_UNSAFE.sub('_', str(name))}"[:64]


def body_tool(method: str, pattern: str, args: Mapping) -> str | None:
    """The tool name a request of a route whose action is in its body is checked as, once the
    body is read (POST /tabs/action {action: new} is browser_open); None for other routes."""
    found = _BODY_ACTIONS.get((method, pattern))
    if found is None:
        return None
    field, actions = found
    action = actions.get(args.get(field))
    return action_tool(action) if action is not None else BROWSER


def _expand(entries: Iterable[str]) -> Iterable[str]:
    """Groups become their members; an unknown group is kept as is and so matches nothing (the
    config schema refuses unknown groups before they get here)."""
    for entry in entries:
        key = str(entry).strip().lower()
        yield from GROUPS.get(key, (key,))


def _identities(name: str) -> tuple[str, ...]:
    """The names a tool answers to: its own, and `browser` for a browser_<action>. The page's
    tools (WebMCP) answer to `webmcp` too: `webmcp_<name>` (one page tool, as MCP offers it) is
    the webmcp action's, so denying `webmcp` or `browser_webmcp` denies every page tool."""
    key = str(name).strip().lower()
    if key.startswith(WEBMCP + "_"):
        return key, WEBMCP, action_tool(WEBMCP), BROWSER
    if key == action_tool(WEBMCP):
        return key, WEBMCP, BROWSER
    if key.startswith(BROWSER + "_"):
        return key, BROWSER
    return (key,)


def _matches(pattern: str, name: str) -> bool:
    if "*" not in pattern:
        return pattern == name
    # fnmatch's other wildcards ([...], ?) cannot occur: the schema allows letters, digits, _ - *
    return fnmatch.fnmatchcase(name, pattern)


ALLOW_ALL = ToolPolicy()
