"""The agent tool's actions against the routes they call: every field an action offers a model is
a field its route reads, with a JSON type the route's reader takes. (The act action's fields come
from the act table itself: tests/unit/test_acts.py.)"""

from __future__ import annotations

import pytest

from clawd.agent.tool import ACTIONS, EVERYWHERE, FIELDS
from clawd.server.routes import ROUTES
from clawd.server.validation import as_bool, as_list, as_str

ROUTE_OF = {  # action: the route its client method calls
    "start": ("POST", "/start"),
    "open": ("POST", "/tabs/open"),
    "focus": ("POST", "/tabs/focus"),
    "snapshot": ("GET", "/snapshot"),
    "screenshot": ("POST", "/screenshot"),
    "navigate": ("POST", "/navigate"),
    "console": ("GET", "/console"),
    "pdf": ("POST", "/pdf"),
    "upload": ("POST", "/hooks/file-chooser"),
    "dialog": ("POST", "/hooks/dialog"),
}
JSON_TYPE = {as_bool: "boolean", as_str: "string", as_list: "array"}
TOOL_ONLY = {"snapshot": {"mode"}}  # mode=full is the tool's own spelling of the whole tree


def _route(method: str, pattern: str):
    return next(r for r in ROUTES if (r.method, r.pattern) == (method, pattern))


def test_every_action_with_fields_is_mapped_to_its_route():
    with_fields = {name for name, spec in ACTIONS.items() if spec.fields and name != "act"}
    assert with_fields <= set(ROUTE_OF)


@pytest.mark.parametrize("action", sorted(ROUTE_OF))
def test_an_actions_fields_are_fields_of_its_route_with_a_type_it_reads(action):
    route = _route(*ROUTE_OF[action])
    spec = {**(route.body or {}), **(route.query or {})}
    offered = [*ACTIONS[action].fields, *(("targetId",) if ACTIONS[action].tab else ())]
    for name in offered:
        if name in EVERYWHERE or name in TOOL_ONLY.get(action, ()):
            continue
        assert name in spec, f"{action}: {name} is not a field of {route.method} {route.pattern}"
        wanted = JSON_TYPE.get(spec[name].read)
        if wanted is not None:
            assert FIELDS[name]["type"] == wanted, (action, name)
