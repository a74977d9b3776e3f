"""The tools an agent gets: `browser` (or one `browser_<action>` tool per action) beside
`web_fetch` and `web_search`, those the tool policy allows, each with its name, description and
JSON Schema, and running a call by name. The MCP server and agent loops use this one list."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from clawd import errors
from clawd.agent.tool import (
    ACTIONS,
    TOOL_NAME,
    BrowserTool,
    ToolResult,
    action_of_tool,
    error_result,
    parameters_schema,
    tool_description,
)
from clawd.agent.web_tools import web_tools
from clawd.security.tools import ALLOW_ALL, ToolPolicy


@dataclass(frozen=True)
class Listed:
    name: str
    description: str
    schema: dict


class ToolSet:
    def __init__(
        self, browser: BrowserTool, *, policy: ToolPolicy = ALLOW_ALL, split: bool = False
    ):
        self.browser = browser
        self.policy = policy
        self.split = split
        self.web = {tool.name: tool for tool in web_tools(browser.client, policy)}

    def listed(self) -> list[Listed]:
        """What is announced: the allowed tools only, the browser's allowed actions only (the
        single tool's action enum, or one split tool each)."""
        actions = self.policy.browser_actions()
        if not self.split:
            every = len(actions) == len(ACTIONS)  # the shared schema, unless actions are denied
            offered = None if every else actions
            browser = [
                Listed(
                    TOOL_NAME,
                    tool_description(actions=offered),
                    parameters_schema(actions=offered),
                )
            ]
        else:
            browser = [
                Listed(f"{TOOL_NAME}_{a}", tool_description(a), parameters_schema(a))
                for a in actions
            ]
        web = [Listed(t.name, t.description, t.parameters_schema()) for t in self.web.values()]
        return [tool for tool in browser + web if self.policy.allowed(tool.name)]

    def run(self, name: str, arguments: dict | None) -> ToolResult:
        """One call by tool name; a tool or browser action the policy denies answers TOOL_DENIED
        (`browser` with action act as browser_act does), an unknown one INVALID_REQUEST, both as
        results (a call never raises to the model)."""
        try:
            self.policy.check(name)
            if name in self.web:
                return self.web[name].run(arguments)
            return self.browser.run(arguments, action=action_of_tool(name), policy=self.policy)
        except errors.ClawdError as exc:
            return error_result(exc.code, exc.message)


ToolSetFactory = Callable[[], ToolSet]
