"""`mcp`: serve the agent's tools (browser, web_fetch, web_search; those tools.allow/deny allow) to
an MCP client over stdio (`--tools single|split` for the browser tool).

The service is reached like any command's (--url, --token, cli.url); with --autostart (or
cli.autostart) a local service is started when it does not answer, now and whenever it goes away.
"""

from __future__ import annotations

from clawd import log
from clawd.cli import autostart
from clawd.cli.commands import Invocation, command


def mcp(inv: Invocation) -> int:
    from clawd.agent import mcp_server

    if mcp_server.SDK_MISSING:
        print(f"error: {mcp_server.SDK_MISSING}", file=inv.stderr)
        return 1
    # stdout is the protocol's: everything else goes to stderr, warnings only
    log.configure("warning", stream=inv.stderr)
    revive = _reviver(inv) if autostart.wanted(inv) else None
    if revive is not None:
        _try_start(inv, revive)
    runner = mcp_server.ToolRunner(toolset(inv), revive=revive)
    mcp_server.serve_stdio(runner)
    return 0


def toolset(inv: Invocation):
    """The agent's tools on this invocation's client: the browser tool with the configured nodes
    it can reach, and the web tools, as the tool policy of the configuration allows."""
    from clawd.agent.tool import BrowserTool
    from clawd.agent.toolset import ToolSet
    from clawd.config.model import StateLayout
    from clawd.security.tools import ToolPolicy

    browser = BrowserTool(
        inv.client, nodes=inv.config.nodes, uploads=StateLayout(inv.config.home).uploads
    )
    return ToolSet(
        browser, policy=ToolPolicy.from_config(inv.config.tools), split=inv.args.tools == "split"
    )


def _reviver(inv: Invocation):
    """A fresh tool on a service that answers: started when it does not (loopback URLs only)."""

    def revive():
        if autostart.ensure_for(inv):
            inv.client.close()
            del inv.client  # a new service wrote a new $CLAWD_HOME/auth-token: read it again
        return toolset(inv)

    return revive


def _try_start(inv: Invocation, revive) -> None:
    """Start the service up front so the first call is quick; a failure here is the first call's
    to report, not a reason to leave the MCP client without its server."""
    from clawd import errors

    try:
        revive()
    except (errors.ClawdError, OSError) as exc:
        print(f"clawd mcp: could not start the service: {exc}", file=inv.stderr)


def add_parsers(sub) -> None:
    p = command(sub, "mcp", mcp, "serve clawd as MCP tools over stdio", needs_service=False)
    p.add_argument(
        "--tools",
        choices=("single", "split"),
        default="single",
        help="single: one browser tool with an action field; split: one tool per action",
    )
