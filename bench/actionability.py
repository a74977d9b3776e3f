#!/usr/bin/env python3
"""Acts on pages clawd did not write (issue 33): the widget zoo's tasks (tests/support/zoo.py, real
libraries from npm, tests/support/widgets.py) done by an agent on clawd (snapshot, then POST /act
by ref) and by one on Playwright (its own locators, get_by_role..., each action auto-waiting), on
the same Chromium build with the same viewport, a fresh page per run, in turns.

Printed for each task: first-try success (every act of the task worked the first time and the
page's state came out right) over the runs, acts sent per run (a failed act is tried once more,
after a new snapshot for clawd: an agent's retry), clawd's snapshots per run (one more each time
an act's effect had not yet shown), and the median act latency (ms, from request to answer).
Usage: bench/actionability.py [--runs 3] [--json OUT]"""

from __future__ import annotations

import argparse
import re
import statistics
import time

from common import CHROMIUM_FLAGS, Site, print_table, start_service_process, write_json

from clawd import errors
from tests.support import widgets, zoo
from tests.support.browser import chromium_path

ACT_TIMEOUT_MS = 8000  # clawd's default browser.actionTimeoutMs, given to Playwright too
SETTLED = 5.0  # how long the page's state may take to show a finished task


def settled(read, task: zoo.Task) -> object:
    """The page's state once it equals the task's expectation, or what it is after SETTLED s."""
    deadline = time.monotonic() + SETTLED
    while True:
        state = read(task.check)
        if state == task.expect or time.monotonic() > deadline:
            return state
        time.sleep(0.05)


# -- clawd ----------------------------------------------------------------------------------------
def clawd_run(client, site, task: zoo.Task) -> zoo.Outcome:
    tab = client.open(site.url(zoo.PAGES + task.page))
    try:
        outcome = zoo.ClawdAgent(client, tab["tabId"], retry=True).run(task)

        def read(expression):
            return client.evaluate(f"() => ({expression})", target_id=tab["tabId"])["result"]

        outcome.state = settled(read, task) if outcome.done else None
        return outcome
    finally:
        try:
            client.close_tab(tab["tabId"])
        except errors.ClawdError:
            pass


# -- Playwright -----------------------------------------------------------------------------------
class PlaywrightAgent:
    """The same steps with Playwright's locators; a failed action is tried once more."""

    def __init__(self, page):
        self.page = page
        self.outcome = zoo.Outcome()

    def act(self, step: zoo.Step) -> None:
        began = time.perf_counter()
        try:
            if step.kind == "press":
                self.page.keyboard.press(step.fields["key"])
            elif step.kind == "type":
                step.locator(self.page).fill(step.fields["text"])
            else:
                step.locator(self.page).click()
        finally:
            self.outcome.acts += 1
            self.outcome.act_ms.append((time.perf_counter() - began) * 1000)

    def described(self, step: zoo.Step) -> str:
        """The step's locator as Playwright's selector, or its fields for a page-level step."""
        if step.locator is None:
            return " ".join(f"{k}={v!r}" for k, v in step.fields.items())
        found = re.search(r"selector='(.*)'", repr(step.locator(self.page)))
        return found.group(1) if found else str(step)

    def step(self, step: zoo.Step) -> bool:
        from playwright.sync_api import Error

        for attempt in range(2):
            try:
                self.act(step)
                return attempt == 0
            except Error as exc:
                self.outcome.errors.append(f"{step.kind} {self.described(step)}: {why(exc)}")
                if attempt == 1:
                    raise
        return False

    def run(self, task: zoo.Task) -> zoo.Outcome:
        from playwright.sync_api import Error

        try:
            for step in task.steps:
                self.outcome.first_tries.append(self.step(step))
        except Error:
            self.outcome.first_tries.append(False)
            return self.outcome
        self.outcome.done = True
        return self.outcome


def why(exc: Exception) -> str:
    """Playwright's error: its first line and the last check its call log says failed."""
    lines = [line.strip(" -") for line in str(exc).splitlines()]
    failed = [line for line in lines[1:] if re.search(r"intercepts|not |detached|outside", line)]
    return lines[0] + (f" ({failed[-1]})" if failed else "")


def playwright_run(browser, viewport: dict, site, task: zoo.Task) -> zoo.Outcome:
    page = browser.new_page(viewport=viewport)
    try:
        page.set_default_timeout(ACT_TIMEOUT_MS)
        page.goto(site.url(zoo.PAGES + task.page))
        outcome = PlaywrightAgent(page).run(task)
        read = lambda expression: page.evaluate(f"() => ({expression})")  # noqa: E731
        outcome.state = settled(read, task) if outcome.done else None
        return outcome
    finally:
        page.close()


# -- the table ------------------------------------------------------------------------------------
def succeeded(outcome: zoo.Outcome, task: zoo.Task) -> bool:
    return outcome.first_try and outcome.state == task.expect


def figures(task: zoo.Task, outcomes: list[zoo.Outcome]) -> dict:
    act_ms = [ms for o in outcomes for ms in o.act_ms]
    return {
        "firstTry": sum(succeeded(o, task) for o in outcomes),
        "done": sum(o.done and o.state == task.expect for o in outcomes),
        "runs": len(outcomes),
        "acts": round(statistics.mean(o.acts for o in outcomes), 1),
        "snapshots": round(statistics.mean(o.snapshots for o in outcomes), 1),
        "actMs": round(statistics.median(act_ms), 1) if act_ms else None,
        "errors": sorted({e for o in outcomes for e in o.errors}),
        "states": [o.state for o in outcomes if o.done and o.state != task.expect],
    }


def measure(runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    root = widgets.install()
    site = Site()
    widgets.serve(site, root)
    running = start_service_process()  # a process of its own, as Playwright's driver is
    results: dict = {}
    try:
        client = running.client()
        client.start()
        probe = client.open("about:blank")
        width, height = client.evaluate(
            "() => [innerWidth, innerHeight]", target_id=probe["tabId"]
        )["result"]
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=chromium_path(),
                args=[flag for flag in CHROMIUM_FLAGS if not flag.startswith("--headless")],
            )
            viewport = {"width": width, "height": height}
            for task in zoo.TASKS:
                mine, peer = [], []
                for _ in range(runs):  # in turns: both see the same machine
                    mine.append(clawd_run(client, site, task))
                    peer.append(playwright_run(browser, viewport, site, task))
                results[task.key] = {
                    "clawd": figures(task, mine),
                    "playwright": figures(task, peer),
                }
                print_row(task, results[task.key])
            browser.close()
    finally:
        running.close()
        site.close()
    return results


def print_row(task: zoo.Task, row: dict) -> None:
    mine, peer = row["clawd"], row["playwright"]
    print(
        f"  {task.key}: clawd {mine['firstTry']}/{mine['runs']} first try, "
        f"Playwright {peer['firstTry']}/{peer['runs']}",
        flush=True,
    )


def report(results: dict, runs: int) -> None:
    rows = []
    for key, row in results.items():
        mine, peer = row["clawd"], row["playwright"]
        rows.append(
            [
                key,
                f"{mine['firstTry']}/{runs}",
                f"{peer['firstTry']}/{runs}",
                mine["acts"],
                peer["acts"],
                mine["snapshots"],
                mine["actMs"],
                peer["actMs"],
            ]
        )
    total = len(results) * runs
    rows.append(
        [
            "all tasks",
            f"{sum(r['clawd']['firstTry'] for r in results.values())}/{total}",
            f"{sum(r['playwright']['firstTry'] for r in results.values())}/{total}",
            "",
            "",
            "",
            "",
            "",
        ]
    )
    print_table(
        f"widget zoo: first-try success over {runs} runs a task, acts and snapshots per run, "
        "median act latency (ms)",
        [
            "task",
            "clawd 1st",
            "PW 1st",
            "clawd acts",
            "PW acts",
            "clawd snaps",
            "clawd ms",
            "PW ms",
        ],
        rows,
    )
    for key, row in results.items():
        for tool in ("clawd", "playwright"):
            for error in row[tool]["errors"]:
                print(f"  {key} ({tool}): {error}")
            for state in row[tool]["states"]:
                print(f"  {key} ({tool}): the page's state came out as {state!r}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = measure(args.runs)
    report(results, args.runs)
    write_json(args.json, results)


if __name__ == "__main__":
    main()
