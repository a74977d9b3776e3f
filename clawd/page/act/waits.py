"""The `wait` act kind (time, text, textGone, selector, url glob, loadState, fn; in that order) and
`evaluate` (a function source run in the page, awaited, returned by value). Conditions are polled
with deadlines; every page call is dialog-guarded."""

from __future__ import annotations

import json
import re
import time

from clawd import acts, errors
from clawd.page.act import settle
from clawd.page.act.guard import Guarded

CONDITIONS = acts.KINDS["wait"].needs_one_of  # in the order they are waited for
POLL = 0.05
_FUNCTION = re.compile(r"^\s*(async\s+)?(function\b|\([^)]*\)\s*=>|[A-Za-z_$][\w$]*\s*=>)", re.S)


def wait(page: Guarded, args: dict) -> dict:
    """Each condition of `args` in turn, on the act's guarded page session (`page`)."""
    waited = {}
    started = time.monotonic()
    for name in CONDITIONS:
        if name not in args:
            continue
        value = args[name]
        if name == "timeMs":
            _sleep_until(min(page.deadline, time.monotonic() + value / 1000))
        elif name == "loadState":
            _wait_load(page, value)
        else:
            _poll(page, name, value, _condition(name, value))
        waited[name] = value
    return {"waited": waited, "waitedMs": round((time.monotonic() - started) * 1000)}


def _sleep_until(until: float) -> None:
    while True:
        left = until - time.monotonic()
        if left <= 0:
            return
        time.sleep(min(left, 0.25))


def _condition(name: str, value: str) -> str:
    text = json.dumps(value)
    if name == "text":
        return f"!!(document.body && document.body.innerText.includes({text}))"
    if name == "textGone":
        return f"!(document.body && document.body.innerText.includes({text}))"
    if name == "selector":
        return (
            f"(() => {{ const el = document.querySelector({text}); "
            "return !!el && (!el.checkVisibility || el.checkVisibility()); })()"
        )
    if name == "url":
        return f"new RegExp({json.dumps(glob_to_regex(value))}).test(location.href)"
    if name == "fn":
        return _call_expression(value)
    raise AssertionError(name)


def glob_to_regex(glob: str) -> str:
    """`**` any characters, `*` any but `/`, `?` one character; the whole URL must match."""
    out, i = [], 0
    while i < len(glob):
        if glob.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        char = glob[i]
        out.append("[^/]*" if char == "*" else "." if char == "?" else re.escape(char))
        i += 1
    return "^" + "".join(out) + "$"


def _poll(page: Guarded, name: str, value, expression: str) -> None:
    while True:
        if _truthy(page, expression, name):
            return
        if time.monotonic() + POLL >= page.deadline:
            raise errors.ActTimeout(f"wait for {name} {value!r} timed out", condition=name)
        time.sleep(POLL)


def _truthy(page: Guarded, expression: str, name: str) -> bool:
    try:
        answer = page.call(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
        )
    except errors.CdpError:
        return False  # the document is being replaced: try again in the next one
    details = answer.get("exceptionDetails")
    if details is not None:
        message = _exception_message(details)
        if name == "selector" and "SyntaxError" in message:
            raise errors.ActInvalidRequest(f"selector: not a valid CSS selector: {message}")
        if name == "fn":
            raise errors.ActEvaluateFailed(f"wait fn threw: {message}")
        return False
    return bool(answer.get("result", {}).get("value"))


def _wait_load(page: Guarded, state: str) -> None:
    ready = (
        "document.readyState === 'complete'"
        if state != "domcontentloaded"
        else "document.readyState !== 'loading'"
    )
    _poll(page, "loadState", state, ready)
    tracker = settle.tracker_of(page.tab)
    if state == "networkidle" and not tracker.idle(page.deadline):
        raise errors.ActTimeout(
            f"wait for loadState 'networkidle' timed out: requests kept going "
            f"(in flight: {tracker.in_flight() or 'none; the last one ended under 0.5 s ago'})",
            condition="loadState",
        )


# -- evaluate -------------------------------------------------------------------------------------
def _call_expression(source: str) -> str:
    """A function source is called; any other source is evaluated as an expression."""
    return f"({source})()" if is_function(source) else source


# The function's value and the page's URL and title in one round trip; values returnByValue
# cannot carry at the top level (NaN, -0, Infinity, bigints) travel as strings, as they would alone.
# A value that is not a promise is packed at once: an async wrapper cost Chrome 0.06 ms a call
# (issue 16, measured on a bare websocket), a promise is packed when it settles.
# `starting` runs just before the function and `reading` once it settled (an act's watch,
# effects.py: `reading` may use `started`, what `starting` gave); neither is ever the function's
# failure.
_WITH_STATE = """(() => {{ let started = null;
  try {{ started = {starting}; }} catch (e) {{}}
  const pack = (v) => {{
  const odd = typeof v === 'bigint' ? v + 'n'
    : (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0)))
    ? (Object.is(v, -0) ? '-0' : String(v)) : undefined;
  let reading = null;
  try {{ reading = {reading}; }} catch (e) {{}}
  return {{v: odd === undefined ? v : undefined, odd, href: location.href,
    title: document.title, reading}}; }};
  const v = {call};
  return v !== null && (typeof v === 'object' || typeof v === 'function')
    && typeof v.then === 'function' ? Promise.resolve(v).then(pack) : pack(v); }})()"""


def is_function(source: str) -> bool:
    """Whether an evaluate's `fn` is a function's source (called) rather than an expression."""
    return bool(_FUNCTION.match(source))


def evaluate_with_state(
    page: Guarded, source: str, *, starting: str = "null", reading: str = "null"
) -> tuple[object, tuple[str, str] | None, object]:
    """(value, (url, title), what `reading` gave) of a page function with no element, with
    `starting` evaluated just before it; (value, None, None) for other sources."""
    if not is_function(source):
        return evaluate(page, source), None, None
    params = {
        "expression": _WITH_STATE.format(call=f"({source})()", starting=starting, reading=reading),
        "userGesture": True,
        "returnByValue": True,
        "awaitPromise": True,
    }
    answer = page.call("Runtime.evaluate", params)
    if "exceptionDetails" in answer:
        raise errors.ActEvaluateFailed(
            f"evaluate threw: {_exception_message(answer['exceptionDetails'])}"
        )
    packed = (answer.get("result") or {}).get("value") or {}
    value = packed.get("odd") if packed.get("odd") is not None else packed.get("v")
    tab = page.tab
    return (
        value,
        (packed.get("href", tab.url), packed.get("title", tab.title)),
        packed.get("reading"),
    )


def evaluate(page: Guarded, source: str, *, element=None):
    """The value of the page function `source` (awaited); the element, if any, is its argument."""
    if element is not None:
        function = source if is_function(source) else f"function() {{ return ({source}); }}"
        own = element.in_main_world()  # the page's function sees the page's globals
        params = {
            "functionDeclaration": function,
            "objectId": own,
            "arguments": [{"objectId": own}],
        }
        method, page = "Runtime.callFunctionOn", element.page
    else:
        params = {"expression": _call_expression(source), "userGesture": True}
        method = "Runtime.evaluate"
    params.update(returnByValue=True, awaitPromise=True)
    answer = page.call(method, params)
    if "exceptionDetails" in answer:
        raise errors.ActEvaluateFailed(
            f"evaluate threw: {_exception_message(answer['exceptionDetails'])}"
        )
    return remote_value(answer.get("result") or {})


def remote_value(result: dict):
    if "value" in result:
        return result["value"]
    if "unserializableValue" in result:
        return result["unserializableValue"]  # NaN, Infinity, -0, 12n
    return None


def _exception_message(details: dict) -> str:
    exc = details.get("exception") or {}
    text = exc.get("description") or exc.get("value") or details.get("text") or "exception"
    return str(text).split("\n    at ", 1)[0]
