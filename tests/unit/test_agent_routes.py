"""One request schema per route (clawd/route_fields.py): the server reads requests with it, and the
agent tool's and the web tools' JSON Schemas are made from it. These tests hold the pieces
together: every declaration belongs to a route, every action names the route its client method
really calls, and a schema narrowed for a model takes nothing its route refuses. (The act
action's fields come from the act table itself: tests/unit/test_acts.py.)"""

from __future__ import annotations

import pytest

from clawd import errors, route_fields
from clawd.agent.schema import ACTIONS, FIELDS, TOOL_FIELDS, object_schema
from clawd.agent.tool import BrowserTool
from clawd.agent.web_tools import FETCH_SCHEMA, SEARCH_SCHEMA
from clawd.client import Client
from clawd.page.observe import console
from clawd.server.routes import ROUTES

ROUTED = sorted(name for name, spec in ACTIONS.items() if spec.route)
ARGS = {  # the least each action needs to reach the service
    "open": {"url": "http://127.0.0.1:1/"},
    "focus": {"targetId": "t1"},
    "navigate": {"url": "http://127.0.0.1:1/"},
    "upload": {"paths": ["a.txt"]},
    "dialog": {"accept": True},
    "handoff": {"reason": "log in"},
    "webmcp": {"tool": "add"},  # a call; without tool it lists (GET /webmcp/tools)
}


class _Answer:
    status_code = 200
    headers: dict = {}

    def json(self):
        return {"ok": True}


class RecordingSession:
    """requests.Session's `request` as the client transport calls it: records (method, path)."""

    trust_env = False

    def __init__(self):
        self.headers: dict = {}
        self.sent: list[tuple[str, str]] = []

    def request(self, method, url, **_):
        self.sent.append((method, url.split("127.0.0.1:18791", 1)[1]))
        return _Answer()

    def close(self):
        pass


def _matches(pattern: str, path: str) -> bool:
    route = next(r for r in ROUTES if r.pattern == pattern)
    return route.regex.match(path) is not None


def test_every_declared_route_fields_entry_belongs_to_a_route_and_the_route_reads_it():
    routes = {(r.method, r.pattern): r for r in ROUTES}
    for key, declared in route_fields.FIELDS.items():
        assert key in routes, f"{key} declares fields but there is no such route"
        assert (routes[key].body, routes[key].query) == (declared.body, declared.query), key


@pytest.mark.parametrize("action", ROUTED)
def test_an_action_calls_the_route_its_schema_comes_from(action):
    session = RecordingSession()
    tool = BrowserTool(Client("http://127.0.0.1:18791", token="t", session=session))
    tool.run({"action": action, **ARGS.get(action, {})})
    method, pattern = ACTIONS[action].route
    assert session.sent, f"{action} sent nothing"
    assert session.sent[0][0] == method and _matches(pattern, session.sent[0][1]), session.sent


@pytest.mark.parametrize("action", ROUTED)
def test_an_actions_fields_are_its_routes_or_the_tools_own(action):
    spec = ACTIONS[action]
    read = spec.route_fields()
    for name in spec.fields:
        assert name in read or name in TOOL_FIELDS, f"{action}: {name} is not a field of its route"


def _samples(schema: dict) -> list:
    """Values a schema takes at its edges: its choices, its bounds."""
    if "enum" in schema:
        return list(schema["enum"])
    return [schema[k] for k in ("minimum", "maximum") if k in schema]


@pytest.mark.parametrize(
    "action, name", [(a, n) for a, spec in ACTIONS.items() for n in spec.narrow]
)
def test_a_field_narrowed_for_a_model_takes_only_what_its_route_reads(action, name):
    declared = ACTIONS[action].route_fields()[name]
    narrowed = FIELDS[name]
    for value in _samples(narrowed) or [True, False]:
        declared.read(value, name)  # a 400 here: the tool offers what the route refuses


def test_documented_choices_are_the_ones_the_page_layer_judges():
    assert list(route_fields.CONSOLE_LEVELS) == list(console.LEVELS)
    for level in route_fields.CONSOLE_LEVELS:
        console.parse_level(level)
    with pytest.raises(errors.InvalidRequest):
        console.parse_level("loud")


def test_the_web_tools_schemas_are_their_routes_fields_less_wrap():
    assert FETCH_SCHEMA == object_schema(
        "POST", "/web/fetch", [n for n in route_fields.FETCH_BODY if n != "wrap"]
    )
    offered = set(SEARCH_SCHEMA["properties"])
    declared = {n for n, f in route_fields.SEARCH_BODY.items() if f.alias_of is None}
    assert offered == declared - {"wrap"}
    assert SEARCH_SCHEMA["properties"]["count"] == {
        "type": "integer",
        "minimum": 1,
        "maximum": 10,
        "description": "How many results (default 5).",
    }


def test_a_fields_description_says_what_each_action_does_with_it():
    assert FIELDS["url"]["description"].startswith("open, navigate: http(s) URL.")
    assert FIELDS["ref"]["description"].startswith(
        "screenshot: element ref (e12) of the element to capture alone. "
        "upload: ref of the button that opens the file chooser."
    )
    assert ACTIONS["focus"].required == ("targetId",)
    assert ACTIONS["act"].required == ("kind",)
