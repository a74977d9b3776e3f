"""`handoff` and `giveback`: a tab handed to a person (the login, the CAPTCHA, the payment) and
returned; the hand-off prints the live-view link to give them."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, command, route_help


def hand_off(inv: Invocation) -> None:
    result = inv.client.hand_off(inv.args.reason, target_id=inv.target())
    output.emit(inv, result, output.render_fields)


def give_back(inv: Invocation) -> None:
    output.emit(inv, inv.client.give_back(target_id=inv.target()), output.render_fields)


def add_parsers(sub) -> None:
    p = command(
        sub, "handoff", hand_off, "hand the tab to a person until it is given back", tab=True
    )
    p.add_argument("reason", metavar="REASON", help=route_help("POST", "/handoff", "reason"))
    command(sub, "giveback", give_back, "return a handed-off tab to the agent", tab=True)
