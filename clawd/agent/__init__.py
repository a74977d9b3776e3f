"""clawd for models: the one `browser` tool (tool.py) and the MCP server that serves it
(mcp_server.py).

Like the CLI, this side speaks HTTP to the service through clawd.client.Client, never CDP.
"""
