"""The man pages, rendered from the declarations they document: clawd-browser(1) from the argparse
tree (cli/parser.py), the route table (server/routes.py) and the act table (clawd/acts.py, through
docs/api_page.py), clawd.yaml(5) from config/schema.json.

    python -m clawd.docs.manpages OUTDIR     # writes OUTDIR/clawd-browser.1 and OUTDIR/clawd.yaml.5

The output carries no date, so regenerating an unchanged tree gives identical files
(tests/unit/test_manpages.py fails when the committed man/ drifts)."""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
from collections.abc import Iterable, Iterator

from clawd.docs.api_page import api_section
from clawd.docs.roff import MANUAL, bold, example, header, italic, literal, text  # noqa: F401

EXIT_STATUSES = (  # (name of the constant in cli/main.py, meaning)
    ("EXIT_OK", "success"),
    (
        "EXIT_ERROR",
        "an error: the service refused the request, or a local error such as an invalid "
        "configuration",
    ),
    ("EXIT_USAGE", "usage error: unknown command, missing or invalid arguments"),
    (
        "EXIT_UNREACHABLE",
        "the service did not answer at the control URL (start it with "
        "\\fBclawd-browser serve\\fR, or pass \\fB\\-\\-autostart\\fR)",
    ),
    ("EXIT_NOT_FOUND", "not found: no such tab, profile, ref or media"),
    ("EXIT_TIMEOUT", "timeout: the page, the browser or the service did not finish in time"),
)

ENVIRONMENT = (
    (
        "CLAWD_HOME",
        "state directory (default \\fI~/.clawd\\fR): profiles, auth token, media, uploads, "
        "downloads, traces.",
    ),
    ("CLAWD_CONFIG", "configuration file, used when \\fB\\-\\-config\\fR is not given."),
    (
        "CLAWD_TOKEN",
        "bearer token: the service requires it, the CLI sends it "
        "(used when \\fBserver.auth.token\\fR is not set; see CREDENTIALS).",
    ),
    (
        "CLAWD_PASSWORD",
        "password: the service accepts it, the CLI sends it "
        "(used when \\fBserver.auth.password\\fR is not set; see CREDENTIALS).",
    ),
    (
        "NOTIFY_SOCKET",
        "set by systemd for \\fBType=notify\\fR units: \\fBserve\\fR reports READY=1, "
        "RELOADING=1 and STOPPING=1 there.",
    ),
    (
        "JOURNAL_STREAM",
        "set by systemd when stderr is the journal: log lines then carry syslog "
        "priority prefixes and no timestamps.",
    ),
)

FILES = (
    ("~/.clawd/clawd.yaml", "the user's configuration (see \\fBclawd.yaml\\fR(5))."),
    (
        "/etc/clawd/clawd.yaml",
        "the system configuration, used when there is no user configuration.",
    ),
    (
        "$CLAWD_HOME/auth-token",
        "the token the service generates on first start when no token or "
        "password is configured (mode 0600); the CLI reads it.",
    ),
    (
        "$CLAWD_HOME/browser/\\fIPROFILE\\fP/user-data",
        "the Chromium profile of a managed browser profile.",
    ),
    ("$CLAWD_HOME/profiles.json", "profiles created at run time (\\fBprofile create\\fR)."),
    ("$CLAWD_HOME/media/", "screenshots and PDFs, served as \\fB/media/\\fR\\fINAME\\fR."),
    ("$CLAWD_HOME/uploads/", "the only files \\fBupload\\fR may hand to a page."),
    ("$CLAWD_HOME/downloads/", "where downloads are saved."),
    ("$CLAWD_HOME/traces/", "where performance traces are saved."),
    ("$CLAWD_HOME/autostart.log", "the output of a service started by \\fB\\-\\-autostart\\fR."),
)

CRON_EXAMPLE = (
    "# m h dom mon dow  command\n"
    "30 3 * * *  PATH=/opt/clawd/bin:/usr/bin:/bin clawd-screenshot.sh https://example.com/ "
    "$HOME/shots"
)

SHELL_EXAMPLE = r"""#!/bin/sh
set -e
clawd-browser --autostart open --label nightly https://example.com/
clawd-browser screenshot --target nightly --full-page --out "$HOME/shots/$(date +%F).png"
clawd-browser close nightly"""


# -- clawd-browser(1) ------------------------------------------------------------------------------
def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction | None:
    return next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)


def commands(
    parser: argparse.ArgumentParser, prefix: tuple = ()
) -> Iterator[tuple[tuple, str, argparse.ArgumentParser]]:
    """(words, help, parser) for every command and sub-action, depth first, in declaration order."""
    sub = _subparsers(parser)
    if sub is None:
        return
    helps = {a.dest: a.help for a in sub._choices_actions}
    for name, child in sub.choices.items():
        words = prefix + (name,)
        yield words, helps.get(name) or child.description or "", child
        yield from commands(child, words)


def _options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if a.option_strings
        and a.help != argparse.SUPPRESS
        and not isinstance(a, argparse._HelpAction)
    ]


def _positionals(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return [
        a
        for a in parser._actions
        if not a.option_strings
        and not isinstance(a, argparse._SubParsersAction)
        and a.help != argparse.SUPPRESS
    ]


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return action.metavar if isinstance(action.metavar, str) else " ".join(action.metavar)
    if action.choices:
        return "{" + ",".join(map(str, action.choices)) + "}"
    return action.dest.upper()


def _arg_words(action: argparse.Action) -> str:
    """How the value(s) of an action are written: VALUE, [VALUE], VALUE..., [VALUE...]."""
    if action.nargs == 0:
        return ""
    meta = italic(_metavar(action))
    return {None: meta, "?": f"[{meta}]", "*": f"[{meta} ...]", "+": f"{meta} [{meta} ...]"}.get(
        action.nargs, f"{meta} " * int(action.nargs) if isinstance(action.nargs, int) else meta
    ).strip()


def _help(action: argparse.Action, prog: str) -> str:
    help_text = action.help or ""
    if "%(" in help_text:
        help_text = help_text % {**vars(action), "prog": prog}
    if action.choices and action.metavar is not None:
        help_text += f" (one of: {', '.join(map(str, action.choices))})"
    return help_text


def _option_item(action: argparse.Action, prog: str) -> list[str]:
    names = ", ".join(bold(o) for o in action.option_strings)
    value = _arg_words(action)
    return [".TP", f"{names} {value}".rstrip(), text(_help(action, prog))]


def _positional_item(action: argparse.Action, prog: str) -> list[str]:
    return [".TP", italic(_metavar(action)), text(_help(action, prog))]


def _synopsis(words: tuple, child: argparse.ArgumentParser) -> str:
    parts = [bold("clawd-browser"), "[\\fIglobal options\\fR]", *(bold(w) for w in words)]
    if any(a.option_strings != ["--json"] for a in _options(child)):
        parts.append("[\\fIoptions\\fR]")
    for action in _positionals(child):
        parts.append(_arg_words(action))
    sub = _subparsers(child)
    if sub is not None:
        parts.append(italic("ACTION") if sub.required else f"[{italic('ACTION')}]")
    return " ".join(parts)


def _command_section(
    words: tuple,
    summary: str,
    child: argparse.ArgumentParser,
    global_flags: frozenset = frozenset(),
) -> list[str]:
    lines = [f".SS {literal(' '.join(words))}", _synopsis(words, child), ".PP", text(summary)]
    description = child.description or ""
    if description and description != summary:
        lines += [".PP", text(description)]
    for action in _positionals(child):
        lines += _positional_item(action, child.prog)
    for action in _options(child):
        if tuple(action.option_strings) not in global_flags:  # --json again after the command
            lines += _option_item(action, child.prog)
    return lines


def render_cli(parser: argparse.ArgumentParser, routes) -> str:
    from clawd.cli import main as cli_main

    lines = header("clawd-browser", 1, "drive clawd's own Chromium through the clawd service")
    lines += [
        ".SH SYNOPSIS",
        f"{bold('clawd-browser')} [\\fIglobal options\\fR] \\fICOMMAND\\fR "
        "[\\fIoptions\\fR] [\\fIarguments\\fR]",
        ".SH DESCRIPTION",
        text(parser.description or ""),
        ".PP",
        text(
            "Commands other than serve, config and mcp talk to a running service at the control "
            "URL. Refs (e12, @e12, ref=e12) name elements and come from clawd-browser snapshot. "
            "Output is human-readable; --json prints the service's JSON answer."
        ),
        ".PP",
        text(
            "With --autostart (or cli.autostart: true in the configuration), a command that finds "
            "no service at a loopback control URL starts `clawd-browser serve` detached, with the "
            "same configuration, on that URL's host and port; it waits until the service answers "
            "(at most 20 s), then runs. The service keeps running for the commands that follow."
        ),
        ".SH GLOBAL OPTIONS",
    ]
    for action in _options(parser):
        lines += _option_item(action, parser.prog)
    lines += [
        ".TP",
        f"{bold('-h')}, {bold('--help')}",
        text("print help (also after any command) and exit"),
    ]
    lines += [".PP", text("--json may also follow the command (clawd-browser tabs --json).")]
    lines += _credentials_section()
    global_flags = frozenset(tuple(a.option_strings) for a in _options(parser))
    lines += [".SH COMMANDS"]
    for words, summary, child in commands(parser):
        lines += _command_section(words, summary, child, global_flags)
    lines += _signals_section()
    lines += api_section(routes)
    lines += [".SH EXIT STATUS"]
    for constant, meaning in EXIT_STATUSES:
        lines += [".TP", f"\\fB{getattr(cli_main, constant)}\\fR", meaning]
    lines += [".SH ENVIRONMENT"] + _items(ENVIRONMENT)
    lines += [".SH FILES"] + _items(FILES, path=True)
    lines += _examples()
    lines += [
        ".SH SEE ALSO",
        ".BR clawd.yaml (5),",
        ".BR systemd.service (5),",
        ".BR launchd.plist (5),",
        ".BR crontab (5)",
    ]
    return "\n".join(lines) + "\n"


def _items(pairs: Iterable[tuple[str, str]], *, path: bool = False) -> list[str]:
    lines = []
    for name, meaning in pairs:
        lines += [".TP", f"\\fI{name}\\fR" if path else f"\\fB{name}\\fR", meaning]
    return lines


def _credentials_section() -> list[str]:
    return [
        ".SH CREDENTIALS",
        text(
            "The CLI sends the token and the password that a service started with the same "
            "configuration and environment requires. For each, the first of these wins:"
        ),
        ".IP 1. 4",
        text(
            "--token=TOKEN or --token-file PATH (giving both is a usage error); "
            "--password=PASSWORD or --password-file PATH likewise;"
        ),
        ".IP 2. 4",
        text("server.auth.token (server.auth.password) in the configuration file;"),
        ".IP 3. 4",
        text("$CLAWD_TOKEN ($CLAWD_PASSWORD);"),
        ".IP 4. 4",
        text(
            "for the token only, and only when no password was found: "
            "$CLAWD_HOME/auth-token, which the service writes on first start."
        ),
        ".PP",
        text(
            "Prefer --token-file, --password-file or the environment in scripts and cron jobs: a "
            "value on the command line shows in ps. Write a value on the command line with an "
            "equals sign, --token=TOKEN. The word after --token or --password is always taken as "
            "the value, even when it begins with a dash, as getopt does. A page password that "
            "begins with a dash goes after -- (set credentials USER -- PASS), or in "
            "--password-file."
        ),
    ]


def _signals_section() -> list[str]:
    return [
        ".SH SIGNALS",
        text("clawd-browser serve, the service in the foreground, acts on:"),
        ".TP",
        "\\fBSIGTERM\\fR, \\fBSIGINT\\fR",
        text(
            "orderly shutdown: stop accepting connections, let requests in flight finish for a few "
            "seconds, stop the managed browsers (requests still waiting on them fail with an error "
            "code), exit 0 within 10 seconds."
        ),
        ".TP",
        "\\fBSIGHUP\\fR",
        text(
            "reopen the log file (after logrotate moved it) and reload the configuration: profiles "
            "added, removed or changed in the file take effect without a restart. A configuration "
            "that does not validate is refused, every problem is logged, and the running one is "
            "kept. server.*, browser.ssrfPolicy, browser.cdpPortRangeStart and "
            "browser.defaultProfile need a restart."
        ),
    ]


def _examples() -> list[str]:
    lines = [".SH EXAMPLES", text("Read a page and act on it:")]
    lines += example(
        "clawd-browser open https://example.com/\nclawd-browser snapshot --interactive\n"
        "clawd-browser click e3\nclawd-browser screenshot --full-page --out page.png"
    )
    lines += [
        ".PP",
        text(
            "From cron: start the service on demand, take a full-page screenshot, close "
            "the tab. Cron's PATH is minimal, and a failing command's exit status "
            "(3 unreachable, 5 timeout, ...) tells what went wrong:"
        ),
    ]
    lines += example(SHELL_EXAMPLE)
    lines += [
        ".PP",
        text(
            "Against a service elsewhere, the token read from a file rather than "
            "written on the command line:"
        ),
    ]
    lines += example(
        "clawd-browser --url http://10.0.0.5:18791 --token-file ~/.clawd/remote-token tabs"
    )
    lines += [
        ".PP",
        text(
            "The same as a crontab line, with the example job script shipped in "
            "etc/cron/clawd-screenshot.sh (it keeps a log, rotates it, and writes to stderr, "
            "which cron mails, only on failure):"
        ),
    ]
    lines += example(CRON_EXAMPLE)
    lines += [".PP", text("Validate a configuration before reloading the service with it:")]
    lines += example(
        "clawd-browser config check /etc/clawd/clawd.yaml && systemctl reload clawd-browser"
    )
    return lines


# -- clawd.yaml(5) ---------------------------------------------------------------------------------
def _type_of(node: dict) -> str:
    kind = node.get("type")
    if kind is None and "enum" in node:
        return " or ".join(json.dumps(v) for v in node["enum"])
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and isinstance(node.get("items"), dict) and node["items"].get("type"):
        return f"array of {node['items']['type']}"
    return kind or "any"


def _constraints(node: dict) -> list[str]:
    notes = []
    if "enum" in node and node.get("type") is not None:
        notes.append("one of: " + ", ".join(json.dumps(v) for v in node["enum"]))
    if "minimum" in node or "maximum" in node:
        notes.append(f"range: {node.get('minimum', '')}..{node.get('maximum', '')}")
    if "pattern" in node:
        notes.append(f"pattern: {node['pattern']}")
    if node.get("x-aliasOf"):
        notes.append(f"another name for {node['x-aliasOf']}")
    if node.get("x-secret"):
        notes.append("secret: clawd-browser config show prints it as ***")
    return notes


def schema_keys(node: dict, path: str = "") -> Iterator[tuple[str, dict, bool]]:
    """(dotted key, schema, is_section) for every key, depth first; map entries appear as NAME."""
    for key, sub in node.get("properties", {}).items():
        dotted = f"{path}.{key}" if path else key
        has_props = "properties" in sub
        item = sub.get("additionalProperties")
        yield dotted, sub, has_props or isinstance(item, dict)
        if has_props:
            yield from schema_keys(sub, dotted)
        if isinstance(item, dict):
            yield from schema_keys(item, f"{dotted}.NAME")
        entry = sub.get("items")
        if isinstance(entry, dict) and "properties" in entry:  # a list of objects: its members
            yield from schema_keys(entry, f"{dotted}[]")


def _key_item(dotted: str, node: dict, section: bool) -> list[str]:
    head = bold(dotted).replace("NAME", "\\fINAME\\fB")
    facts = [_type_of(node)]
    if not section or "additionalProperties" in node and "properties" not in node:
        facts.append("default " + json.dumps(node.get("default")))
    lines = [".TP", f"{head} ({text(', '.join(facts))})", text(node.get("description", ""))]
    notes = _constraints(node)
    if notes:
        joined = "; ".join(notes)
        lines += [".br", text(joined[:1].upper() + joined[1:] + ".")]
    return lines


def render_schema(schema: dict, sample: str) -> str:
    lines = header(
        "clawd.yaml", 5, "configuration of the clawd browser service and of clawd-browser"
    )
    lines += [
        ".SH SYNOPSIS",
        italic("~/.clawd/clawd.yaml"),
        ".br",
        italic("/etc/clawd/clawd.yaml"),
        ".SH DESCRIPTION",
        text(schema.get("description", "")),
        ".PP",
        text(
            "The file is YAML. clawd-browser and the service use --config PATH, "
            "else $CLAWD_CONFIG, "
            "else ~/.clawd/clawd.yaml, else /etc/clawd/clawd.yaml, else the built-in defaults. "
            "Every problem of a file is reported at once with its JSON path, e.g. "
            "$.browser.profiles.work.cdpPort: 70000 is greater than the maximum of 65535; "
            "check a file with clawd-browser config check FILE and print the effective "
            "configuration with clawd-browser config show. A running service reads the file "
            "again on SIGHUP (see clawd-browser(1))."
        ),
        ".SH KEYS",
    ]
    for dotted, node, section in schema_keys(schema):
        if "." not in dotted:
            lines += [f".SS {literal(dotted)}", text(node.get("description", ""))]
            continue
        lines += _key_item(dotted, node, section)
    lines += [".SH EXAMPLE", text("The commented sample (clawd-browser config sample):")]
    lines += example(sample.rstrip("\n"))
    lines += [".SH SEE ALSO", ".BR clawd-browser (1)"]
    return "\n".join(lines) + "\n"


# -- entry point -----------------------------------------------------------------------------------
def pages() -> dict[str, str]:
    """{file name: content} of every man page."""
    import importlib.resources

    from clawd.cli.parser import build_parser
    from clawd.config import loader
    from clawd.server.routes import ROUTES

    sample = (
        importlib.resources.files("clawd.config")
        .joinpath("sample.yaml")
        .read_text(encoding="utf-8")
    )
    return {
        "clawd-browser.1": render_cli(build_parser(), ROUTES),
        "clawd.yaml.5": render_schema(loader.schema(), sample),
    }


def write(outdir: str | pathlib.Path) -> list[pathlib.Path]:
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name, content in pages().items():
        path = out / name
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m clawd.docs.manpages OUTDIR", file=sys.stderr)
        return 2
    for path in write(args[0]):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
