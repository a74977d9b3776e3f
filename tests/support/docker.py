"""A real Docker daemon and the sandbox image for the sandbox tests: skipped with a reason when
missing locally, a failure under CI (whose .ci/docker.sh provides both)."""

from __future__ import annotations

import os

import pytest

from clawd import errors


def _missing(reason: str):
    if os.environ.get("CI"):
        pytest.fail(f"{reason} in CI: .ci/docker.sh must provide it")
    pytest.skip(reason)


def require_docker():
    """The SDK client of a daemon that answers, with the sandbox image built."""
    from clawd.sandbox import engine, images

    try:
        client = engine.client()
    except errors.SandboxUnavailable as exc:
        _missing(f"no Docker daemon ({exc.message[:80]})")
    if not images.exists(client, engine.IMAGE):
        _missing(f"the sandbox image {engine.IMAGE} is not built (clawd-browser sandbox build)")
    return client


def gateway_of(client, network: str) -> str:
    from clawd.sandbox.container import _gateway, ensure_network

    return _gateway(ensure_network(client, network))
