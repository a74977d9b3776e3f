"""doctor's sandbox checks (docs/architecture.md): Docker answers and the image exists when a
profile needs them; each sandbox container carries the hash label of its current settings, publishes
ports on loopback only, and lets no other container reach its CDP forwarder."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from clawd import errors
from clawd.config.model import ProfileConfig

OK, WARN, ERROR = "ok", "warn", "error"


def checks(profiles: Iterable[ProfileConfig], warnings: dict[str, str] | None = None) -> list:
    """(name, level, detail) triples; nothing when no profile is a sandbox."""
    from clawd.sandbox import engine, images, registry
    from clawd.sandbox.container import config_hash, container_name, image_of

    boxes = [p for p in profiles if p.kind == "sandbox"]
    if not boxes:
        return []
    try:
        client = engine.client()
        found = {row["name"]: row for row in registry.containers()}
    except errors.ClawdError as exc:
        return [("sandbox-docker", ERROR, exc.message)]
    out = [("sandbox-docker", OK, "the Docker daemon answers")]
    for profile in boxes:
        name = f"sandbox-{profile.name}"
        image = image_of(profile)
        if not images.exists(client, image):
            out.append((name, WARN, f"image {image} is missing: run clawd-browser sandbox build"))
            continue
        row = found.get(container_name(profile.name))
        if row is None:
            out.append((name, OK, "no container yet: made on first use"))
            continue
        with engine.translated():
            wanted = config_hash(client.images.get(image).id, profile)
        out.extend(_container_checks(name, row, wanted, (warnings or {}).get(profile.name)))
    return out


def _container_checks(name: str, row: dict, wanted: str, warning: str | None) -> list:
    problems = []
    have = row.get("configHash")
    if not have:
        problems.append((WARN, f"container {row['name']} has no clawd.configHash label"))
    elif have != wanted:
        problems.append(
            (
                WARN,
                warning
                or f"container {row['name']} has a stale config hash: it is "
                "recreated on the next start after 5 idle minutes",
            )
        )
    wide = [b for b in row["bindings"] if b["hostIp"] not in ("127.0.0.1", "::1")]
    if wide:
        where = ", ".join(f"{b['hostIp']}:{b['hostPort']} ({b['port']})" for b in wide)
        problems.append(
            (ERROR, f"container {row['name']} publishes ports beyond loopback: {where}")
        )
    reach = _cdp_reach(row)
    if reach:
        problems.append((WARN, reach))
    if not problems:
        return [(name, OK, f"container {row['name']} {row['state']}, settings current")]
    return [(name, level, detail) for level, detail in problems]


def _cdp_reach(row: dict) -> str | None:
    """Its forwarder's accepted range holds more than one address: other containers on its
    network can drive its browser."""
    raw = row["env"].get("CLAWD_CDP_SOURCE_RANGE", "0.0.0.0/0")
    try:
        net = ipaddress.ip_network(raw, strict=False)
    except ValueError:
        return f"container {row['name']} has an unreadable CDP source range {raw!r}"
    if net.num_addresses > 1:
        return (
            f"container {row['name']}'s CDP is reachable from other containers ({raw}): set "
            "sandbox.cdpSourceRange to the network's gateway (/32), or leave it null"
        )
    return None
