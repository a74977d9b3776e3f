"""GET /doctor: the service's own diagnosis (clawd/security/doctor.py) over its live config,
state directory and profiles, knowing which cdp ports its own Chromiums hold."""

from __future__ import annotations

from clawd.security import doctor
from clawd.server.routing import Request


def report(req: Request) -> dict:
    service = req.service
    own = frozenset(
        r.profile.cdp_port
        for r in service.running_runtimes()
        if r.process is not None and r.process.alive()
    )
    profiles = [service.profiles.get(name) for name in service.profiles.names()]
    warnings = {
        r.profile.name: r.sandbox.warning
        for r in service.running_runtimes()
        if r.sandbox is not None and r.sandbox.warning
    }
    return doctor.diagnose(
        service.config,
        service.layout,
        profiles=profiles,
        probes=doctor.Probes(own_ports=own, sandbox_warnings=warnings),
        relay=service.relay.status() if service.relay is not None else None,
    )
