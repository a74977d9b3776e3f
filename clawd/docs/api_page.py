"""The HTTP API section of clawd-browser(1): the route table (server/routes.py) with the fields
each route reads, and POST /act's kinds with their fields (the act table, clawd/acts.py)."""

from __future__ import annotations

from clawd import acts
from clawd.docs.roff import bold, text


def _route_fields(spec) -> str:
    if spec is None:
        return "read by the endpoint"
    if not spec:
        return "none"
    return ", ".join(f"{bold(name)}{_field_note(field)}" for name, field in spec.items())


def _field_note(field) -> str:
    if field.alias_of:
        return f" (alias of {bold(field.alias_of)})"
    return " (required)" if field.required else ""


def _route_item(route) -> list[str]:
    lines = [".TP", f"{bold(route.method)} {bold(route.pattern)}"]
    doc = (route.endpoint.__doc__ or "").strip().splitlines()
    if doc:
        lines.append(text(doc[0]))
        lines.append(".br")
    if route.raw_limit:
        lines += [f"body: the bytes themselves, at most {route.raw_limit >> 20} MiB", ".br"]
    elif route.body is not None or route.method in ("POST", "PUT", "PATCH"):
        lines += [f"body: {_route_fields(route.body)}", ".br"]
    if route.query:
        lines += [f"query: {_route_fields(route.query)}", ".br"]
    if lines[-1] == ".br":
        lines.pop()
    return lines


def api_section(routes) -> list[str]:
    lines = [
        ".SH HTTP API",
        text(
            "clawd-browser is a client of the clawd service's HTTP API, which scripts may call "
            "directly. Requests and answers are JSON (request bodies at most 1 MiB). When a token "
            "or password exists, every request needs it: "
        ),
        ".BR \"Authorization: Bearer \" \\fITOKEN\\fR,",
        ".BR \"X\\-Clawd\\-Password: \" \\fIPASSWORD\\fR",
        text("(or X-OpenClaw-Password, which agents written for OpenClaw send),"),
        text(
            "or HTTP Basic with the password. Every route accepts ?profile=NAME (the query wins "
            "over a body field profile). Wherever a tab is named (targetId), a stable id (t1), a "
            "label, a raw target id or a unique prefix of one works. Errors answer "
            '{"error": MESSAGE, "code": CODE} with the HTTP status of the error.'
        ),
        ".PP",
        text("The routes, with the body and query fields each reads (any other field is a 400):"),
    ]
    for route in routes:
        lines += _route_item(route)
    return lines + _act_kinds_section()


def _act_kinds_section() -> list[str]:
    """POST /act's kinds and their fields, from the act table (clawd/acts.py)."""
    common = ", ".join(bold(p.name) for p in acts.COMMON if p.name != "kind")
    lines = [
        ".SS POST /act",
        text("The body names a kind; every kind also takes"),
        f"{common}.",
        text("A CSS selector where a ref belongs is refused (ACT_SELECTOR_UNSUPPORTED)."),
    ]
    for kind in acts.KINDS.values():
        lines += [".TP", bold(kind.name), text(kind.help)]
        if kind.params:
            lines += [".br", "fields: " + "; ".join(_act_field(p) for p in kind.params)]
    return lines


def act_field_facts(param) -> list[str]:
    """An act field's type in words, whether it is required, its bounds (also docs/api.md's)."""
    return [param.read.words(), *(["required"] if param.required else [])]


def _act_field(param) -> str:
    facts = act_field_facts(param)
    return f"{bold(param.name)} ({text(', '.join(facts))}): {text(param.help)}"
