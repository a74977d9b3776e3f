"""Watching a page: console, network, request interception, traces, screenshots and PDFs, vision."""
