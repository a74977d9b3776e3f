"""GET /webmcp/tools and POST /webmcp/call: the tools the tab's pages offer (WebMCP).
Everything a page wrote is untrusted: with wrap=true descriptions and outputs are wrapped and
every other string (names, schemas) has its markers sanitized. The tool policy denies the page's
tools as `webmcp` (all) or `webmcp_<name>` (one)."""

from __future__ import annotations

import json

from clawd.page.webmcp import invoke
from clawd.page.webmcp.registry import registry
from clawd.security.tools import page_tool
from clawd.server.answers import tab_answer
from clawd.server.routing import Request
from clawd.untrusted_fields import as_asked

MAX_WAIT_MS = 30000
LISTED = {"tools[].description": "webmcp tool"}
# a form a call filled (AwaitingSubmit): its values and its button's words are the page's too
CALLED = {
    "output": "webmcp tool output",
    "form.values.*": "webmcp form",
    "form.submit.name": "webmcp form",
}


def list_tools(req: Request) -> dict:
    """The tools the tab's documents offer: {tools: [{name, description, inputSchema, ...}]}.
    With `since` (an earlier answer's `version`) and `waitMs`, it waits for the set to change
    (a long poll: the MCP server's list_changed)."""
    a = req.args
    tab = req.tab()
    found = invoke.tools(tab)
    if a.get("since") is not None and a.get("waitMs"):
        version = registry(tab).wait_changed(a["since"], min(a["waitMs"], MAX_WAIT_MS) / 1000)
        if version != a["since"]:
            found = invoke.tools(tab)
    policy = req.service.tool_policy()
    found = [t for t in found if policy.allowed(page_tool(t.name))]
    forms = invoke.form_refs(tab, found)
    answer = tab_answer(
        tab,
        url=tab.url,
        version=registry(tab).version,
        tools=[t.public(tab.target_id, forms.get(t.key)) for t in found],
    )
    return as_asked(answer, a.get("wrap", False), LISTED)


def call_tool(req: Request) -> dict:
    """Call a tool the page offers: {status, output} and the page's state after it, as an act's.
    A form that waits for its submit (no toolautosubmit) answers status AwaitingSubmit at once,
    with the form as filled and its submit button, for the agent to review and click."""
    a = req.args
    req.service.tool_policy().check(page_tool(a["name"]))  # tools.deny: [webmcp_<name>]
    tab = req.tab()
    timeout_ms = a.get("timeoutMs") or req.config.browser.action_timeout_ms
    data = invoke.call(
        tab,
        req.browser(),
        a["name"],
        a.get("input", {}),
        frame=a.get("frame"),
        timeout=timeout_ms / 1000,
        default_timeout_ms=req.config.browser.action_timeout_ms,
    )
    answer = tab_answer(tab, **data)
    if a.get("wrap", False) and not isinstance(answer.get("output"), (str, type(None))):
        answer["output"] = json.dumps(answer["output"], ensure_ascii=False)  # wrapped as text
    return as_asked(answer, a.get("wrap", False), CALLED)
