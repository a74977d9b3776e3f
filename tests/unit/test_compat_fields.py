"""OpenClaw's request fields (DESIGN.md §17) without a browser: how they are read and validated, and
what the client, the CLI and the agent tool send for them. tests/integration/test_compat_fields.py
shows each doing its work on a real page."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clawd import errors
from clawd.agent.tool import BrowserTool, parameters_schema, snapshot_query
from clawd.browser.tab import TabState
from clawd.client import Client
from clawd.page.observe import tracing
from clawd.page.snapshot.refs import normalize
from clawd.route_fields import as_refs
from clawd.server import act_request
from clawd.server.api.snapshot import options_from
from tests.support.cli import run_cli
from tests.unit.test_agent_tool import FakeClient
from tests.unit.test_client import clean_env, fake_service  # noqa: F401  (fixtures)


# -- bare numeric refs ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "given, ref",
    [
        ("12", "e12"),
        ("@12", "e12"),
        ("ref=12", "e12"),
        ("[ref=12]", "e12"),
        (" 7 ", "e7"),
        ("e12", "e12"),
        ("f1e3", "f1e3"),
        ("ax4", "ax4"),
    ],
)
def test_a_bare_number_normalizes_to_the_e_ref(given, ref):
    assert normalize(given) == ref


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "click", "ref": "12"},
        {"kind": "click", "ref": "@12"},
        {"kind": "drag", "startRef": "3", "endRef": "ref=4"},
        {"kind": "fill", "fields": [{"ref": "5", "value": "x"}]},
        {"kind": "evaluate", "fn": "(el) => el.id", "ref": "9"},
    ],
)
def test_actions_take_bare_numbers_as_refs_not_css(body):
    assert act_request.read(body).kind == body["kind"]


@pytest.mark.parametrize("ref", ["#12", "div", ".e12", "button:nth-child(2)"])
def test_css_is_still_refused_where_a_ref_belongs(ref):
    with pytest.raises(errors.ActSelectorUnsupported):
        act_request.read({"kind": "click", "ref": ref})


# -- press delayMs --------------------------------------------------------------------------------
def test_press_reads_delay_ms_as_click_does():
    assert (
        act_request.read({"kind": "press", "key": "Enter", "delayMs": "250"}).args["delayMs"] == 250
    )
    assert (
        act_request.read({"kind": "press", "key": "Enter", "delayMs": 5000}).args["delayMs"] == 5000
    )


@pytest.mark.parametrize("delay", [5001, -1, "soon", 1.5, True, [10]])
def test_press_with_a_bad_delay_ms_is_act_invalid_request_naming_it(delay):
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read({"kind": "press", "key": "a", "delayMs": delay})
    assert caught.value.http_status == 400 and "delayMs" in caught.value.message


def test_a_batched_press_names_its_delay_ms_with_its_place():
    with pytest.raises(errors.ActInvalidRequest) as caught:
        act_request.read(
            {"kind": "batch", "actions": [{"kind": "press", "key": "a", "delayMs": 9000}]}
        )
    assert "actions[0].delayMs" in caught.value.message


# -- snapshot refs=role|aria ----------------------------------------------------------------------
def snapshot_request(query: dict):
    config = SimpleNamespace(browser=SimpleNamespace(snapshot_defaults=SimpleNamespace(mode=None)))
    return SimpleNamespace(args={}, query=query, config=config)


@pytest.mark.parametrize(
    "value, refs, mode",
    [
        (None, True, "aria"),
        ("true", True, "aria"),
        ("false", False, "aria"),
        ("0", False, "aria"),
        ("aria", True, "aria"),
        ("role", True, "role"),
        ("Role", True, "role"),
    ],
)
def test_snapshot_refs_query_is_on_off_or_how_refs_resolve(value, refs, mode):
    opts = options_from(snapshot_request({} if value is None else {"refs": value}))
    assert (opts.refs, opts.ref_mode) == (refs, mode)


@pytest.mark.parametrize("value", ["roles", "e12", "2", "aria role"])
def test_snapshot_refs_of_another_value_is_400_naming_refs(value):
    with pytest.raises(errors.InvalidRequest) as caught:
        as_refs(value, "refs")
    assert caught.value.http_status == 400
    assert caught.value.message.startswith("refs must be role, aria, true or false")


# -- trace snapshots and sources ------------------------------------------------------------------
class FakeTab:
    tab_id = "t1"

    def __init__(self):
        self.state = TabState(self)
        self.calls: list[tuple[str, dict]] = []
        self.session = SimpleNamespace(
            call=lambda method, params=None, **kw: self.calls.append((method, params))
        )


@pytest.mark.parametrize(
    "options, added, left_out",
    [
        ({}, [], tracing.SNAPSHOTS + tracing.SOURCES + [tracing.SCREENSHOTS]),
        ({"snapshots": True}, tracing.SNAPSHOTS, tracing.SOURCES),
        ({"sources": True}, tracing.SOURCES, tracing.SNAPSHOTS),
        (
            {"screenshots": True, "snapshots": True, "sources": True},
            [tracing.SCREENSHOTS, *tracing.SNAPSHOTS, *tracing.SOURCES],
            [],
        ),
    ],
)
def test_trace_options_add_their_categories(options, added, left_out):
    tab = FakeTab()
    answer = tracing.start(tab, **options)
    ((method, params),) = tab.calls
    included = params["traceConfig"]["includedCategories"]
    assert method == "Tracing.start"
    assert set(added) <= set(included) and not set(left_out) & set(included), included
    assert answer == {
        "tracing": True,
        "screenshots": False,
        "snapshots": False,
        "sources": False,
        **options,
    }


def test_the_categories_are_those_devtools_asks_for():
    assert tracing.SNAPSHOTS == [
        "disabled-by-default-devtools.timeline.layers",
        "disabled-by-default-devtools.timeline.picture",
    ]
    assert tracing.SOURCES == [
        "disabled-by-default-devtools.v8-source-rundown",
        "disabled-by-default-devtools.v8-source-rundown-sources",
    ]


# -- what the client and the CLI send -------------------------------------------------------------
@pytest.mark.parametrize(
    "call, path, body",
    [
        (
            lambda c: c.press("Enter", delay_ms=120),
            "/act",
            {"kind": "press", "key": "Enter", "delayMs": 120},
        ),
        (
            lambda c: c.file_chooser(["a.txt"], element="#file"),
            "/hooks/file-chooser",
            {"paths": ["a.txt"], "element": "#file"},
        ),
        (
            lambda c: c.trace_start(snapshots=True, sources=True),
            "/trace/start",
            {"screenshots": False, "snapshots": True, "sources": True},
        ),
    ],
)
def test_client_sends_the_compat_fields(fake_service, call, path, body):
    with Client(fake_service.url, timeout=5) as c:
        call(c)
    assert (fake_service.last.path, fake_service.last.body) == (path, body)


def test_client_snapshot_sends_refs_role_as_the_query(fake_service):
    fake_service.answer("GET", "/snapshot", {"ok": True, "snapshot": "", "refs": {}})
    with Client(fake_service.url, timeout=5) as c:
        c.snapshot(refs="role")
    assert fake_service.last.query == {"refs": "role"}


def test_cli_snapshot_refs_role_is_sent_as_the_query(fake_service):
    fake_service.answer(
        "GET", "/snapshot", {"ok": True, "snapshot": '- button "OK" [ref=e1]', "stats": {}}
    )
    status, _, err = run_cli("--url", fake_service.url, "snapshot", "--refs", "role")
    assert (status, err) == (0, "")
    assert fake_service.last.query == {"refs": "role"}


def test_cli_snapshot_no_refs_with_refs_role_is_a_usage_error(fake_service):
    status, _, err = run_cli("--url", fake_service.url, "snapshot", "--no-refs", "--refs", "role")
    assert status == 2 and "--no-refs and --refs role" in err
    assert fake_service.requests == []


# -- the agent tool -------------------------------------------------------------------------------
def test_agent_tool_schema_has_the_compat_fields():
    assert parameters_schema("act")["properties"]["delayMs"]["maximum"] == 5000
    assert parameters_schema("upload")["properties"]["element"]["type"] == "string"
    assert parameters_schema("snapshot")["properties"]["refs"]["enum"] == ["aria", "role"]


def test_agent_tool_refuses_another_refs_value():
    result = BrowserTool(FakeClient()).run({"action": "snapshot", "refs": "roles"})
    assert result.is_error and result.code == "INVALID_REQUEST" and "refs" in result.text


def test_agent_tool_sends_the_compat_fields():
    client = FakeClient(snapshot={"ok": True, "snapshot": "", "refs": {}, "url": "about:blank"})
    tool = BrowserTool(client)
    tool.run({"action": "act", "kind": "press", "key": "Enter", "delayMs": 200})
    tool.run({"action": "upload", "paths": ["a.txt"], "element": "#file"})
    tool.run({"action": "snapshot", "refs": "role"})
    sent = {name: kw for name, _, kw in client.calls}
    assert sent["act"]["delay_ms"] == 200
    assert sent["file_chooser"]["element"] == "#file"
    assert sent["snapshot"]["refs"] == "role"
    assert snapshot_query({"refs": "aria"}) == {"refs": "aria"}
