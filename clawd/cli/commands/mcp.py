"""`mcp`: serve clawd's tools to an MCP client over stdio (not wired yet)."""
from __future__ import annotations

from clawd.cli.commands import Invocation


def mcp(inv: Invocation) -> int:
    # TODO(lead): wire the MCP server here (clawd.mcp, tools per --tools single|split).
    print("not implemented yet", file=inv.stderr)
    return 1
