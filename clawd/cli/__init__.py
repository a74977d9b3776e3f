"""The clawd-browser command line: a client of the HTTP service (never of a browser)."""
