"""The check and uncheck act kinds on a real page: native checkboxes and radios, ARIA checkboxes,
switches and menu item checkboxes end in the wanted state, with no click when they already are in
it; elements that are not checkable and clicks that do not take are errors with codes. And the
kinds reach every surface made from the act table: the client, the CLI and the agent tool."""

from __future__ import annotations

import functools

import pytest

from clawd import errors
from clawd.agent.tool import BrowserTool, unwrap
from tests.support.act import Page, opened_pages
from tests.support.cli import cli_of


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


@pytest.fixture
def checks(page) -> Page:
    return page("/act/checks.html")


def checked(p: Page, element_id: str) -> bool | str:
    """The element's state as the page sees it: `checked` for inputs, aria-checked otherwise."""
    return p.value(
        f"(el => el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked'))"
        f"(document.getElementById({element_id!r}))"
    )


def clicks(p: Page, element_id: str) -> int:
    return p.value(f"window.clicks[{element_id!r}] || 0")


def test_check_then_uncheck_a_native_checkbox(checks):
    answer = checks.act("check", ref=checks.ref("checkbox", "Newsletter"))
    assert (answer["ok"], answer["checked"], answer["changed"]) == (True, True, True)
    assert answer["tabId"] == checks.id and answer["url"].endswith("/act/checks.html")
    assert checked(checks, "news") is True
    answer = checks.act("uncheck", ref=checks.ref("checkbox", "Newsletter"))
    assert (answer["checked"], answer["changed"]) == (False, True)
    assert checked(checks, "news") is False and clicks(checks, "news") == 2


def test_a_box_already_in_the_wanted_state_is_not_clicked(checks):
    assert checks.act("check", ref=checks.ref("checkbox", "Terms"))["changed"] is False
    assert checks.act("uncheck", ref=checks.ref("checkbox", "Newsletter"))["changed"] is False
    assert clicks(checks, "terms") == clicks(checks, "news") == 0
    assert checked(checks, "terms") is True


@pytest.mark.parametrize(
    "role, name, element_id, initially",
    [
        ("checkbox", "Remember me", "remember", "false"),
        ("switch", "Dark mode", "dark", "true"),
        ("menuitemcheckbox", "Show grid", "grid", "false"),
    ],
)
def test_aria_checkboxes_switches_and_menu_items_end_in_the_wanted_state(
    checks, role, name, element_id, initially
):
    ref = checks.ref(role, name)
    for kind, state in (("check", "true"), ("uncheck", "false"), ("uncheck", "false")):
        answer = checks.act(kind, ref=ref)
        assert checked(checks, element_id) == state
        assert answer["checked"] is (state == "true")
    assert clicks(checks, element_id) == (1 if initially == "true" else 2)


def test_a_mixed_checkbox_is_checked_by_one_click(checks):
    answer = checks.act("check", ref=checks.ref("checkbox", "Select all"))
    assert answer["changed"] is True and checked(checks, "mixed") == "true"
    assert clicks(checks, "mixed") == 1


def test_a_radio_is_checked_but_never_unchecked(checks):
    large = checks.ref("radio", "Large")
    assert checks.act("check", ref=large)["changed"] is True
    assert (checked(checks, "large"), checked(checks, "small")) == (True, False)
    with pytest.raises(errors.ActInvalidRequest) as caught:
        checks.act("uncheck", ref=large)
    assert "radio button" in caught.value.message and "cannot be unchecked" in caught.value.message
    assert checks.act("uncheck", ref=checks.ref("radio", "Small"))["changed"] is False
    assert clicks(checks, "large") == 1 and clicks(checks, "small") == 0


def test_an_element_that_is_not_checkable_is_400_and_not_clicked(checks):
    with pytest.raises(errors.ActInvalidRequest) as caught:
        checks.act("check", ref=checks.ref("button", "Plain button"))
    assert caught.value.http_status == 400 and caught.value.code == "ACT_INVALID_REQUEST"
    assert "is not a checkbox, radio or switch" in caught.value.message
    assert clicks(checks, "plain") == 0


def test_a_click_that_does_not_change_the_state_is_an_error(checks):
    with pytest.raises(errors.ActInvalidRequest) as caught:
        checks.act("check", ref=checks.ref("checkbox", "Stuck"), timeout_ms=3000)
    assert "did not make it checked" in caught.value.message
    assert clicks(checks, "stuck") == 1 and checked(checks, "stuck") == "false"


def test_a_state_the_page_sets_a_moment_after_the_click_is_waited_for(checks):
    answer = checks.act("check", ref=checks.ref("checkbox", "Slow toggle"))
    assert answer["changed"] is True and checked(checks, "slow") == "true"


def test_a_disabled_checkbox_is_not_clicked_but_is_already_unchecked(checks):
    with pytest.raises(errors.ActElementDisabled):
        checks.act("check", ref=checks.ref("checkbox", "Locked"))
    assert checks.act("uncheck", ref=checks.ref("checkbox", "Locked"))["changed"] is False


def test_check_and_uncheck_in_a_batch(checks):
    answer = checks.act(
        "batch",
        actions=[
            {"kind": "check", "ref": checks.ref("checkbox", "Newsletter")},
            {"kind": "uncheck", "ref": checks.ref("checkbox", "Terms")},
            {"kind": "check", "ref": checks.ref("button", "Plain button")},
        ],
        stop_on_error=False,
    )
    assert answer["ok"] is False
    assert [(r["kind"], r["ok"]) for r in answer["results"]] == [
        ("check", True),
        ("uncheck", True),
        ("check", False),
    ]
    assert answer["results"][2]["code"] == "ACT_INVALID_REQUEST"
    assert (checked(checks, "news"), checked(checks, "terms")) == (True, False)


# -- every surface made from the act table ------------------------------------------------------
def test_the_client_has_check_and_uncheck(client, checks):
    assert (
        client.check(checks.ref("checkbox", "Newsletter"), target_id=checks.id)["checked"] is True
    )
    assert (
        client.uncheck(checks.ref("checkbox", "Newsletter"), target_id=checks.id)["changed"] is True
    )


def test_the_cli_has_check_and_uncheck(service, checks):
    cli = functools.partial(cli_of, service)
    status, out, err = cli("check", checks.ref("switch", "Dark mode"), "--target", checks.id)
    assert status == 0, err
    assert out.splitlines()[1:] == ["effect: none", "checked: true", "changed: false"]
    status, out, _ = cli("uncheck", checks.ref("switch", "Dark mode"), "--target", checks.id)
    assert status == 0 and "changed: true" in out and checked(checks, "dark") == "false"
    status, _, err = cli("check", checks.ref("button", "Plain button"), "--target", checks.id)
    assert status == 1 and "ACT_INVALID_REQUEST" in err


def test_the_agent_tool_has_check_and_uncheck(service, checks):
    tool = BrowserTool(service.client())
    ref = checks.ref("menuitemcheckbox", "Show grid")
    result = tool.run({"action": "act", "kind": "check", "ref": ref, "targetId": checks.id})
    assert not result.is_error and "checked: true" in unwrap(result.text)
    result = tool.run(
        {"action": "act", "request": {"kind": "uncheck", "ref": ref}, "targetId": checks.id}
    )
    assert not result.is_error and checked(checks, "grid") == "false"
    missing = tool.run({"action": "act", "kind": "uncheck", "targetId": checks.id})
    assert missing.is_error and "act uncheck needs ref" in missing.text
