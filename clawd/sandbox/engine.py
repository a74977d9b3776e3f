"""The Docker Engine through the `docker` SDK: one client, and Docker's failures turned into
clawd's errors (daemon down -> 503 SANDBOX_UNAVAILABLE with the next step)."""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator

from clawd import __version__, errors

BASE_IMAGE = "clawd-sandbox-base:bookworm"
IMAGE = f"clawd-sandbox-browser:{__version__}"
NEXT_STEP = (
    "install Docker (apt-get install docker.io) and start its daemon (systemctl start docker, "
    "or dockerd &); DOCKER_HOST names a daemon elsewhere"
)
_lock = threading.Lock()
_client = None


def sdk():
    """The docker package, or 503 naming how to get it."""
    try:
        import docker
    except ImportError:
        raise errors.SandboxUnavailable(
            "the Docker SDK is not installed: pip install docker (sandbox profiles need it)"
        ) from None
    return docker


def client():
    """A client of the local daemon (DOCKER_HOST honoured) that answered a ping."""
    global _client
    docker = sdk()
    with _lock:
        if _client is not None:
            with translated():
                _client.ping()
            return _client
        with translated():
            made = docker.from_env(timeout=60)
            made.ping()
        _client = made
        return made


@functools.cache
def _error_types():
    import docker.errors
    import requests

    return docker.errors, requests.exceptions


@contextlib.contextmanager
def translated(what: str = "Docker") -> Iterator[None]:
    """Docker's exceptions as clawd's: unreachable daemon -> SandboxUnavailable, a missing
    image -> SandboxImageMissing, any other API error -> SandboxFailed."""
    derrors, rerrors = _error_types()
    try:
        yield
    except derrors.ImageNotFound as exc:
        raise errors.SandboxImageMissing(
            f"the sandbox image is missing ({_explain(exc)}): run `clawd-browser sandbox build`"
        ) from None
    except derrors.APIError as exc:
        raise errors.SandboxFailed(f"{what}: {_explain(exc)}") from None
    except derrors.DockerException as exc:
        raise errors.SandboxUnavailable(f"Docker does not answer ({exc}); {NEXT_STEP}") from None
    except (rerrors.ConnectionError, ConnectionError, FileNotFoundError) as exc:
        raise errors.SandboxUnavailable(f"Docker does not answer ({exc}); {NEXT_STEP}") from None
    except rerrors.ReadTimeout:
        raise errors.SandboxUnavailable(f"Docker did not answer in time; {NEXT_STEP}") from None


def _explain(exc) -> str:
    explanation = getattr(exc, "explanation", None)
    return str(explanation or exc)


def forget_client() -> None:
    global _client
    with _lock:
        _client = None
