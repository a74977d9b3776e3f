"""An act's effect as the agent tool, MCP and the CLI tell it (one short line), and the agent
tool's snapshot after an act: a delta by default, the whole page on request (DESIGN §20)."""

from __future__ import annotations

import pytest

from clawd.agent import render
from clawd.agent.tool import BrowserTool
from tests.unit.test_agent_tool import FakeClient, inner


@pytest.mark.parametrize(
    "effect, line",
    [
        ({"none": True}, "effect: none"),
        (
            {"navigated": {"from": "http://a/", "to": "http://a/next", "status": 200}},
            "effect: navigated to http://a/next (200)",
        ),
        ({"openedTabs": ["t3"], "closedTabs": ["t1"]}, "effect: opened tab t3; closed tab t1"),
        ({"dialog": {"type": "alert", "message": "Hi"}}, 'effect: alert dialog "Hi"'),
        ({"download": "report.csv"}, "effect: download report.csv"),
        ({"value": {"ref": "e5", "before": "", "after": "hello"}}, 'effect: e5 "" -> "hello"'),
        ({"value": {"ref": "e7", "before": False, "after": True}}, "effect: e7 false -> true"),
        ({"focus": "e8"}, "effect: focus e8"),
        (
            {"changed": {"added": 1, "text": 2, "lines": ['+ listitem "Item 201"']}},
            'effect: changed +1 text 2: + listitem "Item 201"',
        ),
    ],
)
def test_each_effect_is_one_short_line(effect, line):
    assert render.effect(effect) == line


def test_an_act_answer_tells_its_effect_under_the_page_line():
    text = render.act({"tabId": "t1", "url": "http://a/", "effect": {"focus": "e2"}})
    assert text.split("\n")[:2] == ["t1 http://a/", "effect: focus e2"]


def test_each_batched_act_tells_its_own_effect():
    answer = {
        "tabId": "t1",
        "results": [
            {"kind": "click", "ok": True, "effect": {"none": True}},
            {"kind": "type", "ok": True, "effect": {"focus": "e3"}},
        ],
    }
    assert render.act(answer).split("\n")[1:] == [
        "- click: ok; effect: none",
        "- type: ok; effect: focus e3",
    ]


def test_a_delta_snapshot_says_it_is_one_and_unchanged_says_so():
    delta = {"tabId": "t1", "url": "http://a/", "delta": True, "snapshot": "+ - button [ref=e9]"}
    assert render.snapshot(delta, 1000).split("\n") == [
        "t1 http://a/ delta: + added, - removed, ~ changed",
        "+ - button [ref=e9]",
    ]
    same = {"tabId": "t1", "url": "http://a/", "unchanged": True, "snapshot": "(unchanged)"}
    assert "unchanged since the last snapshot" in render.snapshot(same, 1000)


def _snapshots(client: FakeClient) -> list[dict]:
    return [kw for name, _, kw in client.calls if name == "snapshot"]


def test_the_snapshot_after_an_act_is_a_delta_and_the_next_one_too_only_after_an_act():
    client = FakeClient(snapshot={"tabId": "t1", "snapshot": "- button [ref=e1]"})
    tool = BrowserTool(client)
    tool.run({"action": "snapshot"})
    tool.run({"action": "act", "kind": "click", "ref": "e1"})
    tool.run({"action": "snapshot"})
    tool.run({"action": "snapshot"})
    assert [kw.get("delta") for kw in _snapshots(client)] == [None, True, None]


def test_delta_false_asks_for_the_whole_page_after_an_act():
    client = FakeClient(snapshot={"tabId": "t1", "snapshot": "- button [ref=e1]"})
    tool = BrowserTool(client)
    tool.run({"action": "act", "kind": "click", "ref": "e1"})
    text = inner(tool.run({"action": "snapshot", "delta": False}).text)
    assert _snapshots(client)[0]["delta"] is False and "- button [ref=e1]" in text
