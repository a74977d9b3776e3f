"""The Python client of the clawd HTTP service: one method per route, errors as clawd.errors
classes.

It speaks HTTP only (never CDP); the CLI and the agent tool are built on it and so can scripts.
transport.py sends and decodes, api.py has the route methods, act_methods.py the act kinds'."""

from __future__ import annotations

from clawd.client.api import Client
from clawd.client.transport import DEFAULT_URL, ServiceUnreachable, Transport, is_loopback_url

__all__ = ["Client", "DEFAULT_URL", "ServiceUnreachable", "Transport", "is_loopback_url"]
