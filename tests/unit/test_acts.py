"""The act table (clawd/acts.py) and what is made of it, without a browser: the server's reading of
act bodies, the page functions it names, the agent tool's and MCP's schemas, the client's methods,
the CLI's commands (each sends a request the table accepts), the man page and the answer text."""

from __future__ import annotations

import argparse
import inspect
import json
from types import SimpleNamespace

import jsonschema
import pytest

from clawd import acts, errors, fields
from clawd.agent import render
from clawd.agent.tool import ACT_REQUIRED, BrowserTool, parameters_schema
from clawd.cli import output
from clawd.cli.parser import build_parser
from clawd.client import Client
from clawd.docs import manpages
from clawd.page.act import actions
from clawd.server import act_request
from clawd.server.api.act import act_answer
from tests.support.cli import run_cli
from tests.unit.test_agent_tool import FakeClient
from tests.unit.test_client import clean_env, fake_service  # noqa: F401  (fixtures)

KINDS = list(acts.KINDS.values())
COMMANDS = [kind for kind in KINDS if kind.command]


def ids(kinds) -> list[str]:
    return [kind.name for kind in kinds]


# -- the table itself -----------------------------------------------------------------------------
def test_the_table_has_the_design_kinds_in_order():
    design = [
        "click",
        "clickCoords",
        "type",
        "press",
        "hover",
        "scrollIntoView",
        "drag",
        "select",
        "fill",
        "resize",
        "wait",
        "evaluate",
        "close",
        "batch",
    ]
    assert [name for name in acts.KINDS if name in design] == design


@pytest.mark.parametrize("kind", KINDS, ids=ids(KINDS))
def test_every_kind_and_field_is_described_and_typed(kind):
    assert kind.help and kind.help[0].islower() and not kind.help.endswith(".")
    names = [p.name for p in kind.params]
    assert len(names) == len(set(names)) and not set(names) & {p.name for p in acts.COMMON}
    for param in kind.params:
        assert isinstance(param.read, fields.Reader) and param.read.words(), param
        assert param.help and not param.help.endswith("."), param
    assert set(kind.needs_one_of) <= set(names)


@pytest.mark.parametrize("kind", KINDS, ids=ids(KINDS))
def test_every_kind_renders_a_valid_json_schema(kind):
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {p.name: p.schema() for p in (*acts.COMMON, *kind.params)},
        "required": [p.name for p in kind.params if p.required],
    }
    jsonschema.Draft202012Validator.check_schema(schema)


def test_every_field_reads_the_sample_its_own_schema_accepts():
    """A reader and its schema agree: a value the schema accepts, the reader reads."""
    for kind in KINDS:
        for param in (*acts.COMMON, *kind.params):
            jsonschema.Draft202012Validator.check_schema(param.schema())
            jsonschema.validate(_sample(param), param.schema())
            assert param.read(_sample(param), param.name, errors.ActInvalidRequest) is not None


def test_snake_and_camel_are_each_others_inverse():
    for name in acts.field_names():
        assert acts.camel(acts.snake(name)) == name
    assert acts.snake("scrollIntoView") == "scroll_into_view"


# -- the page: every kind runs somewhere ----------------------------------------------------------
@pytest.mark.parametrize("kind", KINDS, ids=ids(KINDS))
def test_every_kind_names_a_page_function_that_exists(kind):
    if kind.runs is None:
        assert kind.name == "batch"  # the batch runner runs the others
        return
    handler = actions.HANDLERS[kind.name]
    assert callable(handler) and list(inspect.signature(handler).parameters)[:3] == [
        "ctx",
        "a",
        "page",
    ]


# -- the server: reading act bodies ---------------------------------------------------------------
def _sample(param: acts.Param):
    """A value that the field's reader accepts."""
    samples = [
        (fields.REF, "e1"),
        (fields.STR, "x"),
        (fields.TEXT, "hello"),
        (fields.KEY, "Enter"),
        (fields.BOOL, True),
        (acts.MODIFIER_LIST, ["Shift"]),
        (fields.STRINGS, ["a"]),
        (acts.FILL_FIELDS, [{"ref": "e1", "value": "v"}]),
        (acts.ACTIONS, [{"kind": "wait", "timeMs": 0}]),
        (acts.TIMEOUT, 1000),
    ]
    schema = param.schema()
    if "enum" in schema:
        return schema["enum"][0]
    if schema.get("type") in ("integer", "number"):
        return schema.get("minimum", 1)
    return next(value for reader, value in samples if reader is param.read)


@pytest.mark.parametrize("kind", KINDS, ids=ids(KINDS))
def test_a_body_with_every_field_of_a_kind_is_read(kind):
    body = {
        "kind": kind.name,
        "targetId": "t1",
        "timeoutMs": 100,
        **{p.name: _sample(p) for p in kind.params},
    }
    action = act_request.read(body)
    assert action.kind == kind.name and action.args["timeoutMs"] == acts.MIN_TIMEOUT_MS


@pytest.mark.parametrize(
    "kind",
    [k for k in KINDS if any(p.required for p in k.params)],
    ids=ids(k for k in KINDS if any(p.required for p in k.params)),
)
def test_a_missing_required_field_is_400_naming_it(kind):
    required = sorted(p.name for p in kind.params if p.required)
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read({"kind": kind.name})
    assert f"{required[0]} is required for kind {kind.name}" in caught.value.message


def test_a_field_of_another_kind_is_refused_listing_the_allowed_ones():
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read({"kind": "hover", "ref": "e1", "text": "x"})
    assert caught.value.message == (
        "text: unknown field for kind hover; allowed: kind, profile, ref, targetId, timeoutMs"
    )


def test_a_selector_is_refused_for_every_kind_without_one():
    for kind in KINDS:
        body = {"kind": kind.name, "selector": "#go"}
        if kind.param("selector") is None:
            with pytest.raises(errors.ActSelectorUnsupported):
                act_request.read(body)


@pytest.mark.parametrize(
    "kind",
    [k for k in KINDS if any(p.script for p in k.params)],
    ids=ids(k for k in KINDS if any(p.script for p in k.params)),
)
def test_script_fields_are_403_when_evaluate_is_disabled(kind):
    body = {
        "kind": kind.name,
        **{p.name: _sample(p) for p in kind.params if p.script or p.required},
    }
    with pytest.raises(errors.ActEvaluateDisabled):
        act_request.read(body, evaluate_enabled=False)
    act_request.read(body)


def test_a_kind_that_needs_one_of_its_fields_names_them():
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read({"kind": "wait", "timeoutMs": 500})
    assert caught.value.message == (
        "wait needs at least one of timeMs, text, textGone, selector, url, loadState, fn"
    )


@pytest.mark.parametrize(
    "body, message",
    [
        (
            {"kind": "click", "ref": "e1", "button": ["left"]},
            "button must be one of left, right, middle",
        ),
        ({"kind": "fill", "fields": [{"ref": "e1", "value": 1, "type": ["x"]}]}, "fields[0].type"),
        ({"kind": "select", "ref": "e1", "values": []}, "values must be a non-empty list"),
        ({"kind": "clickCoords", "x": -1, "y": 0}, "x must be at least 0"),
    ],
)
def test_odd_values_are_a_400_naming_the_field_never_a_crash(body, message):
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read(body)
    assert message in caught.value.message


# -- the server: the answer's envelope ------------------------------------------------------------
TAB = SimpleNamespace(target_id="RAW1", tab_id="t1")


def test_an_answer_is_the_page_data_in_the_tab_envelope():
    action = act_request.read({"kind": "click", "ref": "e1"})
    answer = act_answer(
        TAB, action, {"url": "https://a.test/", "title": "A", "dialogs": {"pending": []}}
    )
    assert list(answer.items()) == [
        ("ok", True),
        ("targetId", "RAW1"),
        ("tabId", "t1"),
        ("url", "https://a.test/"),
        ("title", "A"),
        ("dialogs", {"pending": []}),
    ]


def test_a_batch_answer_wraps_each_result_and_is_ok_only_when_all_are():
    action = act_request.read(
        {
            "kind": "batch",
            "actions": [
                {"kind": "wait", "timeMs": 0},
                {"kind": "batch", "actions": [{"kind": "click", "ref": "e1"}]},
            ],
        }
    )
    failed = {"kind": "click", "error": "gone", "code": "REF_STALE", "status": 409}
    data = {
        "url": "u",
        "results": [
            {"kind": "wait", "url": "u", "waited": {"timeMs": 0}},
            {"kind": "batch", "url": "u", "results": [failed]},
        ],
    }
    answer = act_answer(TAB, action, data)
    wait, inner = answer["results"]
    assert answer["ok"] is False and (wait["kind"], wait["ok"], wait["tabId"]) == (
        "wait",
        True,
        "t1",
    )
    assert inner["ok"] is False and inner["results"] == [
        {"kind": "click", "ok": False, "error": "gone", "code": "REF_STALE", "status": 409}
    ]


# -- the agent tool and MCP -----------------------------------------------------------------------
def test_the_agent_schema_offers_every_kind_and_every_field():
    schema = parameters_schema("act")
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["kind"]["enum"] == list(acts.KINDS)
    for kind in KINDS:
        for param in kind.params:
            prop = schema["properties"][param.name]
            assert prop["type"] == param.schema()["type"] and param.help in prop["description"]
    assert ACT_REQUIRED == {k.name: tuple(p.name for p in k.params if p.required) for k in KINDS}


@pytest.mark.parametrize(
    "kind",
    [k for k in KINDS if any(p.required for p in k.params)],
    ids=ids(k for k in KINDS if any(p.required for p in k.params)),
)
def test_the_agent_tool_asks_for_a_kinds_required_fields(kind):
    client = FakeClient()
    result = BrowserTool(client).run({"action": "act", "kind": kind.name})
    missing = [p.name for p in kind.params if p.required]
    assert result.is_error and f"act {kind.name} needs {', '.join(missing)}" in result.text
    assert client.calls == []


def test_the_agent_call_of_every_kind_reaches_client_act():
    client = FakeClient()
    tool = BrowserTool(client)
    for kind in KINDS:
        arguments = {p.name: _sample(p) for p in kind.params}
        assert not tool.run({"action": "act", "kind": kind.name, **arguments}).is_error, kind.name
    assert [call[1][0] for call in client.calls] == list(acts.KINDS)


# -- the client -----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "kind", [k for k in KINDS if k.method], ids=ids(k for k in KINDS if k.method)
)
def test_the_client_has_a_method_for_every_kind_with_its_fields(kind):
    method = getattr(Client, kind.method_name)
    params = inspect.signature(method).parameters
    assert [n for n in params if n != "self"] == [
        *(acts.snake(p.name) for p in sorted(kind.params, key=lambda p: not p.required)),
        "target_id",
        "timeout_ms",
        "profile",
    ]
    assert kind.help in method.__doc__


def test_a_client_method_sends_its_kind_and_refuses_an_unknown_argument(fake_service):
    with Client(fake_service.url) as c:
        c.select("e5", (v for v in ("a", "b")), target_id="t2")
        assert fake_service.last.body == {
            "kind": "select",
            "ref": "e5",
            "values": ["a", "b"],
            "targetId": "t2",
        }
        with pytest.raises(TypeError):
            c.click("e1", colour="red")
    assert "POST /act" not in (Client.close.__doc__ or "")  # the client's own close


# -- the CLI --------------------------------------------------------------------------------------
def _argv(kind: acts.Kind, *, full: bool) -> list[str]:
    """The command line of a kind: its required words, and with full=True every flag too."""
    argv = [kind.command]
    for param in (*kind.params, *acts.COMMON):
        cli = param.cli
        if cli is None or (cli.flag and not full and not param.required):
            continue
        value = _sample(param)
        words = value if isinstance(value, list) else [value]
        if param.read is acts.FILL_FIELDS:
            words = [json.dumps(value)]
        words = [] if param.read is fields.BOOL else [str(w) for w in words]
        argv += ([cli.flag] if cli.flag else []) + words
    return argv


@pytest.mark.parametrize("full", [False, True], ids=["required", "every flag"])
@pytest.mark.parametrize("kind", COMMANDS, ids=ids(COMMANDS))
def test_every_act_command_sends_a_request_the_table_accepts(fake_service, kind, full):
    if kind.needs_one_of and not full:
        pytest.skip("a kind that needs one of its flags has no request without them")
    status, _, err = run_cli("--url", fake_service.url, *_argv(kind, full=full), "--target", "t1")
    assert status == 0, err
    body = fake_service.last.body
    assert body["kind"] == kind.name and body["targetId"] == "t1"
    assert act_request.read(body).kind == kind.name


def test_every_kind_with_a_command_is_a_command_and_its_help_is_the_tables():
    parser = build_parser()
    commands = next(
        action.choices
        for action in parser._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    for kind in COMMANDS:
        sub = commands[kind.command]
        assert sub.description == kind.help and sub.get_default("act_kind") == kind.name


def test_a_kind_that_needs_a_condition_is_a_usage_error_without_one(fake_service):
    status, _, err = run_cli("--url", fake_service.url, "wait", "--timeout-ms", "100")
    assert status == 2 and "wait needs at least one of --time-ms MS" in err
    assert fake_service.requests == []


# -- the man page and the answer text -------------------------------------------------------------
def test_the_man_page_lists_every_kind_with_its_fields():
    page = manpages.pages()["clawd-browser.1"]
    section = page.split(".SS POST /act\n")[1].split(".SH ")[0]
    for kind in KINDS:
        assert f".TP\n{manpages.bold(kind.name)}\n{manpages.text(kind.help)}\n" in section
        for param in kind.params:
            assert manpages.bold(param.name) in section
    for kind in COMMANDS:
        assert f".SS {manpages.literal(kind.command)}\n" in page


def test_answer_fields_of_the_table_are_printed_by_both_renderers():
    result = {
        "tabId": "t1",
        "url": "https://a.test/",
        "title": "A",
        "selected": ["b"],
        "result": 2,
        "results": [{"kind": "click", "ok": True}],
    }
    model, terminal = render.act(result).splitlines(), output.render_act(result).splitlines()
    assert model[0] == 't1 https://a.test/ "A"' and terminal[0] == "t1 https://a.test/  A"
    assert model[1:] == terminal[1:] == ['selected: ["b"]', "result: 2", "- click: ok"]
