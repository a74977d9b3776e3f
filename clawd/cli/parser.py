"""The whole `clawd-browser` argument tree: the CLI's one declaration, also rendered as its man
page.

Every parser sets `func` (its handler in cli/commands/) and `needs_service` (False for commands that
run without a service: serve, config, mcp). Every parser and flag carries help text.
"""

from __future__ import annotations

import argparse

from clawd import __version__, acts
from clawd.cli.commands import (
    act,
    basic,
    config_cmd,
    debug,
    doctor,
    extension,
    mcp,
    page,
    sandbox,
    serve,
    settings,
    state,
    tabs,
    web,
)

EPILOG = """exit status: 0 ok, 1 error, 2 usage, 3 service unreachable, 4 not found, 5 timeout.
Refs (e12, @e12, ref=e12, or just 12) come from `clawd-browser snapshot`."""

WORD_HELP = {"fields": "a field ref and its text value"}  # fill's REF=VALUE pairs


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clawd-browser",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Drive clawd's own Chromium through the clawd service: read pages as "
        "accessibility text with refs, act on refs, take screenshots and PDFs.",
    )
    _global_flags(parser)
    sub = parser.add_subparsers(
        dest="command",
        metavar="COMMAND",
        required=True,
        title="commands",
        help="what to do; `clawd-browser COMMAND --help` for its options",
    )
    for group in (_basic, _tabs, _page, _act, _debug, _state, _settings, web.add_parsers, _service):
        group(sub)
    return parser


def _global_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help="print the version and exit",
    )
    # dest names are prefixed: commands have their own url/password arguments
    # (navigate URL, set credentials)
    parser.add_argument(
        "--url",
        dest="service_url",
        metavar="URL",
        help="control URL of the service (default: cli.url from the config, else "
        "http://server.host:server.port, i.e. http://127.0.0.1:18791)",
    )
    token = parser.add_mutually_exclusive_group()
    token.add_argument(
        "--token",
        dest="service_token",
        metavar="TOKEN",
        help="bearer token, written --token=TOKEN; --token-file or $CLAWD_TOKEN keep it "
        "out of ps (default: server.auth.token, $CLAWD_TOKEN, then $CLAWD_HOME/auth-token)",
    )
    token.add_argument(
        "--token-file",
        dest="service_token_file",
        metavar="PATH",
        help="read the bearer token from the first line of PATH",
    )
    password = parser.add_mutually_exclusive_group()
    password.add_argument(
        "--password",
        dest="service_password",
        metavar="PASSWORD",
        help="service password, written --password=PASSWORD; --password-file or "
        "$CLAWD_PASSWORD keep it out of ps (default: server.auth.password, $CLAWD_PASSWORD)",
    )
    password.add_argument(
        "--password-file",
        dest="service_password_file",
        metavar="PATH",
        help="read the service password from the first line of PATH",
    )
    parser.add_argument(
        "--browser-profile",
        "--profile",
        dest="profile",
        metavar="NAME",
        help="browser profile to use (default: the service's browser.defaultProfile)",
    )
    parser.add_argument(
        "--json", action="store_true", help="print the service's JSON answer instead of text"
    )
    parser.add_argument(
        "--config",
        metavar="PATH",
        help="configuration file (default: $CLAWD_CONFIG, ~/.clawd/clawd.yaml, "
        "/etc/clawd/clawd.yaml, else built-in defaults)",
    )
    parser.add_argument(
        "--autostart",
        action="store_true",
        default=None,
        help="start a local service in the background when a loopback control URL "
        "does not answer (also cli.autostart in the config)",
    )
    parser.add_argument(
        "--timeout",
        dest="service_timeout",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="how long to wait for the service's answer (default: 60)",
    )


def _json_flag() -> argparse.ArgumentParser:
    """`--json` after the command too; SUPPRESS keeps a global --json from being reset."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument(
        "--json", action="store_true", help="print the service's JSON answer instead of text"
    )
    return parent


def _target_flag() -> argparse.ArgumentParser:
    """SUPPRESS: on `set --target t2 offline on` the sub-action's default must not undo the
    group's flag."""
    parent = argparse.ArgumentParser(add_help=False, argument_default=argparse.SUPPRESS)
    parent.add_argument(
        "--target",
        metavar="T",
        help="tab to use: stable id (t1), label, raw target id or a unique prefix of one "
        "(default: the last tab used)",
    )
    return parent


_JSON = _json_flag()
_TARGET = _target_flag()


def _command(
    sub,
    name: str,
    func,
    help: str,
    *,
    tab: bool = False,
    needs_service: bool = True,
    description: str | None = None,
    json_output: bool = True,
) -> argparse.ArgumentParser:
    """json_output=False: the command's own --json takes a value (`set headers --json '{...}'`)."""
    parents = ([_JSON] if json_output else []) + ([_TARGET] if tab else [])
    parser = sub.add_parser(name, help=help, description=description or help, parents=parents)
    parser.set_defaults(func=func, needs_service=needs_service)
    return parser


def _group(
    sub,
    name: str,
    help: str,
    *,
    required: bool = True,
    func=None,
    tab: bool = False,
    needs_service: bool = True,
    before=None,
):
    """A command with sub-actions (tab, trace, cookies, storage, set, profile, config);
    `before` adds positionals that come ahead of the action (`storage local get`)."""
    parser = _command(sub, name, func, help, tab=tab, needs_service=needs_service)
    if before:
        before(parser)
    actions = parser.add_subparsers(
        dest=f"{name}_action",
        metavar="ACTION",
        required=required,
        title="actions",
        help=f"`clawd-browser {name} ACTION --help` for an action's options",
    )
    return parser, actions


# -- basic -----------------------------------------------------------------------------------------
def _basic(sub) -> None:
    _command(sub, "status", basic.status, "show the service and browser status")
    p = _command(sub, "start", basic.start, "start the browser of the profile")
    p.add_argument(
        "--headless", action="store_true", help="start headless this once, whatever the config says"
    )
    _command(
        sub,
        "stop",
        basic.stop,
        "stop the browser of the profile (a remote browser is only disconnected)",
    )
    _command(sub, "profiles", basic.profiles, "list browser profiles")
    _, actions = _group(sub, "profile", "create or delete a browser profile")
    _profile_create(actions, "create")
    _profile_delete(actions, "delete")
    _profile_create(sub, "create-profile")  # OpenClaw's spellings
    _profile_delete(sub, "delete-profile")
    p = _command(
        sub,
        "reset-profile",
        basic.reset_profile,
        "stop the browser and move the profile's user data (cookies, storage, history) to "
        "$CLAWD_HOME/trash, leaving a fresh profile",
    )
    p.add_argument(
        "--purge",
        action="store_true",
        help="erase the user data instead of keeping it in the trash",
    )


def _profile_create(sub, name: str) -> None:
    p = _command(sub, name, basic.create_profile, "create a browser profile")
    p.add_argument(
        "name", metavar="NAME", help="profile name: lowercase letters, digits and dashes"
    )
    p.add_argument(
        "--color", metavar="HEX", help="profile color such as #0066CC (default: the first unused)"
    )
    p.add_argument(
        "--cdp-url", metavar="URL", help="attach to this DevTools endpoint instead of launching"
    )
    p.add_argument(
        "--driver",
        choices=("managed", "remote", "existing-session"),
        help="how the browser is obtained (default: managed, or remote with --cdp-url)",
    )
    p.add_argument(
        "--user-data-dir", metavar="DIR", help="existing-session: the browser's user data directory"
    )


def _profile_delete(sub, name: str) -> None:
    p = _command(
        sub,
        name,
        basic.delete_profile,
        "delete a browser profile; its user data goes to $CLAWD_HOME/trash",
    )
    p.add_argument("name", metavar="NAME", help="profile to delete")
    p.add_argument(
        "--purge",
        action="store_true",
        help="erase the user data instead of keeping it in the trash",
    )


# -- tabs ------------------------------------------------------------------------------------------
def _tabs(sub) -> None:
    _command(sub, "tabs", tabs.list_tabs, "list open tabs")
    _, actions = _group(
        sub,
        "tab",
        "list tabs, or open, select or close one by index",
        required=False,
        func=tabs.tab_list,
    )
    p = _command(actions, "new", tabs.tab_new, "open a new tab")
    p.add_argument("url", metavar="URL", nargs="?", help="address to open (default: about:blank)")
    p.add_argument("--label", metavar="L", help="a name to address the tab by later (--target L)")
    p = _command(actions, "select", tabs.tab_select, "make the tab at an index the current one")
    p.add_argument("index", metavar="N", type=int, help="tab index as `tab` lists them, from 0")
    p = _command(actions, "close", tabs.tab_close, "close the tab at an index")
    p.add_argument("index", metavar="N", type=int, help="tab index as `tab` lists them, from 0")
    p = _command(sub, "open", tabs.open_tab, "open a URL in a new tab")
    p.add_argument("url", metavar="URL", help="address to open (http, https or about:blank)")
    p.add_argument("--label", metavar="L", help="a name to address the tab by later (--target L)")
    p.add_argument(
        "--timeout-ms",
        type=int,
        metavar="MS",
        help="how long to wait for the page to load (default: 30000)",
    )
    p = _command(sub, "focus", tabs.focus, "make a tab the current one and bring it to front")
    p.add_argument(
        "target", metavar="TARGET", help="stable id (t1), label, or raw target id prefix"
    )
    p = _command(sub, "close", tabs.close, "close a tab (default: the current one)")
    p.add_argument(
        "target", metavar="TARGET", nargs="?", help="stable id (t1), label, or raw target id prefix"
    )


# -- page ------------------------------------------------------------------------------------------
def _page(sub) -> None:
    p = _command(sub, "navigate", page.navigate, "load a URL in a tab", tab=True)
    p.add_argument("url", metavar="URL", help="address to load (http, https or about:blank)")
    p.add_argument(
        "--timeout-ms",
        type=int,
        metavar="MS",
        help="how long to wait for the page to load (default: 30000)",
    )
    _snapshot(sub)
    p = _command(
        sub,
        "find",
        page.find,
        "find snapshot lines whose role, name or text contains TEXT",
        tab=True,
    )
    p.add_argument("text", metavar="TEXT", help="text to look for (case-insensitive)")
    p.add_argument("--limit", type=int, metavar="N", help="at most N matches")
    p = _command(
        sub, "screenshot", page.screenshot, "capture the page or one element as an image", tab=True
    )
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the image here (fetched over HTTP, so it works with a remote service); "
        "default: print the path on the service's machine",
    )
    p.add_argument(
        "--full-page", action="store_true", help="the whole scrollable page, not just the viewport"
    )
    p.add_argument("--ref", metavar="R", help="only the element with this ref")
    p.add_argument(
        "--type", choices=("png", "jpeg"), default="png", help="image format (default: png)"
    )
    p.add_argument("--quality", type=int, metavar="Q", help="jpeg quality 1-100")
    p.add_argument("--labels", action="store_true", help="outline and label every ref on the image")
    p.add_argument(
        "--describe",
        action="store_true",
        help="print a description in words by the service's vision describers (browser.vision) "
        "instead of the image; when they all fail, the image comes back with a note",
    )
    p = _command(sub, "pdf", page.pdf, "print the page to PDF", tab=True)
    p.add_argument(
        "--out",
        metavar="FILE",
        help="save the PDF here (fetched over HTTP); default: print the "
        "path on the service's machine",
    )
    p.add_argument("--landscape", action="store_true", help="landscape pages")


def _snapshot(sub) -> None:
    p = _command(
        sub,
        "snapshot",
        page.snapshot,
        "print the page as accessibility text with element refs",
        tab=True,
    )
    p.add_argument(
        "--format",
        choices=("ai", "aria"),
        help="ai: Playwright-style aria text (default); aria: the raw accessibility node list",
    )
    p.add_argument(
        "--interactive", action="store_true", help="only interactive elements, as a flat list"
    )
    p.add_argument(
        "--compact", action="store_true", help="drop unnamed structure with nothing ref'd inside"
    )
    p.add_argument("--depth", type=int, metavar="N", help="nothing deeper than N levels")
    p.add_argument(
        "--max-chars",
        type=int,
        metavar="N",
        help="cut the text at N characters on a whole line (0: no limit; default 80000)",
    )
    p.add_argument(
        "--efficient",
        action="store_true",
        help="interactive + compact + depth 6 + max-chars 10000 where not given",
    )
    p.add_argument(
        "--selector", metavar="CSS", help="only the subtree of the first element matching CSS"
    )
    p.add_argument("--frame", metavar="REF", help="the document inside this iframe ref")
    p.add_argument(
        "--limit", type=int, metavar="N", help="aria format: at most N nodes (default 500)"
    )
    p.add_argument(
        "--labels", action="store_true", help="also a screenshot with every ref outlined"
    )
    p.add_argument("--urls", action="store_true", help="give links their absolute [url=...]")
    p.add_argument(
        "--no-refs",
        action="store_true",
        help="no refs: the text Playwright's ariaSnapshot() prints",
    )
    p.add_argument(
        "--refs",
        choices=("aria", "role"),
        help="aria: refs bound to their element (default); role: a ref whose element a re-render "
        "replaced acts on the element with the same role, name and nth",
    )
    p.add_argument(
        "--wrap", action="store_true", help="wrap the page text in untrusted-content markers"
    )
    p.add_argument(
        "--out", metavar="FILE", help="write the snapshot to FILE instead of printing it"
    )


# -- act -------------------------------------------------------------------------------------------
def _act(sub) -> None:
    for kind in acts.KINDS.values():
        if kind.command:
            _act_kind(sub, kind)
    p = _command(
        sub, "highlight", act.highlight, "outline an element on the page for a moment", tab=True
    )
    p.add_argument("ref", metavar="REF", help="element ref from the snapshot")
    p.add_argument(
        "--duration-ms", type=int, metavar="MS", help="how long the outline stays (100-10000)"
    )
    _hooks(sub)


def _act_kind(sub, kind: acts.Kind) -> None:
    """A command of the act table: its fields as words and flags,
    as the table says to write them."""
    p = _command(sub, kind.command, act.act_kind, kind.help, tab=True)
    p.set_defaults(act_kind=kind.name)
    for param in (*kind.params, *acts.COMMON):
        if param.cli is not None:
            _act_field(p, param)


def _act_field(p: argparse.ArgumentParser, param: acts.Param) -> None:
    """One field: a word (several for a list), a flag (with no value for a boolean; fill's fields
    as JSON), and the word a flag may also be written as."""
    cli, how = param.cli, _value_spec(param)
    if cli.flag is None:
        p.add_argument(param.name, metavar=cli.metavar, help=param.help, **how)
        return
    if param.type == "boolean":
        how = {"action": "store_true", "default": None}
    else:
        how["metavar"] = cli.metavar
    as_json = ", as JSON" if param.type == "fields" else ""
    p.add_argument(cli.flag, dest=param.name, help=param.help + as_json, **how)
    if cli.word:
        p.add_argument(
            f"{param.name}_word",
            metavar=cli.word,
            nargs="*" if as_json else "?",
            help=WORD_HELP.get(param.type, f"{param.help} (as {cli.flag})"),
        )


def _value_spec(param: acts.Param) -> dict:
    """How argparse reads the field's value(s)."""
    if param.type == "modifiers":
        return {"nargs": "+", "choices": acts.MODIFIERS}
    if param.choices:
        return {"choices": param.choices}
    nargs = {"nargs": "+"} if param.type == "strings" else {}
    return {"type": {"integer": int, "number": float, "timeout": int}.get(param.type, str), **nargs}


def _hooks(sub) -> None:
    p = _command(
        sub, "dialog", act.dialog, "answer a pending (or the next) JavaScript dialog", tab=True
    )
    answer = p.add_mutually_exclusive_group(required=True)
    answer.add_argument(
        "--accept", dest="accept", action="store_true", default=None, help="press OK"
    )
    answer.add_argument("--dismiss", dest="accept", action="store_false", help="press Cancel")
    p.add_argument("--prompt-text", metavar="TEXT", help="text to answer a prompt() with")
    p.add_argument("--dialog-id", metavar="ID", help="which pending dialog (default: the oldest)")
    p = _command(sub, "upload", act.upload, "set files on a file chooser or file input", tab=True)
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help="file under $CLAWD_HOME/uploads on the service's machine",
    )
    p.add_argument("--ref", metavar="REF", help="click this element to open the chooser")
    p.add_argument(
        "--input-ref", metavar="REF", help="set the files on this <input type=file> directly"
    )
    p.add_argument(
        "--element", metavar="CSS", help="set the files on the <input type=file> matching CSS"
    )
    p = _command(
        sub, "download", act.download, "click an element and save what it downloads", tab=True
    )
    p.add_argument("ref", metavar="REF", help="element ref that starts the download")
    p.add_argument(
        "file", metavar="FILE", nargs="?", help="file name under $CLAWD_HOME/downloads (as --path)"
    )
    p.add_argument("--path", metavar="PATH", help="file name under $CLAWD_HOME/downloads")
    p = _command(
        sub,
        "waitfordownload",
        act.wait_for_download,
        "wait for the next download to finish",
        tab=True,
    )
    p.add_argument(
        "file", metavar="FILE", nargs="?", help="save it under this name in $CLAWD_HOME/downloads"
    )
    p.add_argument("--timeout-ms", type=int, metavar="MS", help="give up after MS")


# -- debug -----------------------------------------------------------------------------------------
def _debug(sub) -> None:
    p = _command(sub, "console", debug.console, "print the page's console messages", tab=True)
    p.add_argument(
        "--level",
        choices=("debug", "log", "info", "warning", "error"),
        help="only messages of this level and above",
    )
    p.add_argument("--clear", action="store_true", help="forget them after printing")
    p.add_argument(
        "--wrap", action="store_true", help="wrap page-controlled text in untrusted-content markers"
    )
    p = _command(sub, "errors", debug.errors, "print uncaught page errors", tab=True)
    p.add_argument("--clear", action="store_true", help="forget them after printing")
    p.add_argument(
        "--wrap", action="store_true", help="wrap page-controlled text in untrusted-content markers"
    )
    p = _command(sub, "requests", debug.requests, "print the page's network requests", tab=True)
    p.add_argument("--filter", metavar="TEXT", help="only URLs containing TEXT")
    p.add_argument("--clear", action="store_true", help="forget them after printing")
    p = _command(
        sub,
        "responsebody",
        debug.response_body,
        "print the body of a response the page received",
        tab=True,
    )
    p.add_argument("url", metavar="URL", help="the request URL (or a unique part of it)")
    p.add_argument(
        "--timeout-ms", type=int, metavar="MS", help="wait this long for the response to arrive"
    )
    p.add_argument("--max-chars", type=int, metavar="N", help="cut the body at N characters")
    p.add_argument(
        "--wrap", action="store_true", help="wrap page-controlled text in untrusted-content markers"
    )
    _, actions = _group(sub, "trace", "record a performance trace", tab=True)
    p = _command(actions, "start", debug.trace_start, "start recording", tab=True)
    p.add_argument("--screenshots", action="store_true", help="include screenshots in the trace")
    p.add_argument(
        "--snapshots",
        action="store_true",
        help="include layer and paint snapshots (DevTools' Layers and Paint profiler)",
    )
    p.add_argument("--sources", action="store_true", help="include the text of the page's scripts")
    p = _command(actions, "stop", debug.trace_stop, "stop recording and save the trace", tab=True)
    p.add_argument("--path", metavar="PATH", help="file name under $CLAWD_HOME/traces")


# -- state -----------------------------------------------------------------------------------------
def _state(sub) -> None:
    p, actions = _group(
        sub, "cookies", "list, set or clear cookies", required=False, func=state.cookies, tab=True
    )
    p.add_argument(
        "--all", action="store_true", help="every cookie of the browser, not just the page's"
    )
    _cookie_set(actions)
    _command(actions, "clear", state.clear_cookies, "delete every cookie", tab=True)
    _, actions = _group(
        sub,
        "storage",
        "read or change the page's localStorage or sessionStorage",
        required=False,
        func=state.storage_get,
        tab=True,
        before=_storage_kind,
    )
    p = _command(actions, "get", state.storage_get, "print one key, or every key", tab=True)
    p.add_argument("key", metavar="KEY", nargs="?", help="key to print (default: all)")
    p = _command(actions, "set", state.storage_set, "set a key", tab=True)
    p.add_argument("key", metavar="KEY", help="key to set")
    p.add_argument("value", metavar="VALUE", help="its value")
    _command(actions, "clear", state.storage_clear, "remove every key", tab=True)


def _storage_kind(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=("local", "session"), help="which storage")


def _cookie_set(actions) -> None:
    p = _command(actions, "set", state.set_cookie, "set a cookie", tab=True)
    p.add_argument("name_arg", metavar="NAME", nargs="?", help="cookie name (or --name)")
    p.add_argument("value_arg", metavar="VALUE", nargs="?", help="cookie value (or --value)")
    p.add_argument("--name", help="cookie name")
    p.add_argument("--value", help="cookie value")
    p.add_argument("--url", help="URL the cookie belongs to (or give --domain)")
    p.add_argument("--domain", help="domain the cookie belongs to (or give --url)")
    p.add_argument("--path", help="cookie path (default: /)")
    p.add_argument("--secure", action="store_true", help="only sent over https")
    p.add_argument("--http-only", action="store_true", help="hidden from page JavaScript")
    p.add_argument("--same-site", choices=("Strict", "Lax", "None"), help="SameSite attribute")
    p.add_argument(
        "--expires",
        type=float,
        metavar="EPOCH",
        help="expiry in seconds since the epoch (default: a session cookie)",
    )


# -- settings --------------------------------------------------------------------------------------
def _settings(sub) -> None:
    _, actions = _group(
        sub, "set", "emulate network, location, media, locale or device for a tab", tab=True
    )
    p = _command(
        actions,
        "offline",
        settings.offline,
        "cut the page off the network, or reconnect it",
        tab=True,
    )
    p.add_argument("state", choices=("on", "off"), help="on: offline; off: back online")
    p = _command(
        actions,
        "headers",
        settings.headers,
        "send extra HTTP headers with every request",
        tab=True,
        json_output=False,
    )
    p.add_argument(
        "--headers-json",
        "--json",
        dest="headers_json",
        metavar="JSON",
        help='headers as a JSON object: {"X-Team": "qa"} (here --json takes the headers; '
        "clawd-browser --json set headers ... prints JSON)",
    )
    p.add_argument("--clear", action="store_true", help="stop sending extra headers")
    p = _command(
        actions,
        "credentials",
        settings.credentials,
        "answer HTTP authentication challenges",
        tab=True,
    )
    p.add_argument("username", metavar="USER", nargs="?", help="user name")
    p.add_argument(
        "password",
        metavar="PASS",
        nargs="?",
        help="password (one that begins with '-' goes after --: USER -- PASS)",
    )
    p.add_argument(
        "--password-file", metavar="PATH", help="read PASS from the first line of PATH instead"
    )
    p.add_argument("--clear", action="store_true", help="forget the credentials")
    _geo(actions)
    p = _command(actions, "media", settings.media, "emulate CSS media features", tab=True)
    p.add_argument(
        "scheme",
        metavar="SCHEME",
        nargs="?",
        choices=("light", "dark", "no-preference", "none"),
        help="prefers-color-scheme, as --color-scheme",
    )
    p.add_argument(
        "--color-scheme",
        choices=("light", "dark", "no-preference", "none"),
        help="prefers-color-scheme (none: clear the override)",
    )
    p.add_argument(
        "--reduced-motion",
        choices=("reduce", "no-preference", "none"),
        help="prefers-reduced-motion (none: clear the override)",
    )
    p = _command(actions, "timezone", settings.timezone, "emulate a time zone", tab=True)
    p.add_argument("timezone", metavar="TZ", nargs="?", help="IANA time zone such as Europe/Berlin")
    p.add_argument("--clear", action="store_true", help="back to the system's time zone")
    p = _command(actions, "locale", settings.locale, "emulate a locale", tab=True)
    p.add_argument("locale", metavar="LOC", nargs="?", help="locale such as de-DE")
    p.add_argument("--clear", action="store_true", help="back to the browser's own locale")
    p = _command(
        actions,
        "device",
        settings.device,
        "emulate a device's viewport, scale and user agent",
        tab=True,
    )
    p.add_argument("name", metavar="NAME", nargs="?", help='device name such as "iPhone 13"')
    p.add_argument("--clear", action="store_true", help="stop emulating a device")
    p = _command(actions, "viewport", settings.viewport, "set the viewport size", tab=True)
    p.add_argument("width", type=int, metavar="W", help="width in CSS pixels")
    p.add_argument("height", type=int, metavar="H", help="height in CSS pixels")
    p.add_argument("--scale", type=float, metavar="F", help="device scale factor (default: 1)")
    p.add_argument(
        "--mobile",
        action="store_true",
        help="emulate a mobile viewport (meta viewport, overlay scrollbars)",
    )


def _geo(actions) -> None:
    p = _command(actions, "geo", settings.geolocation, "emulate a geolocation", tab=True)
    p.add_argument("latitude", type=float, metavar="LAT", nargs="?", help="latitude in degrees")
    p.add_argument("longitude", type=float, metavar="LON", nargs="?", help="longitude in degrees")
    p.add_argument("--accuracy", type=float, metavar="M", help="accuracy in meters")
    p.add_argument(
        "--origin", metavar="ORIGIN", help="grant the geolocation permission to this origin"
    )
    p.add_argument("--clear", action="store_true", help="stop emulating a location")


# -- the service itself ----------------------------------------------------------------------------
def _service(sub) -> None:
    _command(
        sub,
        "doctor",
        doctor.doctor,
        "diagnose the browser, sandbox, display and configuration",
        needs_service=False,
    )
    _serve(sub)
    _, actions = _group(
        sub, "config", "check, show or print a sample configuration", needs_service=False
    )
    p = _command(
        actions,
        "check",
        config_cmd.check,
        "validate a configuration file, listing every problem",
        needs_service=False,
    )
    p.add_argument("file", metavar="FILE", help="YAML file to check")
    _command(
        actions,
        "sample",
        config_cmd.sample,
        "print a commented sample configuration",
        needs_service=False,
    )
    _command(
        actions,
        "show",
        config_cmd.show,
        "print the effective configuration, secrets masked",
        needs_service=False,
    )
    p = _command(
        actions,
        "import-openclaw",
        config_cmd.import_openclaw,
        "turn an OpenClaw config's browser, profiles, SSRF policy, gateway auth, web tools and "
        "tool policy into clawd.yaml, naming every key not carried over",
        needs_service=False,
    )
    p.add_argument(
        "file", metavar="FILE", help="OpenClaw config (JSON5), such as ~/.openclaw/openclaw.json"
    )
    p.add_argument(
        "--out", metavar="PATH", help="write the YAML here (mode 0600) instead of printing it"
    )
    p.add_argument("--force", action="store_true", help="replace PATH when it exists")
    sandbox.add_parsers(sub, _command, _group)
    _extension(sub)
    p = _command(sub, "mcp", mcp.mcp, "serve clawd as MCP tools over stdio", needs_service=False)
    p.add_argument(
        "--tools",
        choices=("single", "split"),
        default="single",
        help="single: one browser tool with an action field; split: one tool per action",
    )


def _extension(sub) -> None:
    _, actions = _group(
        sub,
        "extension",
        "the clawd Chrome extension that shares your own tabs (profile chrome, relay.enabled)",
        needs_service=False,
    )
    _command(
        actions,
        "path",
        extension.path,
        "print the extension's folder, to load unpacked in chrome://extensions",
        needs_service=False,
    )
    p = _command(
        actions, "pack", extension.pack, "write the extension as a zip", needs_service=False
    )
    p.add_argument(
        "--out", metavar="ZIP", help="where to write it (default: ./clawd-extension.zip)"
    )
    p.add_argument("--force", action="store_true", help="replace ZIP when it exists")


def _serve(sub) -> None:
    p = _command(
        sub, "serve", serve.serve, "run the clawd service in the foreground", needs_service=False
    )
    p.add_argument("--host", metavar="HOST", help="address to listen on (default: server.host)")
    p.add_argument(
        "--port", type=int, metavar="PORT", help="port to listen on (default: server.port)"
    )
    p.add_argument(
        "--allow-host",
        action="append",
        metavar="HOST",
        help="also allow navigating to this host for this run (repeatable), e.g. 127.0.0.1 "
        "for a local development server",
    )
    p.add_argument(
        "--log-level", choices=("debug", "info", "warning", "error"), help="log verbosity"
    )
    p.add_argument("--log-file", metavar="PATH", help="log here instead of stderr")
    p.add_argument(
        "--headless", choices=("auto", "true", "false"), help="override browser.headless"
    )
