"""Reading values out of a page in tests: through `POST /act` evaluate when that route exists,
else with a direct Runtime.evaluate on the tab's own session; and waiting on a condition."""

from __future__ import annotations

import time
from collections.abc import Callable

from clawd import errors


def evaluate(running, client, tab_id: str, expression: str):
    """The JSON value of `expression` (promises awaited) in tab `tab_id`."""
    try:
        return client.evaluate(f"async () => ({expression})", target_id=tab_id)["result"]
    except (errors.RouteNotFound, errors.MethodNotAllowed):
        pass
    browser = running.service.runtime(None).browser
    tab = next(t for t in browser.tabs() if t.tab_id == tab_id)
    answer = tab.session.call(
        "Runtime.evaluate",
        {
            "expression": expression,
            "returnByValue": True,
            "awaitPromise": True,
            "userGesture": True,
        },
        timeout=15,
    )
    if "exceptionDetails" in answer:
        raise AssertionError(f"{expression!r} threw: {answer['exceptionDetails']}")
    return answer["result"].get("value")


def wait_until(
    condition: Callable[[], object],
    timeout: float = 10.0,
    interval: float = 0.05,
    message: str | Callable[[], str] = "condition",
):
    """Poll `condition` until it returns something truthy; fail after `timeout` seconds. A callable
    `message` is asked at the failure, so it can say what it saw last."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            what = message() if callable(message) else message
            raise AssertionError(f"{what} not met within {timeout:g} s (last: {value!r})")
        time.sleep(interval)
