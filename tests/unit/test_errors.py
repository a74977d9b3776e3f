"""The error hierarchy: every class has a code and an HTTP status, codes map back to classes,
and to_dict has the shape clients read."""

from __future__ import annotations

import inspect

import pytest

from clawd import errors
from clawd.errors import ClawdError, error_class_for_code


def all_classes() -> list[type[ClawdError]]:
    return [
        obj
        for _, obj in inspect.getmembers(errors, inspect.isclass)
        if issubclass(obj, ClawdError) and obj.__module__ == errors.__name__
    ]


CLASSES = all_classes()
# Codes deliberately shared by more than one class. None today: add a pair here with its reason.
SHARED_CODES: dict[str, set[str]] = {}


def test_there_are_errors_to_check():
    assert len(CLASSES) > 40


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_every_class_has_an_upper_case_code_and_an_http_error_status(cls):
    assert (
        isinstance(cls.code, str)
        and cls.code == cls.code.upper()
        and cls.code.replace("_", "").isalnum()
    )
    assert isinstance(cls.http_status, int) and 400 <= cls.http_status <= 599


@pytest.mark.parametrize(
    "cls", [c for c in CLASSES if c is not ClawdError], ids=lambda c: c.__name__
)
def test_no_subclass_inherits_its_parents_code(cls):
    parent = next(b for b in cls.__mro__[1:] if issubclass(b, ClawdError))
    assert cls.code != parent.code


def test_codes_are_unique_except_the_intentional_ones():
    owners: dict[str, set[str]] = {}
    for cls in CLASSES:
        owners.setdefault(cls.code, set()).add(cls.__name__)
    shared = {code: names for code, names in owners.items() if len(names) > 1}
    assert shared == SHARED_CODES


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_error_class_for_code_round_trips(cls):
    assert error_class_for_code(cls.code) is cls


def test_an_unknown_code_maps_to_the_root():
    assert error_class_for_code("NO_SUCH_CODE") is ClawdError


@pytest.mark.parametrize(
    "cls", [c for c in CLASSES if c is not errors.ConfigError], ids=lambda c: c.__name__
)
def test_to_dict_is_error_and_code(cls):
    assert cls("it broke").to_dict() == {"error": "it broke", "code": cls.code}


def test_to_dict_carries_details_and_a_default_message():
    err = errors.BrowserLaunchFailed("no chromium", hint="browser.executablePath")
    assert err.to_dict() == {
        "error": "no chromium",
        "code": "BROWSER_LAUNCH_FAILED",
        "hint": "browser.executablePath",
    }
    assert errors.TabNotFound().to_dict() == {"error": "TAB_NOT_FOUND", "code": "TAB_NOT_FOUND"}
    assert errors.Unauthorized().to_dict()["error"] == "Missing or wrong credentials."


def test_config_error_lists_its_problems():
    err = errors.ConfigError(
        ["browser.headless: must be boolean", "server.port: too big"], source="/etc/clawd.yaml"
    )
    body = err.to_dict()
    assert body["code"] == "CONFIG_INVALID"
    assert "/etc/clawd.yaml" in body["error"] and "server.port: too big" in body["error"]
    assert err.problems == ["browser.headless: must be boolean", "server.port: too big"]


def test_cdp_error_keeps_the_devtools_code():
    err = errors.CdpError("No node with given id found", cdp_code=-32000)
    assert err.cdp_code == -32000 and err.to_dict() == {
        "error": "No node with given id found",
        "code": "CDP_ERROR",
    }


@pytest.mark.parametrize(
    "cls, builtin",
    [
        (errors.InvalidRequest, ValueError),
        (errors.NavigationBlocked, ValueError),
        (errors.Unauthorized, PermissionError),
        (errors.HostNotAllowed, PermissionError),
        (errors.TabNotFound, LookupError),
        (errors.ProfileNotFound, LookupError),
        (errors.CdpTimeout, TimeoutError),
        (errors.ActTimeout, TimeoutError),
        (errors.BrowserGone, ConnectionError),
    ],
)
def test_errors_are_also_the_matching_builtin(cls, builtin):
    assert issubclass(cls, builtin)


@pytest.mark.parametrize(
    "cls, status",
    [
        (errors.InvalidRequest, 400),
        (errors.BodyTooLarge, 413),
        (errors.Unauthorized, 401),
        (errors.CrossSiteRequest, 403),
        (errors.HostNotAllowed, 403),
        (errors.RouteNotFound, 404),
        (errors.MethodNotAllowed, 405),
        (errors.ActTimeout, 408),
        (errors.TabAmbiguous, 409),
        (errors.BrowserNotRunning, 409),
        (errors.CdpError, 502),
        (errors.CdpUnreachable, 502),
        (errors.BrowserGone, 503),
        (errors.CdpTimeout, 504),
        (errors.DialogNotFound, 404),
    ],
)
def test_statuses_of_well_known_errors(cls, status):
    assert cls.http_status == status


def test_errors_imports_nothing_of_clawd():
    source = inspect.getsource(errors)
    assert "from clawd" not in source and "import clawd" not in source


@pytest.mark.parametrize(
    "message, gone",
    [
        ("Execution context was destroyed.", True),
        ("Cannot find context with specified id", True),
        ("No frame with given id found", True),
        ("Inspected target navigated or closed", True),
        ("Node with given id does not belong to the document", False),
        ("", False),
    ],
)
def test_a_cdp_error_knows_when_its_document_went_away(message, gone):
    assert errors.CdpError(message).document_gone is gone
