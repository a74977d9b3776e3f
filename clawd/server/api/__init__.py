"""The endpoint functions of the HTTP API, one module per resource (server/routes.py)."""
