"""WebMCP: the tools a page registers for agents (`document.modelContext.registerTool`, or a
`<form toolname=...>`), kept per tab from the CDP WebMCP domain's events (registry.py) and called
through it (invoke.py). docs/architecture.md ("WebMCP") says how, and what Chromium 156 was
measured to do."""
