"""docs/api.md, the HTTP API's reference in Markdown: the conventions, then the route table
(server/routes.py) with each route's fields (clawd/route_fields.py) and POST /act's kinds (the
act table, clawd/acts.py). `python -m clawd.docs.api_doc docs/api.md` writes it; a test keeps the
committed file current."""

from __future__ import annotations

import pathlib
import sys

from clawd import acts
from clawd.docs.api_page import act_field_facts

CONVENTIONS = """\
# The HTTP API

clawd is a loopback HTTP service (`server.host:server.port`, default `127.0.0.1:18791`). The
CLI, the Python client (`clawd.client.Client`, one method per route), the agent tool and the MCP
server all use this API; scripts may call it directly. This page is generated from the route
table (`clawd/server/routes.py`), the route fields (`clawd/route_fields.py`) and the act table
(`clawd/acts.py`) by `python -m clawd.docs.api_doc docs/api.md`; a test fails when it drifts.

## Conventions

- **JSON in and out.** Request bodies are at most 1 MiB (an upload's raw body has its own
  limit). A field no route declares is a 400 naming the fields it takes; a missing required
  field or a bad value is a 400 naming the field.
- **Auth.** When a token or password exists (one is generated into `$CLAWD_HOME/auth-token` when
  none is configured), every request needs `Authorization: Bearer <token>`, or the password in
  `X-Clawd-Password` (or `X-OpenClaw-Password`) or HTTP Basic. A state-changing request from a
  cross-site page, or a `Host` that is not loopback or the configured host, is 403
  (`docs/security.md`).
- **Errors** answer `{"error": "<message>", "code": "<CODE>"}` with the HTTP status of the
  error's class (`clawd/errors.py`), sometimes with fields of their own (`retryAfter`,
  `covering`, `dialog`). No traceback reaches a client: an unexpected exception is 500
  `INTERNAL`, logged. The Python client raises the same exception class again.
- **Profiles.** Every route accepts `?profile=NAME`; the query wins over a body field
  `profile`. An unknown profile is 404 `PROFILE_NOT_FOUND`.
- **Tabs.** Every tab has a stable id (`t1`, `t2`, ..., never reused within a run) and an
  optional label beside Chromium's raw target id. Wherever a tab is named (`targetId`), a stable
  id, a label, a raw id or a unique case-insensitive prefix of one works; an ambiguous one is
  409. Omitted, it is the last tab used, else the first page tab. An answer about a tab starts
  `{ok, targetId, tabId, ...}`.
- **wrap.** With `wrap=true` (the agent tool and MCP always send it), the free text a page or a
  provider wrote is put between untrusted-content markers and every other page-written string
  is sanitized; with `wrap=false` a script gets the data as written (`docs/security.md`).
- **Media.** Screenshots, PDFs, traces and labelled images are saved under `$CLAWD_HOME` and
  answered as `{path, mediaUrl}`; `GET /media/<name>` serves the bytes (auth applies).
- **Tool policy.** Every route belongs to an agent tool or browser action
  (`tools.allow`/`deny`): a denied one answers 403 `TOOL_DENIED`.
- **OpenClaw's names.** Fields marked "alias of" are OpenClaw's spellings, read as the field
  they name; giving both with different values is a 400. Refs may be written bare (`12`).

The snapshot format is `docs/snapshot.md`; acting on a page (actionability, waiting, the act
answer) is `docs/actions.md`.
"""


def render(routes) -> str:
    """The whole page: conventions, the routes in table order, then POST /act's kinds."""
    lines = [CONVENTIONS, "## Routes", ""]
    for route in routes:
        lines += _route(route)
    lines += _act_kinds()
    return "\n".join(lines).rstrip("\n") + "\n"


def _route(route) -> list[str]:
    lines = [f"### `{route.method} {route.pattern}`", ""]
    doc = (route.endpoint.__doc__ or "").strip().splitlines()
    if doc:
        lines += [doc[0].strip(), ""]
    if route.tool:
        lines += [f"Tool: `{route.tool}`.", ""]
    if route.raw_limit:
        lines += [f"Body: the bytes themselves, at most {route.raw_limit >> 20} MiB.", ""]
    elif route.method == "POST" and route.pattern == "/act":
        lines += ["Body: an act request (see POST /act's kinds below).", ""]
    elif route.body is not None or route.method in ("POST", "PUT", "PATCH"):
        lines += _fields("Body", route.body)
    if route.query:
        lines += _fields("Query", route.query)
    return lines


def _fields(where: str, spec) -> list[str]:
    if spec is None:
        return [f"{where}: read by the endpoint.", ""]
    if not spec:
        return [f"{where}: none.", ""]
    return [f"{where}:", ""] + [_field(name, f) for name, f in spec.items()] + [""]


def _field(name: str, field) -> str:
    if field.alias_of:
        return f"- `{name}`: alias of `{field.alias_of}`"
    facts = [_schema_words(field.schema())]
    facts += ["required"] if field.required else []
    text = f"- `{name}` ({', '.join(f for f in facts if f)})"
    return f"{text}: {field.help}" if field.help else text


def _schema_words(schema: dict) -> str:
    words = []
    if "enum" in schema:
        words.append("one of " + ", ".join(str(v) for v in schema["enum"]))
    elif "type" in schema:
        kind = schema["type"]
        words.append(" or ".join(kind) if isinstance(kind, list) else kind)
    bounds = [f"{k} {schema[k]:g}" for k in ("minimum", "maximum") if k in schema]
    return ", ".join(words + bounds)


def _act_kinds() -> list[str]:
    common = ", ".join(f"`{p.name}`" for p in acts.COMMON if p.name != "kind")
    lines = [
        "## POST /act's kinds",
        "",
        f"The body names a `kind`; every kind also takes {common}. A CSS selector where a ref "
        "belongs is refused (`ACT_SELECTOR_UNSUPPORTED`).",
        "",
    ]
    for kind in acts.KINDS.values():
        lines += [f"### `{kind.name}`", "", kind.help[0].upper() + kind.help[1:] + ".", ""]
        lines += [_act_field(p) for p in kind.params]
        lines += [""] if kind.params else []
    return lines


def _act_field(param) -> str:
    return f"- `{param.name}` ({', '.join(act_field_facts(param))}): {param.help}"


def write(path: str | pathlib.Path) -> pathlib.Path:
    from clawd.server.routes import ROUTES

    out = pathlib.Path(path)
    out.write_text(render(ROUTES), encoding="utf-8")
    return out


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    print(write(args[0] if args else "docs/api.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
