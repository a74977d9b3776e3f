"""Listing and calling a tab's WebMCP tools: whether the browser has WebMCP at all, the input
checked against the tool's own inputSchema before the page sees it, `WebMCP.invokeTool` and its
`toolResponded` (or, for a form that waits for its submit, the form as filled), and what the
call did to the page, reported as an act reports it."""

from __future__ import annotations

import json
import time

import jsonschema

from clawd import errors
from clawd.browser.tab import Tab
from clawd.page.act import actions, dialogs
from clawd.page.snapshot import inject, refs
from clawd.page.webmcp.registry import Invocation, PageTool, registry

FLAG = "--enable-features=WebMCP"
CHECK_TIMEOUT = 5.0
FLUSH_TIMEOUT = 2.0
POLL = 0.05  # how soon a dialog or a closed tab ends the wait for a tool's answer
GRACE = 1.0  # how long a tool removed or navigated away may still answer
SETTLE_AT_LEAST = 2.0  # the page's settle after a call that used its whole timeout
MAX_OUTPUT_CHARS = 500_000  # an answer's output, as JSON text


def tools(tab: Tab) -> list[PageTool]:
    """The tab's tools, once every event that reached us before this request was handled; a
    page with none is asked whether WebMCP is there at all (501 when not)."""
    tab.check_usable()
    tab.session.connection.events.flush(FLUSH_TIMEOUT)
    found = registry(tab).tools()
    if not found:
        check_available(tab)
        tab.session.connection.events.flush(FLUSH_TIMEOUT)  # what enable re-announced
        found = registry(tab).tools()
    return found


def check_available(tab: Tab) -> None:
    """501 WEBMCP_UNAVAILABLE naming the flag when the browser has no WebMCP domain, or has it
    but not the feature (the domain then answers and no tool ever appears)."""
    try:
        tab.session.call("WebMCP.enable", timeout=CHECK_TIMEOUT)
    except errors.CdpError as exc:
        raise errors.WebmcpUnavailable(
            f"this browser has no WebMCP domain ({exc.message}): it needs a Chromium with "
            f"WebMCP, started with {FLAG}",
            flag=FLAG,
        ) from None
    if dialogs.state(tab).pending:
        return  # the page cannot answer now; the domain is there
    try:
        reply = tab.session.call(
            "Runtime.evaluate",
            {"expression": "['modelContext' in document, isSecureContext]", "returnByValue": True},
            timeout=CHECK_TIMEOUT,
        )
    except (errors.CdpError, errors.CdpTimeout):
        return  # a document in between: no verdict, an empty list
    # document.modelContext exists in secure contexts only (https:, localhost); a plain http:
    # page can still offer declarative (<form toolname>) tools
    if reply.get("result", {}).get("value") == [False, True]:
        raise errors.WebmcpUnavailable(
            f"the page has no document.modelContext: start Chromium with {FLAG} "
            "(browser.webmcp: true, the default, does that for managed and sandbox profiles)",
            flag=FLAG,
        )


def form_refs(tab: Tab, found: list[PageTool]) -> dict[tuple[str, str], str]:
    """The refs the tab's latest snapshot gave the forms of declarative tools (a form no
    snapshot named has none): the page side keeps element -> ref (page/snapshot)."""
    current = refs.store(tab)
    with current.lock:
        minted = set(current.refs)
    out = {}
    for tool in found:
        if tool.declarative and minted:
            ref = _bound_ref(tool)
            if ref in minted:
                out[tool.key] = ref
    return out


def _bound_ref(tool: PageTool) -> str | None:
    value = _on_form(tool, _REF_OF)
    return value if isinstance(value, str) else None


def _on_form(tool: PageTool, function: str):
    """`function` called on a declarative tool's form in clawd's world (where the snapshot's
    element -> ref bindings are); its value, or None when the form or its document is gone."""
    session = tool.session
    try:
        context = inject.world(session, tool.frame_id, CHECK_TIMEOUT)
        node = session.call(
            "DOM.resolveNode",
            {"backendNodeId": tool.backend_node_id, "executionContextId": context},
            timeout=CHECK_TIMEOUT,
        )["object"]
        try:
            found = session.call(
                "Runtime.callFunctionOn",
                {
                    "objectId": node["objectId"],
                    "functionDeclaration": function,
                    "returnByValue": True,
                },
                timeout=CHECK_TIMEOUT,
            )
        finally:
            session.send_and_forget("Runtime.releaseObject", {"objectId": node["objectId"]})
    except (errors.CdpError, errors.CdpTimeout, KeyError):
        return None  # the form or its document went away meanwhile
    return found.get("result", {}).get("value")


_REF_OF = """function() {
  const binding = globalThis.__clawd && __clawd.bindings.get(this);
  return binding ? binding.ref : null;
}"""

# A form Chromium filled for a call and left for a submit (`:tool-form-active`): its ref, what
# its fields now hold (a password's value not repeated), its submit button (`:tool-submit-active`,
# which Chromium focuses); null when not (yet) so.
_FILLED = """function() {
  const refOf = el => {
    const binding = globalThis.__clawd && __clawd.bindings.get(el);
    return binding ? binding.ref : undefined;
  };
  let waiting;
  try { waiting = this.matches(':tool-form-active'); } catch (e) { return null; }
  if (!waiting) return null;
  const secret = new Set([...this.elements].filter(e => e.type === 'password').map(e => e.name));
  const values = {};
  for (const [name, raw] of new FormData(this)) {
    const value = secret.has(name) ? '(hidden)' : typeof raw === 'string' ? raw : raw.name;
    values[name] = name in values ? [].concat(values[name], value) : value;
  }
  const button = [...this.elements].find(e => e.matches(':tool-submit-active'));
  const submit = button && {ref: refOf(button),
    name: (button.innerText || button.value || button.getAttribute('aria-label') || '').trim()};
  return {ref: refOf(this), values, submit};
}"""


def validate_input(tool: PageTool, given) -> None:
    """400 WEBMCP_INPUT_INVALID with the JSON path of the first problem; a tool whose own
    schema is not a JSON Schema is the page's fault (502 WEBMCP_SCHEMA_INVALID)."""
    cls = jsonschema.validators.validator_for(tool.input_schema, jsonschema.Draft202012Validator)
    try:
        cls.check_schema(tool.input_schema)
    except jsonschema.SchemaError as exc:
        raise errors.WebmcpSchemaInvalid(
            f"tool {tool.name!r} declares an invalid inputSchema at "
            f"{exc.json_path}: {exc.message[:200]}",
            tool=tool.name,
        ) from None
    if not isinstance(given, dict):
        raise errors.WebmcpInputInvalid(
            f"input must be a JSON object, not {type(given).__name__}", path="$"
        )
    validator = cls(tool.input_schema, format_checker=cls.FORMAT_CHECKER)
    try:
        problem = jsonschema.exceptions.best_match(validator.iter_errors(given))
    except (jsonschema.exceptions.JsonSchemaException, RecursionError, ValueError) as exc:
        raise errors.WebmcpSchemaInvalid(
            f"tool {tool.name!r}: its inputSchema cannot check input ({exc})"[:300],
            tool=tool.name,
        ) from None
    if problem is not None:
        raise errors.WebmcpInputInvalid(
            f"input does not match {tool.name}'s inputSchema at {problem.json_path}: "
            f"{problem.message[:300]}",
            path=problem.json_path,
            tool=tool.name,
        )


def call(
    tab: Tab,
    browser,
    name: str,
    given,
    *,
    frame: str | None = None,
    timeout: float,
    default_timeout_ms: int,
) -> dict:
    """Call the page's tool `name` with `given`; its output and the page's state after it, as
    an act's answer (navigation, opened tabs, dialogs), or the error that says what went wrong."""
    dialogs.check_not_blocked(tab)
    tool = registry(tab).find(name, frame, tab.target_id) if _has(tab, name) else None
    if tool is None:
        tools(tab)  # 501 when WebMCP is not there at all
        tool = registry(tab).find(name, frame, tab.target_id)
    validate_input(tool, given)
    deadline = time.monotonic() + timeout
    ctx = actions.Context(tab, browser, default_timeout_ms=default_timeout_ms)
    before = actions.Marks(tab, browser)
    invocation = _invoke(tab, tool, given, deadline)
    try:
        filled = _filled(tab, invocation, deadline) if waits_for_submit(tool) else None
        blocked = filled is None and _wait(tab, invocation, deadline)
    finally:
        registry(tab).end(invocation)
    extra = {"tool": tool.name, "frame": tool.frame_id}
    if filled is not None:
        extra.update(filled)
    else:
        extra.update(_outcome(tab, invocation) if not blocked else _pending(invocation))
    settle = max(deadline, time.monotonic() + SETTLE_AT_LEAST)
    return actions.respond(ctx, before, settle, extra, blocked=blocked)


def waits_for_submit(tool: PageTool) -> bool:
    """A `<form toolname>` without `toolautosubmit` (no `annotations.autosubmit`): Chromium
    fills it and leaves the submit to a person, or to the agent's click (docs/architecture.md,
    WebMCP)."""
    return tool.declarative and not tool.annotations.get("autosubmit")


def _filled(tab: Tab, invocation: Invocation, deadline: float) -> dict | None:
    """Once Chromium filled the form and waits for its submit: the answer that says so, with
    the form's ref, values and submit button; None when the tool answered first, a dialog or
    a navigation came, or the deadline passed (_wait then says which)."""
    tools = registry(tab)
    while invocation.response is None and time.monotonic() < deadline:
        tab.check_usable()
        if dialogs.state(tab).pending or invocation.removed or invocation.navigated:
            return None
        form = _on_form(invocation.tool, _FILLED)
        if isinstance(form, dict):
            return {
                "status": "AwaitingSubmit",
                "output": None,
                "invocationId": invocation.invocation_id,
                "form": {k: v for k, v in form.items() if v is not None},
            }
        tools.wait(invocation, min(POLL, deadline - time.monotonic()))
    return None


def _has(tab: Tab, name: str) -> bool:
    return any(t.name == name for t in registry(tab).tools())


def _invoke(tab: Tab, tool: PageTool, given: dict, deadline: float) -> Invocation:
    params = {"frameId": tool.frame_id, "toolName": tool.name, "input": given}
    try:
        reply = tool.session.call(
            "WebMCP.invokeTool", params, timeout=max(0.1, deadline - time.monotonic())
        )
    except errors.CdpTimeout:
        raise errors.WebmcpTimeout(f"tool {tool.name!r} was not started in time") from None
    except errors.CdpError as exc:
        tab.check_usable()
        if "not found" in exc.message.lower():
            raise errors.WebmcpToolNotFound(
                f"the page no longer offers tool {tool.name!r}", tool=tool.name
            ) from None
        raise errors.WebmcpToolFailed(
            f"Chromium refused to call {tool.name!r}: {exc.message}", tool=tool.name
        ) from None
    return registry(tab).begin(tool, reply["invocationId"])


def _wait(tab: Tab, invocation: Invocation, deadline: float) -> bool:
    """Until the tool answered (False), or a dialog blocks the page (True); 504 and the
    invocation cancelled at the deadline; a tool removed or navigated away gets GRACE to answer."""
    tools = registry(tab)
    gone_since = None
    while invocation.response is None:
        now = time.monotonic()
        tab.check_usable()
        if dialogs.state(tab).pending:
            return True
        if gone_since is None and (invocation.removed or invocation.navigated):
            gone_since = now
        if now >= deadline or (gone_since is not None and now - gone_since >= GRACE):
            _cancel(invocation)
            if now >= deadline and gone_since is None:
                raise errors.WebmcpTimeout(
                    f"tool {invocation.tool.name!r} did not answer within "
                    f"{now - invocation.started:.1f} s; the invocation was cancelled",
                    tool=invocation.tool.name,
                )
            return False
        tools.wait(invocation, min(POLL, deadline - now))
    return False


def _cancel(invocation: Invocation) -> None:
    invocation.tool.session.try_call(
        "WebMCP.cancelInvocation", {"invocationId": invocation.invocation_id}, timeout=2.0
    )


def _outcome(tab: Tab, invocation: Invocation) -> dict:
    """The answer's status and output, or the error for an answer that is not the tool's."""
    tool, response = invocation.tool, invocation.response or {}
    status = response.get("status")
    if invocation.navigated and tool.declarative:
        return {"status": "Completed", "output": None}  # a form that submitted: the page says
    if invocation.navigated:
        raise errors.WebmcpNavigatedAway(
            f"the page navigated away (now {tab.url}) before tool {tool.name!r} answered; what "
            "it did may or may not have taken effect",
            tool=tool.name,
        )
    if invocation.removed and status != "Completed":
        raise errors.WebmcpToolRemoved(
            f"the page removed tool {tool.name!r} while it ran", tool=tool.name
        )
    if status == "Error":
        raise errors.WebmcpToolFailed(
            f"tool {tool.name!r} failed: {_page_message(response)}", tool=tool.name
        )
    if status != "Completed":
        raise errors.WebmcpToolFailed(
            f"tool {tool.name!r} answered {status or 'nothing'}", tool=tool.name
        )
    return {"status": "Completed", "output": _bounded(tool, response.get("output"))}


def _pending(invocation: Invocation) -> dict:
    """A dialog opened before the tool answered: the call goes on in the page, as an act
    reports a dialog (answer it with POST /hooks/dialog)."""
    return {"status": "Pending", "output": None, "invocationId": invocation.invocation_id}


def _page_message(response: dict) -> str:
    text = response.get("errorText") or ""
    exception = response.get("exception") or {}
    described = str(exception.get("description") or exception.get("value") or "")
    return (text or described.split("\n", 1)[0] or "no message")[:1000]


def _bounded(tool: PageTool, output):
    size = len(json.dumps(output, ensure_ascii=False))
    if size > MAX_OUTPUT_CHARS:
        raise errors.WebmcpOutputTooLarge(
            f"tool {tool.name!r} answered {size} characters; an answer carries at most "
            f"{MAX_OUTPUT_CHARS}",
            tool=tool.name,
            size=size,
        )
    return output
