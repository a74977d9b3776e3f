"""The widget zoo's tasks (issue 33): what a person does with each real widget library, as the
steps an agent takes, for tests/integration/test_zoo.py and bench/actionability.py.

A step names its target as an agent reading clawd's snapshot sees it (a line's role and its name
or text) and as a Playwright agent finds it (a locator). `ClawdAgent` does a task through the
HTTP API only: snapshot, then act by ref."""

from __future__ import annotations

import dataclasses
import re
import time
from collections.abc import Callable

from clawd import errors

PAGES = "/zoo/"
LOOK_FOR = 5.0  # how long an agent keeps taking snapshots for a line that is not there yet


@dataclasses.dataclass(frozen=True)
class Target:
    """A snapshot line: its role and its name, or its own text for a role-less clickable; with
    `after`, the first line of that role below the line that shows `after` (a nameless one)."""

    role: str
    name: str = ""
    after: str = ""

    def __str__(self) -> str:
        return f"{self.role} {self.name!r}" if self.name else f"{self.role} after {self.after!r}"


@dataclasses.dataclass(frozen=True)
class Step:
    """One thing an agent does: an act, on a target unless it is page-level (a key press)."""

    kind: str  # an act kind: click, type, press
    target: Target | None = None
    fields: dict = dataclasses.field(default_factory=dict)
    # how a Playwright agent finds the target: (page) -> Locator; None for page-level steps
    locator: Callable | None = None

    def __str__(self) -> str:
        extra = " ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return " ".join(str(x) for x in (self.kind, self.target or "", extra) if x)


@dataclasses.dataclass(frozen=True)
class Task:
    key: str  # short, for test ids and the bench's table
    name: str
    page: str
    steps: tuple[Step, ...]
    check: str  # a JS expression over the page's own state...
    expect: object  # ...and the value it has once the task is done


def click(role: str, name: str = "", locator: Callable | None = None, *, after: str = "") -> Step:
    """A click on a snapshot line; a Playwright agent clicks get_by_role(role, name) unless told."""
    if locator is None:

        def locator(page):
            return page.get_by_role(role, name=name, exact=True)

    return Step("click", Target(role, name, after), locator=locator)


TASKS = (
    Task(
        "fontawesome-icons",
        "Font Awesome: icon-only buttons and link (glyph in ::before)",
        "icons.html",
        (
            click("button", "Delete Buy milk"),
            click("button", "Star Call Ana"),
            click("link", "Settings"),
        ),
        "__zoo.log",
        ["deleted milk", "starred Ana", "settings"],
    ),
    Task(
        "jqueryui-datepicker",
        "jQuery UI datepicker: a day, then Submit at once (fade-out)",
        "jquery-ui.html",
        (click("textbox", "Date"), click("link", "15"), click("button", "Submit")),
        "__zoo.submitted",
        ["2025-01-15"],
    ),
    Task(
        "jqueryui-slider",
        "jQuery UI slider: focus the handle, arrow keys",
        "jquery-ui.html",
        (
            click("generic", after="Volume", locator=lambda p: p.locator(".ui-slider-handle")),
            Step("press", fields={"key": "ArrowRight"}),
            Step("press", fields={"key": "ArrowRight"}),
            Step("press", fields={"key": "ArrowRight"}),
        ),
        "__zoo.volume",
        5,
    ),
    Task(
        "jqueryui-menu",
        "jQuery UI menu: an item of a submenu",
        "jquery-ui.html",
        (click("menuitem", "Export"), click("menuitem", "CSV")),
        "__zoo.menu.at(-1)",
        "CSV",
    ),
    Task(
        "jqueryui-autocomplete",
        "jQuery UI autocomplete: type, pick a suggestion",
        "jquery-ui.html",
        (
            Step(
                "type",
                Target("textbox", "Language"),
                {"text": "ja"},
                locator=lambda p: p.get_by_role("textbox", name="Language", exact=True),
            ),
            click("generic", "JavaScript", lambda p: p.get_by_text("JavaScript", exact=True)),
        ),
        "[document.getElementById('language').value, __zoo.language]",
        ["JavaScript", "JavaScript"],
    ),
    Task(
        "flatpickr-day",
        "flatpickr: a day of an animated calendar, then Book",
        "flatpickr.html",
        (
            click("textbox", "Check-in"),
            click("generic", "January 15, 2025", lambda p: p.get_by_label("January 15, 2025")),
            click("button", "Book"),
        ),
        "__zoo.booked",
        ["2025-01-15"],
    ),
    Task(
        "tomselect-option",
        "Tom Select: open, an option, then Order under the list",
        "tom-select.html",
        (
            click("combobox", "Fruit"),
            # get_by_role("option", name="Banana") alone also finds the hidden <select>'s option
            click(
                "option",
                "Banana",
                lambda p: p.get_by_role("listbox", name="Fruit").get_by_role(
                    "option", name="Banana"
                ),
            ),
            click("button", "Order"),
        ),
        "__zoo.ordered",
        ["banana"],
    ),
    Task(
        "bootstrap-modal",
        "Bootstrap modal: open (fade), Accept, close, Continue under it",
        "bootstrap-modal.html",
        (
            click("button", "Read the terms"),
            click("button", "Accept"),
            click("button", "Close"),
            click("button", "Continue"),
        ),
        "__zoo.log",
        ["accepted", "continued"],
    ),
    Task(
        "bootstrap-toast",
        "Bootstrap toast: dismiss (fade-out)",
        "bootstrap.html",
        (click("button", "Close"),),
        "__zoo.log",
        ["toast hidden"],
    ),
    Task(
        "bootstrap-dropdown",
        "Bootstrap dropdown: open, an item",
        "bootstrap.html",
        (click("button", "Actions"), click("link", "Archive")),
        "__zoo.log",
        ["archive"],
    ),
    Task(
        "bootstrap-checks",
        "Bootstrap checks: a switch, a .btn-check toggle, a visually hidden checkbox",
        "bootstrap.html",
        (
            click("switch", "Wi-Fi"),
            # the .btn-check checkbox is clipped away: its ref is clicked on its label
            click("checkbox", "Bold"),
            click("checkbox", "Remember me"),
        ),
        "['wifi', 'bold', 'remember'].map(id => document.getElementById(id).checked)",
        [True, True, True],
    ),
    Task(
        "clusterize-rows",
        "Clusterize list: rows below the fold of its scroll box, near and far",
        "list.html",
        (
            # in the window but clipped by the box (issue 33, failure 3), then out of the window
            click("listitem", "Message 15", lambda p: p.get_by_text("Message 15", exact=True)),
            click("listitem", "Message 120", lambda p: p.get_by_text("Message 120", exact=True)),
        ),
        "__zoo.opened",
        ["Message 15", "Message 120"],
    ),
    Task(
        "cookie-wall-accept",
        "Cookie wall: accept, then Checkout under it",
        "cookie-wall.html",
        (click("button", "Accept all"), click("button", "Checkout")),
        "__zoo.log",
        ["accepted", "checkout"],
    ),
)


# -- finding a line's ref in snapshot text --------------------------------------------------------
_REF = re.compile(r"\[ref=(\w+)\]")


def _shows(line: str, target: Target) -> bool:
    if not re.match(rf"\s*- {re.escape(target.role)}\b", line):
        return False
    if not target.name:
        return True
    text = line.rstrip().rstrip(":")
    quoted = re.escape(f'"{target.name}"')
    return bool(
        re.match(rf"\s*- {re.escape(target.role)} {quoted}", line)
        or re.search(rf": (?:{re.escape(target.name)}|{quoted})$", text)
    )


def find_ref(snapshot: str, target: Target) -> str | None:
    """The ref of the first line that shows `target`, or None."""
    lines = snapshot.splitlines()
    if target.after:
        at = next((i for i, line in enumerate(lines) if target.after in line), None)
        lines = [] if at is None else lines[at + 1 :]
    for line in lines:
        found = _REF.search(line)
        if found and _shows(line, target):
            return found.group(1)
    return None


# -- an agent on clawd ------------------------------------------------------------------------
@dataclasses.dataclass
class Outcome:
    """How a task went: every act's first try, the acts sent, their times, what went wrong."""

    first_tries: list[bool] = dataclasses.field(default_factory=list)
    acts: int = 0
    snapshots: int = 0
    act_ms: list[float] = dataclasses.field(default_factory=list)
    errors: list[str] = dataclasses.field(default_factory=list)
    state: object = None
    done: bool = False

    @property
    def first_try(self) -> bool:
        return self.done and all(self.first_tries)


class ClawdAgent:
    """Does a task as an agent reading clawd's snapshots would: the step's line in the latest
    snapshot (new snapshots while it is not there yet), then POST /act with its ref. `retry`:
    after a failed act, one more try on a new snapshot, as an agent would."""

    def __init__(self, client, tab_id: str, *, retry: bool = False, clock=time.monotonic):
        self.client, self.tab_id, self.retry, self.clock = client, tab_id, retry, clock
        self.snapshot = ""
        self.outcome = Outcome()

    def look(self) -> str:
        self.snapshot = self.client.snapshot(target_id=self.tab_id)["snapshot"]
        self.outcome.snapshots += 1
        return self.snapshot

    def ref(self, target: Target) -> str:
        """The target's ref, from the snapshot in hand or the next ones for LOOK_FOR seconds."""
        ref = find_ref(self.snapshot, target)
        deadline = self.clock() + LOOK_FOR
        while ref is None and self.clock() < deadline:
            ref = find_ref(self.look(), target)
        if ref is None:
            raise LookupError(f"no line shows {target} in the snapshot:\n{self.snapshot}")
        return ref

    def act(self, step: Step) -> None:
        fields = dict(step.fields)
        if step.target is not None:
            fields["ref"] = self.ref(step.target)
        began = time.perf_counter()
        try:
            self.client.act(step.kind, target_id=self.tab_id, **fields)
        finally:
            self.outcome.acts += 1
            self.outcome.act_ms.append((time.perf_counter() - began) * 1000)

    def step(self, step: Step) -> bool:
        """One step: True when its first act succeeded; raises when the last try failed."""
        tries = 2 if self.retry else 1
        for attempt in range(tries):
            try:
                self.act(step)
                return attempt == 0
            except (errors.ClawdError, LookupError) as exc:
                self.outcome.errors.append(f"{step}: {type(exc).__name__}: {exc}")
                if attempt + 1 == tries:
                    raise
                self.look()
        return False

    def run(self, task: Task) -> Outcome:
        """Every step of `task`; stops at a step whose last try failed."""
        self.look()
        try:
            for step in task.steps:
                self.outcome.first_tries.append(self.step(step))
        except (errors.ClawdError, LookupError):
            self.outcome.first_tries.append(False)
            return self.outcome
        self.outcome.done = True
        return self.outcome
