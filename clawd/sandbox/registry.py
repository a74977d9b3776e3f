"""Every clawd sandbox container on the daemon, found by label (clawd.profile) and name prefix:
what `sandbox ls|rm|logs` and doctor read."""

from __future__ import annotations

from clawd import errors
from clawd.sandbox import engine
from clawd.sandbox.container import CDP_PORT, LABEL_HASH, LABEL_PROFILE, PREFIX, container_name


def _all(client) -> list:
    with engine.translated("listing sandbox containers"):
        found = client.containers.list(all=True, filters={"name": PREFIX})
    return [c for c in found if c.name.startswith(PREFIX)]


def containers() -> list[dict]:
    return [describe(c) for c in _all(engine.client())]


def describe(container) -> dict:
    ports = (container.attrs.get("NetworkSettings") or {}).get("Ports") or {}
    published = ports.get(CDP_PORT) or []
    host_cfg = (container.attrs.get("HostConfig") or {}).get("PortBindings") or {}
    return {
        "name": container.name,
        "profile": container.labels.get(LABEL_PROFILE),
        "state": container.status,
        "configHash": container.labels.get(LABEL_HASH),
        "image": ",".join(container.image.tags) if container.image else None,
        "cdpHostPort": int(published[0]["HostPort"]) if published else None,
        "bindings": [
            {"port": port, "hostIp": b.get("HostIp") or "0.0.0.0", "hostPort": b.get("HostPort")}
            for port, binds in host_cfg.items()
            for b in binds or []
        ],
        "env": dict(
            item.split("=", 1) for item in container.attrs["Config"].get("Env") or [] if "=" in item
        ),
        "networks": list((container.attrs.get("NetworkSettings") or {}).get("Networks") or {}),
    }


def remove(profiles: list[str] | None) -> list[str]:
    client = engine.client()
    wanted = None if profiles is None else {container_name(p) for p in profiles}
    removed = []
    for container in _all(client):
        if wanted is None or container.name in wanted:
            with engine.translated("removing a sandbox container"):
                container.remove(force=True)
            removed.append(container.name)
    return removed


def logs(profile: str, tail: int = 200) -> str:
    import docker.errors

    client = engine.client()
    with engine.translated("reading a sandbox container's log"):
        try:
            container = client.containers.get(container_name(profile))
        except docker.errors.NotFound:
            raise errors.NotFound(f"no sandbox container for profile {profile!r}") from None
        return container.logs(tail=tail).decode("utf-8", "replace")
