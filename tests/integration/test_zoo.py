"""The widget zoo (issue 33): real widget libraries from the npm registry (tests/support/widgets.py)
on small pages of ours (tests/site/zoo/), each used as a person would, by an agent that only
reads clawd's snapshot and acts by ref over the HTTP API; asserted on the page's own state. An
agent acts right away: a fade, a closing popup or a scroll box is the act's to deal with."""

from __future__ import annotations

import pytest

from clawd import errors
from tests.support import widgets, zoo
from tests.support.act import Page, opened_pages
from tests.support.page_eval import wait_until


@pytest.fixture(scope="module")
def zoo_site(site):
    widgets.require_widgets()
    widgets.serve(site)
    return site


@pytest.fixture
def page(client, zoo_site):
    opened = opened_pages(client, zoo_site)
    open_page = next(opened)
    yield lambda name: open_page(zoo.PAGES + name)
    next(opened, None)


def done_by_an_agent(page: Page, task: zoo.Task) -> None:
    """`task` through snapshot + act by ref, each act on its first try; then the page's state."""
    agent = zoo.ClawdAgent(page.client, page.id)
    outcome = agent.run(task)
    assert outcome.done, f"{task.name}: {outcome.errors[-1]}"
    wait_until(
        lambda: page.value(task.check) == task.expect,
        timeout=5,
        message=lambda: (
            f"{task.name}: {task.check} == {task.expect!r} (is {page.value(task.check)!r})"
        ),
    )


@pytest.mark.parametrize("task", zoo.TASKS, ids=lambda t: t.key)
def test_a_person_s_task_on_a_real_widget_works_first_try_by_ref(page, task):
    done_by_an_agent(page(task.page), task)


# -- real covers are still refused, and named --------------------------------------------------
def test_a_click_under_a_cookie_wall_is_refused_naming_the_wall(page):
    p = page("cookie-wall.html")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=p.ref("button", "Checkout"), timeout_ms=1000)
    assert caught.value.http_status == 409
    cover = caught.value.message.split("covered by", 1)[1]
    assert "cookie-wall" in cover and "We use cookies" in cover, caught.value.message
    assert "RootWebArea" not in cover and "Checkout" not in cover, caught.value.message
    assert "cookie-wall" in caught.value.details["covering"]["selector"]
    assert p.value("__zoo.log") == []


def test_a_click_under_an_open_bootstrap_modal_is_refused_naming_the_dialog(page):
    p = page("bootstrap-modal.html")
    continue_ = p.ref("button", "Continue")
    p.act("click", ref=p.ref("button", "Read the terms"))
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=continue_, timeout_ms=1000)
    cover = caught.value.message.split("covered by", 1)[1]
    assert "dialog 'Terms of use'" in cover, caught.value.message
    assert "RootWebArea" not in cover and "Continue" not in cover, caught.value.message
    covering = caught.value.details["covering"]
    assert (covering["role"], covering["name"]) == ("dialog", "Terms of use")
    assert p.value("__zoo.log") == []


def test_a_click_under_a_datepicker_left_open_is_refused_naming_the_picker(page):
    """The picker fades in and stays: not a cover going away, so the wait ends in a refusal."""
    p = page("jquery-ui.html")
    submit = p.ref("button", "Submit")
    p.act("click", ref=p.ref("textbox", "Date"))
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=submit, timeout_ms=1000)
    cover = caught.value.message.split("covered by", 1)[1]
    assert "ui-datepicker" in cover, caught.value.message
    assert "RootWebArea" not in cover and "Submit" not in cover, caught.value.message
    assert p.value("__zoo.submitted") == []
