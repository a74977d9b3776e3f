#!/usr/bin/env python3
"""Characters an agent reads per task (issue 38, DESIGN §20): the widget zoo's tasks
(tests/support/zoo.py) and scripted steps on fixture pages, done twice on the same service, as the
agent tool renders them (clawd/agent/render.py): with a full snapshot after every act, and with
each act's `effect` line and a snapshot delta after it. Both agents find each step's ref in what
they have read (the delta agent in its first snapshot with every delta applied), and a task
counts as done only when the page's own state says so.
Usage: bench/agent_steps.py [--json OUT] [--only KEY] [--agent-browser]"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import re
import subprocess
import time

import agent_browser
from common import ROOT, Site, print_table, start_service, write_json

from clawd import errors
from clawd.agent import render
from clawd.agent.schema import MAX_SNAPSHOT_CHARS
from tests.support import widgets, zoo
from tests.support.page_eval import wait_until
from tests.support.site import answer

# Tasks on a page of ours with a long list (200 items), as steps of the zoo's shape
PAGE_TASKS = (
    zoo.Task(
        "long-list",
        "A long list: add three items, remove one, save",
        "../effects/page.html",
        (
            zoo.click("button", "Add item"),
            zoo.click("button", "Add item"),
            zoo.click("button", "Add item"),
            zoo.click("button", "Remove item"),
            zoo.click("button", "Save"),
        ),
        "[items.children.length, document.getElementById('status').textContent]",
        [202, "Saved"],
    ),
    zoo.Task(
        "form",
        "A form: type a name, tick a box, open the menu",
        "../effects/page.html",
        (
            zoo.Step("type", zoo.Target("textbox", "Name"), {"text": "Ana"}),
            zoo.click("checkbox", "Agree"),
            zoo.click("button", "Menu"),
        ),
        "[document.getElementById('name').value, document.getElementById('agree').checked]",
        ["Ana", True],
    ),
)


# the shared documents sit next to the checkout, or where CLAWD_CORPUS says (bench/snapshot.py)
CORPUS = pathlib.Path(os.environ.get("CLAWD_CORPUS") or ROOT.parent / "shared" / "corpus") / "pages"
CORPUS_PAGES = (
    "readability-wikipedia.html",
    "readability-guardian-1.html",
    "readability-nytimes-1.html",
    "readability-engadget.html",
    "readability-yahoo-2.html",
    "readability-msn.html",
)


def corpus_tasks(site) -> list[zoo.Task]:
    """On real pages (the snapshot corpus, served as they are): three Tab presses, as an agent
    moving through a page's links and fields does; done when something has the focus."""
    tab = zoo.Step("press", fields={"key": "Tab"})
    return [
        zoo.Task(
            name.removeprefix("readability-").removesuffix(".html"),
            f"{name}: Tab three times",
            "/corpus/" + name,
            (tab, tab, tab),
            "document.activeElement !== document.body",
            True,
        )
        for name in CORPUS_PAGES
        if (CORPUS / name).exists()
    ]


def serve_corpus(site) -> None:
    for name in CORPUS_PAGES:
        path = CORPUS / name
        if path.exists():
            body = path.read_bytes()
            site.route("/corpus/" + name, lambda h, body=body: answer(h, body=body))


class Reader:
    """An agent that reads what the tool renders and counts the characters; `delta`: it reads
    each act's effect line and a delta snapshot after it, else a full snapshot and no effect."""

    def __init__(self, client, tab_id: str, *, delta: bool):
        self.client, self.tab_id, self.delta = client, tab_id, delta
        self.chars = 0
        self.view = ""  # the page as this agent knows it: what it read, deltas applied

    def look(self, *, first: bool = False) -> str:
        body = self.client.snapshot(target_id=self.tab_id, delta=(self.delta and not first) or None)
        self.chars += len(render.snapshot(body, MAX_SNAPSHOT_CHARS))
        self.view = apply(self.view, body)
        return self.view

    def act(self, step: zoo.Step) -> None:
        fields = dict(step.fields)
        if step.target is not None:
            fields["ref"] = self.ref(step.target)
        answer = self.client.act(step.kind, target_id=self.tab_id, **fields)
        if not self.delta:
            answer.pop("effect", None)  # today's answer, without the effect
        self.chars += len(render.act(answer))
        self.look()

    def ref(self, target: zoo.Target) -> str:
        """The target's ref in the agent's view; new snapshots while it is not there (a fade)."""
        deadline = time.monotonic() + zoo.LOOK_FOR
        ref = zoo.find_ref(self.view, target)
        while ref is None and time.monotonic() < deadline:
            ref = zoo.find_ref(self.look(), target)
        if ref is None:
            raise LookupError(f"no line shows {target}")
        return ref


REF = re.compile(r"\[ref=([a-z0-9]+)\]")


def apply(view: str, body: dict) -> str:
    """The agent's view after reading `body`: a full snapshot replaces it, a delta edits it (a
    changed line in place, a removed line out, an added line after its parent's last child)."""
    if body.get("unchanged"):
        return _renamed(view, body.get("renamed") or {})
    if not body.get("delta"):
        return body["snapshot"]
    lines = _renamed(view, body.get("renamed") or {}).split("\n")
    for entry in body.get("changed", []):
        lines = [_replace(line, entry) for line in lines]
    gone = {entry["line"] for entry in body.get("removed", [])}
    lines = [line for line in lines if line.strip() not in gone]
    for entry in body.get("added", []):
        lines = _insert(lines, entry)
    return "\n".join(lines)


def _renamed(view: str, renamed: dict) -> str:
    return REF.sub(lambda m: f"[ref={renamed.get(m.group(1), m.group(1))}]", view)


def _replace(line: str, entry: dict) -> str:
    if f"[ref={entry['ref']}]" not in line:
        return line
    return line[: len(line) - len(line.lstrip())] + entry["line"]


def _insert(lines: list[str], entry: dict) -> list[str]:
    parent = entry.get("parent")
    at = next((i for i, line in enumerate(lines) if line.strip() == parent), None)
    if at is None:
        return [*lines, entry["line"]]
    depth = len(lines[at]) - len(lines[at].lstrip()) + 2
    end = at + 1
    while end < len(lines) and len(lines[end]) - len(lines[end].lstrip()) >= depth:
        end += 1
    return [*lines[:end], " " * depth + entry["line"], *lines[end:]]


def run(client, site, task: zoo.Task, *, delta: bool) -> dict:
    """One task by one agent: characters read, acts, done."""
    path = task.page if task.page.startswith("/") else zoo.PAGES + task.page
    tab = client.open(site.url(path))
    agent = Reader(client, tab["tabId"], delta=delta)
    done = False
    try:
        agent.look(first=True)
        for step in task.steps:
            agent.act(step)
        done = _checked(client, tab["tabId"], task)
    except (errors.ClawdError, LookupError) as exc:
        print(f"  {task.key} ({'delta' if delta else 'full'}): {type(exc).__name__}: {exc}")
    finally:
        client.close_tab(tab["tabId"])
    return {"chars": agent.chars, "acts": len(task.steps), "done": done}


# -- agent-browser's `snapshot --delta` on the same steps ----------------------------------------
def run_agent_browser(cli: list[str], site, task: zoo.Task) -> dict:
    """The task's steps with agent-browser: `snapshot --delta` after every act (its first is
    full), refs found in its first snapshot (its refs hold across snapshots); characters read =
    what its CLI printed after each command."""

    def say(*args: str) -> str:
        return agent_browser.say(cli, *args)

    path = task.page if task.page.startswith("/") else zoo.PAGES + task.page
    say("open", site.url(path))
    first = say("snapshot", "--delta", "--full")
    chars = len(first)
    for step in task.steps:
        args = [step.kind]
        if step.target is not None:
            ref = zoo.find_ref(first, step.target)
            if ref is None:
                return {"chars": chars, "acts": len(task.steps), "done": False}
            args.append("@" + ref)
        args += [str(v) for v in step.fields.values()]
        chars += len(say(*args)) + len(say("snapshot", "--delta"))
    check = say("eval", f"JSON.stringify({task.check})").strip()
    done = _parsed(check) == task.expect
    return {"chars": chars, "acts": len(task.steps), "done": done}


def _parsed(text: str):
    try:
        value = json.loads(text)
        return json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return None


def _checked(client, tab_id: str, task: zoo.Task) -> bool:
    def value():
        return client.evaluate(f"() => ({task.check})", target_id=tab_id)["result"]

    try:
        wait_until(lambda: value() == task.expect, timeout=5, message=lambda: "")
        return True
    except AssertionError:
        return False


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--json")
    parser.add_argument("--only", help="the task of this key only")
    parser.add_argument(
        "--agent-browser",
        action="store_true",
        help="also agent-browser's snapshot --delta on the tasks whose targets its first "
        "snapshot shows (npm agent-browser, on this machine's Chromium)",
    )
    args = parser.parse_args()
    widgets.require_widgets()
    site = Site()
    widgets.serve(site)
    serve_corpus(site)
    running = start_service()
    client = running.client()
    client.start()
    every = (*zoo.TASKS, *PAGE_TASKS, *corpus_tasks(site))
    tasks = [t for t in every if args.only in (None, t.key)]
    results = {}
    try:
        for task in tasks:
            results[task.key] = {
                "full": run(client, site, task, delta=False),
                "delta": run(client, site, task, delta=True),
            }
        if args.agent_browser:
            cli = agent_browser.command("clawd-bench")
            for task in tasks:
                if task in PAGE_TASKS or task.page.startswith("/corpus/"):
                    results[task.key]["agentBrowser"] = run_agent_browser(cli, site, task)
            subprocess.run([*cli, "close"], capture_output=True, timeout=60)
    finally:
        client.close()
        running.close()
        site.close()
    table(results)
    write_json(args.json, results)


def table(results: dict) -> None:
    rows = []
    for key, r in results.items():
        full, delta, ab = r["full"], r["delta"], r.get("agentBrowser")
        ratio = full["chars"] / max(1, delta["chars"])
        done = f"{int(full['done'])}/{int(delta['done'])}"
        theirs = f"{ab['chars']} ({'done' if ab['done'] else 'not done'})" if ab else "-"
        rows.append(
            [key, full["acts"], full["chars"], delta["chars"], f"{ratio:.1f}x", done, theirs]
        )
    total_full = sum(r["full"]["chars"] for r in results.values())
    total_delta = sum(r["delta"]["chars"] for r in results.values())
    done_full = sum(r["full"]["done"] for r in results.values())
    done_delta = sum(r["delta"]["done"] for r in results.values())
    rows.append(
        [
            "all",
            sum(r["full"]["acts"] for r in results.values()),
            total_full,
            total_delta,
            f"{total_full / max(1, total_delta):.1f}x",
            f"{done_full}/{done_delta}",
            "",
        ]
    )
    print_table(
        "characters an agent reads per task: a full snapshot after every act vs the act's effect "
        "and a snapshot delta (as the agent tool renders them)",
        ["task", "acts", "full", "effect+delta", "fewer", "done full/delta", "agent-browser"],
        rows,
    )


if __name__ == "__main__":
    main()
