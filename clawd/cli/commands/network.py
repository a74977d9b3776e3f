"""Network control: `route add|list|remove` (the profile's routes) and `har start|stop` (a HAR
recording of one tab)."""

from __future__ import annotations

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, group, route_help


def route_add(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.add_route(
        a.url,
        a.action,
        resource_type=a.resource_type,
        method=a.method,
        status=a.status,
        headers=_headers(a.header) or None,
        body=a.body,
        body_path=a.body_path,
        rewrite_url=a.rewrite_url,
        times=a.times,
    )
    output.emit(inv, result, output.render_fields)


def _headers(lines: list[str] | None) -> dict[str, str]:
    headers = {}
    for line in lines or ():
        name, colon, value = line.partition(":")
        if not colon or not name.strip():
            raise UsageError(f"--header takes 'Name: value', not {line!r}")
        headers[name.strip()] = value.strip()
    return headers


def route_list(inv: Invocation) -> None:
    output.emit(inv, inv.client.routes(), _render_routes)


def _render_routes(result: dict) -> str:
    rows = []
    for r in result.get("routes", []):
        extra = f" -> {r['status']}" if r["action"] == "fulfill" else ""
        left = f", {r['remaining']} left" if "remaining" in r else ""
        rows.append(
            f"{r['routeId']}  {r['action']}{extra}  {r['url']}  ({r['matched']} matched{left})"
        )
    return "\n".join(rows) or "no routes"


def route_remove(inv: Invocation) -> None:
    output.emit(inv, inv.client.remove_route(inv.args.route_id), output.render_fields)


def har_start(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.har_start(
        content=a.content, url_filter=a.url_filter, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def har_stop(inv: Invocation) -> None:
    result = inv.client.har_stop(path=inv.args.path, target_id=inv.target())
    output.emit(inv, result, output.render_media)


def add_parsers(sub) -> None:
    _route_parsers(sub)
    _, actions = group(sub, "har", "record the tab's requests as a HAR file", tab=True)
    p = command(actions, "start", har_start, "start recording", tab=True)
    p.add_argument(
        "--content",
        choices=("omit", "embed", "attach"),
        help=route_help("POST", "/har/start", "content"),
    )
    p.add_argument(
        "--url-filter", metavar="GLOB", help=route_help("POST", "/har/start", "urlFilter")
    )
    p = command(actions, "stop", har_stop, "stop recording and write the HAR", tab=True)
    p.add_argument("--path", metavar="PATH", help=route_help("POST", "/har/stop", "path"))


def _route_parsers(sub) -> None:
    _, actions = group(sub, "route", "answer, fail or change the profile's network requests")
    p = command(actions, "add", route_add, "add a route (the newest matching route answers)")
    p.add_argument("url", metavar="URL", help=route_help("POST", "/route", "url"))
    p.add_argument(
        "action",
        choices=("fulfill", "abort", "continue"),
        help=route_help("POST", "/route", "action"),
    )
    p.add_argument(
        "--resource-type", metavar="TYPE", help=route_help("POST", "/route", "resourceType")
    )
    p.add_argument("--method", metavar="METHOD", help=route_help("POST", "/route", "method"))
    p.add_argument("--status", type=int, metavar="N", help=route_help("POST", "/route", "status"))
    p.add_argument(
        "--header",
        action="append",
        metavar="'NAME: VALUE'",
        help="fulfill: a header of the answer; continue: a header set on the request (repeatable)",
    )
    body = p.add_mutually_exclusive_group()
    body.add_argument("--body", metavar="TEXT", help=route_help("POST", "/route", "body"))
    body.add_argument("--body-path", metavar="PATH", help=route_help("POST", "/route", "bodyPath"))
    p.add_argument("--rewrite-url", metavar="URL", help=route_help("POST", "/route", "rewriteUrl"))
    p.add_argument("--times", type=int, metavar="N", help=route_help("POST", "/route", "times"))
    command(actions, "list", route_list, "list the profile's routes")
    p = command(actions, "remove", route_remove, "remove a route")
    p.add_argument("route_id", metavar="ID", help="the route's id (r1), from `route list`")
