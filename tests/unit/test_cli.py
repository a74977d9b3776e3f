"""clawd-browser against a fake service: argument -> request mapping, output, the exit-status
ladder."""

from __future__ import annotations

import argparse
import json
import sys
import types

import pytest

from clawd.cli.autostart import ensure_service
from clawd.cli.parser import build_parser
from clawd.client import Client, ServiceUnreachable
from tests.support.cli import Ran, run_cli
from tests.unit.test_client import FakeService, clean_env, closed_port, fake_service  # noqa: F401  (fixtures)

TABS = {
    "tabs": [
        {
            "tabId": "t1",
            "targetId": "AB12",
            "label": "docs",
            "title": "Docs",
            "url": "https://example.com/",
            "type": "page",
            "active": True,
        },
        {
            "tabId": "t2",
            "targetId": "CD34",
            "title": "Blank",
            "url": "about:blank",
            "type": "page",
            "active": False,
        },
    ]
}


def run(*argv: str, service: FakeService | None = None) -> Ran:
    return run_cli(*(["--url", service.url] if service else []), *argv)


# -- the parser ------------------------------------------------------------------------------------
def _command_paths(parser: argparse.ArgumentParser, prefix: tuple = ()):
    """Every command path, with a valid value for positionals that precede sub-actions
    (`storage local`)."""
    leading = tuple(
        a.choices[0]
        for a in parser._get_positional_actions()
        if a.choices and not isinstance(a, argparse._SubParsersAction)
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield prefix + leading + (name,)
                yield from _command_paths(sub, prefix + leading + (name,))


def _parsers(parser: argparse.ArgumentParser):
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                yield from _parsers(sub)


ALL_COMMANDS = list(_command_paths(build_parser()))


@pytest.mark.parametrize("path", ALL_COMMANDS, ids=[" ".join(p) for p in ALL_COMMANDS])
def test_help_of_every_command_works(path):
    rc, out, _ = run(*path, "--help")
    assert rc == 0 and out.startswith("usage: clawd-browser")


def test_every_command_and_flag_has_help_text():
    missing = []
    for parser in _parsers(build_parser()):
        for action in parser._actions:
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{parser.prog}: {action.dest}")
            if isinstance(action, argparse._SubParsersAction):
                missing += [
                    f"{parser.prog} {c.dest}" for c in action._choices_actions if not c.help
                ]
    assert missing == []


def test_every_command_has_a_handler():
    for parser in _parsers(build_parser()):
        if not any(
            isinstance(a, argparse._SubParsersAction) and a.required for a in parser._actions
        ):
            assert callable(parser.get_default("func")), parser.prog


def test_design_commands_are_all_there():
    names = {p[0] for p in ALL_COMMANDS}
    assert names >= {
        "status",
        "start",
        "stop",
        "profiles",
        "profile",
        "reset-profile",
        "tabs",
        "tab",
        "open",
        "focus",
        "close",
        "navigate",
        "snapshot",
        "find",
        "screenshot",
        "pdf",
        "click",
        "click-coords",
        "type",
        "press",
        "hover",
        "scrollintoview",
        "drag",
        "select",
        "fill",
        "wait",
        "evaluate",
        "resize",
        "dialog",
        "upload",
        "download",
        "waitfordownload",
        "highlight",
        "console",
        "errors",
        "requests",
        "responsebody",
        "trace",
        "cookies",
        "storage",
        "set",
        "doctor",
        "serve",
        "config",
        "mcp",
    }


# -- exit statuses ---------------------------------------------------------------------------------
def test_ok_command_exits_0_and_prints_key_value_lines(fake_service):
    fake_service.answer(
        "GET", "/", {"ok": True, "running": True, "profile": "clawd", "cdpPort": 18800}
    )
    rc, out, err = run("status", service=fake_service)
    assert (rc, err) == (0, "")
    assert out.splitlines() == ["running: yes", "profile: clawd", "cdpPort: 18800"]


def test_service_error_exits_1_with_message_and_code_on_stderr(fake_service):
    fake_service.answer(
        "POST",
        "/act",
        {"error": "e3 is gone: take a new snapshot", "code": "REF_STALE"},
        status=409,
    )
    rc, out, err = run("click", "e3", service=fake_service)
    assert (rc, out) == (1, "")
    assert err.strip() == "error: e3 is gone: take a new snapshot (REF_STALE)"


def test_unreachable_service_exits_3_naming_the_url_and_serve():
    url = f"http://127.0.0.1:{closed_port()}"
    rc, out, err = run("--url", url, "tabs")
    assert rc == 3
    assert err.strip() == (
        f"error: clawd service is not running at {url}; start it with "
        "`clawd-browser serve` (SERVICE_UNREACHABLE)"
    )


@pytest.mark.parametrize("code", ["TAB_NOT_FOUND", "PROFILE_NOT_FOUND", "REF_UNKNOWN"])
def test_not_found_exits_4(fake_service, code):
    fake_service.answer("POST", "/navigate", {"error": "no such thing", "code": code}, status=404)
    rc, _, err = run("navigate", "https://example.com", "--target", "t9", service=fake_service)
    assert rc == 4 and f"({code})" in err


@pytest.mark.parametrize(
    "status,code", [(504, "CDP_TIMEOUT"), (408, "ACT_TIMEOUT"), (408, "DOWNLOAD_TIMEOUT")]
)
def test_service_timeouts_exit_5(fake_service, status, code):
    fake_service.answer("POST", "/act", {"error": "waited too long", "code": code}, status=status)
    rc, _, err = run("wait", "--text", "Done", service=fake_service)
    assert rc == 5 and f"({code})" in err


def test_client_timeout_exits_5(fake_service):
    fake_service.answer("GET", "/tabs", TABS, delay=1.0)
    rc, _, err = run("--timeout", "0.2", "tabs", service=fake_service)
    assert rc == 5 and "(TIMEOUT)" in err


@pytest.mark.parametrize(
    "argv", [["no-such-command"], ["click"], ["screenshot", "--type", "gif"], []]
)
def test_usage_errors_exit_2(argv):
    assert run(*argv)[0] == 2


@pytest.mark.parametrize(
    "argv",
    [
        ["fill"],
        ["set", "credentials"],
        ["set", "geo", "--clear", "1", "2"],
        ["set", "headers"],
        ["wait"],
        ["set", "timezone"],
        ["set", "locale", "de-DE", "--clear"],
        ["cookies", "set", "--name", "a", "--value", "b"],
    ],
)
def test_arguments_that_do_not_fit_together_exit_2_without_a_request(fake_service, argv):
    rc, _, err = run(*argv, service=fake_service)
    assert rc == 2 and "(USAGE)" in err
    assert fake_service.requests == []


# -- output ----------------------------------------------------------------------------------------
def test_json_prints_the_service_answer_verbatim(fake_service):
    fake_service.answer("GET", "/tabs", TABS)
    for argv in (["--json", "tabs"], ["tabs", "--json"]):
        rc, out, _ = run(*argv, service=fake_service)
        assert rc == 0 and json.loads(out) == TABS


def test_tabs_print_as_a_table_marking_the_active_one(fake_service):
    fake_service.answer("GET", "/tabs", TABS)
    rc, out, _ = run("tabs", service=fake_service)
    header, first, second = out.splitlines()
    assert header.split() == ["TABID", "LABEL", "TITLE", "URL"]
    assert first.split() == ["*", "t1", "docs", "Docs", "https://example.com/"]
    assert second.split() == ["t2", "Blank", "about:blank"]


def test_snapshot_prints_the_text_and_maps_flags_to_query(fake_service):
    fake_service.answer(
        "GET", "/snapshot", {"ok": True, "snapshot": '- button "OK" [ref=e1]', "stats": {}}
    )
    rc, out, _ = run(
        "snapshot",
        "--interactive",
        "--max-chars",
        "500",
        "--no-refs",
        "--efficient",
        "--target",
        "docs",
        "--format",
        "ai",
        service=fake_service,
    )
    assert (rc, out) == (0, '- button "OK" [ref=e1]\n')
    assert fake_service.last.query == {
        "interactive": "true",
        "maxChars": "500",
        "refs": "false",
        "mode": "efficient",
        "targetId": "docs",
        "format": "ai",
    }


def test_snapshot_out_writes_the_text_to_a_file(fake_service, tmp_path):
    fake_service.answer(
        "GET",
        "/snapshot",
        {"snapshot": "- heading \"Hi\" [level=1] [ref=e1]", "stats": {"chars": 33, "refs": 1}},
    )
    rc, out, _ = run("snapshot", "--out", str(tmp_path / "snap.txt"), service=fake_service)
    assert (
        rc == 0 and (tmp_path / "snap.txt").read_text() == "- heading \"Hi\" [level=1] [ref=e1]\n"
    )
    assert out.strip() == f"{tmp_path / 'snap.txt'} (33 chars, 1 refs)"


def test_act_result_is_concise_and_mentions_pending_dialogs(fake_service):
    fake_service.answer(
        "POST",
        "/act",
        {
            "ok": True,
            "tabId": "t1",
            "url": "https://example.com/",
            "title": "Ex",
            "dialogs": {"pending": [{"dialogId": "d1", "type": "confirm", "message": "Sure?"}]},
        },
    )
    rc, out, _ = run("click", "e2", service=fake_service)
    lines = out.splitlines()
    assert rc == 0 and lines[0] == "t1 https://example.com/  Ex"
    assert lines[1].startswith("dialog d1 (confirm): Sure?")


def test_console_and_errors_read_as_one_line_each(fake_service):
    fake_service.answer(
        "GET",
        "/console",
        {
            "ok": True,
            "messages": [
                {
                    "type": "error",
                    "text": "boom",
                    "location": {"url": "https://x.test/a.js", "lineNumber": 9},
                },
                {"type": "log", "text": "hello", "location": None},
            ],
        },
    )
    fake_service.answer(
        "GET",
        "/errors",
        {
            "ok": True,
            "errors": [{"name": "TypeError", "message": "x is undefined", "location": None}],
        },
    )
    assert run("console", service=fake_service)[1].splitlines() == [
        "[error] boom  (https://x.test/a.js:10)",
        "[log] hello",
    ]
    assert run("errors", service=fake_service)[1] == "TypeError: x is undefined\n"


def test_evaluate_prints_the_result_value(fake_service):
    fake_service.answer("POST", "/act", {"ok": True, "result": {"n": 2}})
    assert run("evaluate", "() => ({n: 2})", service=fake_service)[1] == '{"n": 2}\n'


# -- media -----------------------------------------------------------------------------------------
def test_screenshot_out_fetches_the_file_through_media_url(fake_service, tmp_path):
    fake_service.answer(
        "POST",
        "/screenshot",
        {"ok": True, "path": "/srv/clawd/media/s1.png", "mediaUrl": "/media/s1.png"},
    )
    fake_service.answer("GET", "/media/s1.png", b"\x89PNG-bytes")
    out_file = tmp_path / "page.png"
    rc, out, _ = run(
        "screenshot", "--out", str(out_file), "--full-page", "--ref", "e4", service=fake_service
    )
    assert (rc, out.strip()) == (0, str(out_file))
    assert out_file.read_bytes() == b"\x89PNG-bytes"
    shot = next(r for r in fake_service.requests if r.path == "/screenshot")
    assert shot.body == {"fullPage": True, "ref": "e4", "type": "png", "labels": False}


def test_screenshot_without_out_prints_the_service_side_path(fake_service):
    fake_service.answer(
        "POST",
        "/screenshot",
        {"ok": True, "path": "/srv/clawd/media/s1.png", "mediaUrl": "/media/s1.png"},
    )
    rc, out, _ = run("screenshot", service=fake_service)
    assert (rc, out.strip()) == (0, "/srv/clawd/media/s1.png")
    assert [r.path for r in fake_service.requests] == ["/screenshot"]


def test_pdf_out_with_json_saves_the_file_and_prints_the_answer(fake_service, tmp_path):
    answer = {"ok": True, "path": "/srv/p.pdf", "mediaUrl": "/media/p.pdf"}
    fake_service.answer("POST", "/pdf", answer)
    fake_service.answer("GET", "/media/p.pdf", b"%PDF-1.7")
    rc, out, _ = run("--json", "pdf", "--out", str(tmp_path / "p.pdf"), service=fake_service)
    assert rc == 0 and json.loads(out) == answer
    assert (tmp_path / "p.pdf").read_bytes() == b"%PDF-1.7"


# -- arguments -> requests -------------------------------------------------------------------------
def test_token_is_read_from_clawd_home(fake_service, tmp_path):
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "auth-token").write_text("tok-123\n")
    assert run("status", service=fake_service)[0] == 0
    assert fake_service.last.headers["Authorization"] == "Bearer tok-123"


def test_global_flags_set_profile_token_and_password(fake_service):
    run("--browser-profile", "work", "--token=t0k", "--password=pw", "tabs", service=fake_service)
    assert fake_service.last.query == {"profile": "work"}
    assert fake_service.last.headers["Authorization"] == "Bearer t0k"
    assert fake_service.last.headers["X-Clawd-Password"] == "pw"


def test_target_on_a_group_survives_its_sub_action(fake_service):
    run("set", "--target", "t2", "offline", "on", service=fake_service)
    assert (fake_service.last.path, fake_service.last.body) == (
        "/set/offline",
        {"offline": True, "targetId": "t2"},
    )
    run("set", "offline", "off", "--target", "t3", service=fake_service)
    assert fake_service.last.body == {"offline": False, "targetId": "t3"}


REQUESTS = [
    (
        [
            "click",
            "e1",
            "--double",
            "--button",
            "right",
            "--modifiers",
            "Shift",
            "Alt",
            "--delay-ms",
            "20",
        ],
        "POST",
        "/act",
        {
            "kind": "click",
            "ref": "e1",
            "doubleClick": True,
            "button": "right",
            "modifiers": ["Shift", "Alt"],
            "delayMs": 20,
        },
    ),
    (["click-coords", "10", "20"], "POST", "/act", {"kind": "clickCoords", "x": 10.0, "y": 20.0}),
    (
        ["type", "e4", "hello", "--submit"],
        "POST",
        "/act",
        {"kind": "type", "ref": "e4", "text": "hello", "submit": True},
    ),
    (["press", "Enter"], "POST", "/act", {"kind": "press", "key": "Enter"}),
    (["hover", "e2"], "POST", "/act", {"kind": "hover", "ref": "e2"}),
    (["scrollintoview", "e2"], "POST", "/act", {"kind": "scrollIntoView", "ref": "e2"}),
    (["drag", "e1", "e2"], "POST", "/act", {"kind": "drag", "startRef": "e1", "endRef": "e2"}),
    (
        ["select", "e5", "red", "blue"],
        "POST",
        "/act",
        {"kind": "select", "ref": "e5", "values": ["red", "blue"]},
    ),
    (
        ["fill", "e4=a@b.c", "e5=x=y"],
        "POST",
        "/act",
        {
            "kind": "fill",
            "fields": [{"ref": "e4", "value": "a@b.c"}, {"ref": "e5", "value": "x=y"}],
        },
    ),
    (
        ["fill", "--fields-json", '[{"ref": "e6", "type": "checkbox", "value": true}]'],
        "POST",
        "/act",
        {"kind": "fill", "fields": [{"ref": "e6", "type": "checkbox", "value": True}]},
    ),
    (
        ["wait", "--text", "Done", "--load-state", "load", "--timeout-ms", "3000"],
        "POST",
        "/act",
        {"kind": "wait", "text": "Done", "loadState": "load", "timeoutMs": 3000},
    ),
    (
        ["evaluate", "() => 1", "--ref", "e3"],
        "POST",
        "/act",
        {"kind": "evaluate", "fn": "() => 1", "ref": "e3"},
    ),
    (["resize", "800", "600"], "POST", "/act", {"kind": "resize", "width": 800, "height": 600}),
    (["close"], "POST", "/tabs/action", {"action": "close"}),
    (["close", "t2"], "DELETE", "/tabs/t2", None),
    (["dialog", "--dismiss"], "POST", "/hooks/dialog", {"accept": False}),
    (
        ["dialog", "--accept", "--prompt-text", "hi", "--dialog-id", "d2"],
        "POST",
        "/hooks/dialog",
        {"accept": True, "promptText": "hi", "dialogId": "d2"},
    ),
    (
        ["upload", "a.pdf", "b.pdf", "--input-ref", "e9"],
        "POST",
        "/hooks/file-chooser",
        {"paths": ["a.pdf", "b.pdf"], "inputRef": "e9"},
    ),
    (["download", "e3", "--path", "r.csv"], "POST", "/download", {"ref": "e3", "path": "r.csv"}),
    (["waitfordownload", "--timeout-ms", "500"], "POST", "/wait/download", {"timeoutMs": 500}),
    (["highlight", "e3"], "POST", "/highlight", {"ref": "e3"}),
    (
        ["open", "https://example.com", "--label", "docs"],
        "POST",
        "/tabs/open",
        {"url": "https://example.com", "label": "docs"},
    ),
    (["focus", "docs"], "POST", "/tabs/focus", {"targetId": "docs"}),
    (["tab"], "POST", "/tabs/action", {"action": "list"}),
    (["tab", "new"], "POST", "/tabs/action", {"action": "new"}),
    (
        ["tab", "new", "https://example.com", "--label", "x"],
        "POST",
        "/tabs/action",
        {"action": "new", "url": "https://example.com", "label": "x"},
    ),
    (["tab", "select", "2"], "POST", "/tabs/action", {"action": "select", "index": 2}),
    (["tab", "close", "1"], "POST", "/tabs/action", {"action": "close", "index": 1}),
    (
        ["navigate", "https://example.com", "--target", "t1"],
        "POST",
        "/navigate",
        {"url": "https://example.com", "targetId": "t1"},
    ),
    (["start", "--headless"], "POST", "/start", None),
    (
        ["profile", "create", "work", "--color", "#0066CC"],
        "POST",
        "/profiles/create",
        {"name": "work", "color": "#0066CC"},
    ),
    (["profile", "delete", "work"], "DELETE", "/profiles/work", None),
    (["reset-profile"], "POST", "/reset-profile", {}),
    (
        ["responsebody", "/api/items", "--max-chars", "100"],
        "POST",
        "/response/body",
        {"url": "/api/items", "maxChars": 100},
    ),
    (["trace", "start", "--screenshots"], "POST", "/trace/start", {"screenshots": True}),
    (["trace", "stop", "--path", "t.zip"], "POST", "/trace/stop", {"path": "t.zip"}),
    (
        ["record", "start", "--fps", "5", "--max-seconds", "2.5", "--max-bytes", "100000"],
        "POST",
        "/record/start",
        {"fps": 5, "maxSeconds": 2.5, "maxBytes": 100000},
    ),
    (["record", "stop"], "POST", "/record/stop", {}),
    (
        ["cookies", "set", "--name", "a", "--value", "b", "--url", "https://x.test", "--http-only"],
        "POST",
        "/cookies/set",
        {"cookie": {"name": "a", "value": "b", "url": "https://x.test", "httpOnly": True}},
    ),
    (["cookies", "clear"], "POST", "/cookies/clear", {}),
    (
        ["storage", "session", "set", "k", "v"],
        "POST",
        "/storage/session/set",
        {"key": "k", "value": "v"},
    ),
    (["storage", "local", "clear"], "POST", "/storage/local/clear", {}),
    (
        ["set", "headers", "--headers-json", '{"X-Team": "qa"}'],
        "POST",
        "/set/headers",
        {"headers": {"X-Team": "qa"}},
    ),
    (["set", "headers", "--clear"], "POST", "/set/headers", {"clear": True}),
    (["set", "device", "--clear"], "POST", "/set/device", {"clear": True}),
    (
        ["highlight", "e3", "--duration-ms", "500"],
        "POST",
        "/highlight",
        {"ref": "e3", "durationMs": 500},
    ),
    (
        ["responsebody", "/api", "--wrap", "--timeout-ms", "2000"],
        "POST",
        "/response/body",
        {"url": "/api", "wrap": True, "timeoutMs": 2000},
    ),
    (
        ["set", "credentials", "u", "p"],
        "POST",
        "/set/credentials",
        {"username": "u", "password": "p"},
    ),
    (["set", "credentials", "--clear"], "POST", "/set/credentials", {"clear": True}),
    (
        ["set", "geo", "52.5", "13.4", "--accuracy", "5"],
        "POST",
        "/set/geolocation",
        {"latitude": 52.5, "longitude": 13.4, "accuracy": 5.0},
    ),
    (["set", "media", "--color-scheme", "dark"], "POST", "/set/media", {"colorScheme": "dark"}),
    (["set", "timezone", "Europe/Berlin"], "POST", "/set/timezone", {"timezone": "Europe/Berlin"}),
    (["set", "locale", "de-DE"], "POST", "/set/locale", {"locale": "de-DE"}),
    (["set", "device", "iPhone 13"], "POST", "/set/device", {"name": "iPhone 13"}),
    (
        ["set", "viewport", "390", "844", "--scale", "3"],
        "POST",
        "/set/viewport",
        {"width": 390, "height": 844, "deviceScaleFactor": 3.0},
    ),
    # OpenClaw's spellings (DESIGN.md §17)
    (
        ["evaluate", "--fn", "() => 2", "--ref", "e3"],
        "POST",
        "/act",
        {"kind": "evaluate", "fn": "() => 2", "ref": "e3"},
    ),
    (["set", "media", "dark"], "POST", "/set/media", {"colorScheme": "dark"}),
    (
        ["cookies", "set", "sid", "abc", "--url", "https://x.test"],
        "POST",
        "/cookies/set",
        {"cookie": {"name": "sid", "value": "abc", "url": "https://x.test"}},
    ),
    (["download", "e3", "report.pdf"], "POST", "/download", {"ref": "e3", "path": "report.pdf"}),
    (["waitfordownload", "report.pdf"], "POST", "/wait/download", {"path": "report.pdf"}),
    (["wait", "#main"], "POST", "/act", {"kind": "wait", "selector": "#main"}),
    (["--profile", "work", "tabs"], "GET", "/tabs", None),
    (
        ["create-profile", "work", "--color", "#0066CC"],
        "POST",
        "/profiles/create",
        {"name": "work", "color": "#0066CC"},
    ),
    (["delete-profile", "work"], "DELETE", "/profiles/work", None),
    (["delete-profile", "work", "--purge"], "DELETE", "/profiles/work", None),
    (["reset-profile", "--purge"], "POST", "/reset-profile", {"purge": True}),
    (
        ["set", "headers", "--json", '{"X-Debug": "1"}'],
        "POST",
        "/set/headers",
        {"headers": {"X-Debug": "1"}},
    ),
    (
        ["press", "Enter", "--delay-ms", "50"],
        "POST",
        "/act",
        {"kind": "press", "key": "Enter", "delayMs": 50},
    ),
    (
        ["upload", "a.txt", "--element", "#file"],
        "POST",
        "/hooks/file-chooser",
        {"paths": ["a.txt"], "element": "#file"},
    ),
    (
        ["trace", "start", "--snapshots", "--sources"],
        "POST",
        "/trace/start",
        {"screenshots": False, "snapshots": True, "sources": True},
    ),
    (["click", "12"], "POST", "/act", {"kind": "click", "ref": "12"}),
]


@pytest.mark.parametrize("argv,method,path,body", REQUESTS, ids=[" ".join(r[0]) for r in REQUESTS])
def test_command_sends_its_request(fake_service, argv, method, path, body):
    rc, _, err = run(*argv, service=fake_service)
    assert (rc, err) == (0, "")
    assert (fake_service.last.method, fake_service.last.path, fake_service.last.body) == (
        method,
        path,
        body,
    )


def test_openclaw_spellings_send_the_query_clawds_do(fake_service):
    run("--profile", "work", "delete-profile", "old", "--purge", service=fake_service)
    assert fake_service.last.query == {"profile": "work", "purge": "true"}


@pytest.mark.parametrize(
    "argv, message",
    [
        (["evaluate"], "evaluate needs the function"),
        (["evaluate", "() => 1", "--fn", "() => 2"], "FN is given twice"),
        (["download", "e3", "a.pdf", "--path", "b.pdf"], "FILE is given twice"),
        (["cookies", "set", "sid", "--url", "https://x.test"], "cookies set needs NAME and VALUE"),
        (["set", "media", "dark", "--color-scheme", "light"], "SCHEME is given twice"),
        (["wait", "#a", "--selector", "#b"], "CSS is given twice"),
    ],
)
def test_a_value_given_twice_or_not_at_all_is_a_usage_error(fake_service, argv, message):
    status, _, err = run(*argv, service=fake_service)
    assert status == 2 and message in err


def test_set_headers_json_takes_the_headers_and_the_global_json_still_prints_json(fake_service):
    fake_service.answer(
        "POST", "/set/headers", {"ok": True, "settings": {"headers": {"X-Debug": "1"}}}
    )
    status, out, _ = run(
        "--json", "set", "headers", "--json", '{"X-Debug": "1"}', service=fake_service
    )
    assert status == 0 and json.loads(out)["settings"] == {"headers": {"X-Debug": "1"}}


GETS = [
    (["console", "--level", "error"], "/console", {"level": "error"}),
    (
        ["console", "--clear", "--wrap", "--target", "t2"],
        "/console",
        {"clear": "true", "wrap": "true", "targetId": "t2"},
    ),
    (["errors", "--clear"], "/errors", {"clear": "true"}),
    (["requests", "--filter", "api"], "/requests", {"filter": "api", "clear": "false"}),
    (["cookies", "--all"], "/cookies", {"all": "true"}),
    (["storage", "local"], "/storage/local", {}),
    (
        ["storage", "local", "get", "k", "--target", "t1"],
        "/storage/local",
        {"key": "k", "targetId": "t1"},
    ),
    (["find", "Sign in", "--limit", "3"], "/snapshot/find", {"text": "Sign in", "limit": "3"}),
    (["profiles"], "/profiles", {}),
]


@pytest.mark.parametrize("argv,path,query", GETS, ids=[" ".join(r[0]) for r in GETS])
def test_read_command_sends_its_query(fake_service, argv, path, query):
    rc, _, err = run(*argv, service=fake_service)
    assert (rc, err) == (0, "")
    assert (fake_service.last.method, fake_service.last.path, fake_service.last.query) == (
        "GET",
        path,
        query,
    )


def test_start_headless_is_sent_as_query(fake_service):
    run("start", "--headless", service=fake_service)
    assert fake_service.last.query == {"headless": "true"}


# -- commands that need no service -----------------------------------------------------------------
def test_mcp_without_the_sdk_says_how_to_install_it(monkeypatch):
    # the server itself is driven over stdio by the SDK's client in tests/e2e/test_mcp.py
    from clawd.agent import mcp_server

    monkeypatch.setattr(
        mcp_server, "SDK_MISSING", "the MCP server needs the mcp package: pip install 'clawd[mcp]'"
    )
    rc, _, err = run("mcp", "--tools", "split")
    assert (
        rc == 1
        and err.strip() == "error: the MCP server needs the mcp package: pip install 'clawd[mcp]'"
    )


def test_serve_hands_the_overridden_config_to_the_daemon(monkeypatch):
    calls = []
    fake_daemon = types.SimpleNamespace(run=lambda config, **kw: calls.append((config, kw)) or 0)
    monkeypatch.setitem(sys.modules, "clawd.daemon", fake_daemon)
    rc, _, _ = run(
        "serve",
        "--port",
        "18999",
        "--allow-host",
        "127.0.0.1",
        "--allow-host",
        "dev.test",
        "--headless",
        "false",
        "--log-level",
        "debug",
    )
    assert rc == 0
    config, kw = calls[0]
    assert (config.server.port, config.browser.headless) == (18999, False)
    assert (kw["allow_hosts"], kw["log_level"], kw["log_file"]) == (
        ["127.0.0.1", "dev.test"],
        "debug",
        None,
    )


def test_config_show_prints_yaml_with_secrets_masked(tmp_path, monkeypatch):
    monkeypatch.setenv("CLAWD_TOKEN", "very-secret")
    rc, out, _ = run("config", "show")
    assert rc == 0 and "\nserver:\n" in out
    assert "very-secret" not in out and "***" in out


def test_config_check_lists_every_problem_and_exits_1(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("server: {port: 70000, bogus: 1}\n")
    rc, out, err = run("config", "check", str(bad))
    assert rc == 1
    assert "$.server: unknown key 'bogus'" in out + err and "$.server.port: 70000" in out + err


def test_config_check_of_the_packaged_sample_passes(tmp_path):
    rc, sample, _ = run("config", "sample")
    assert rc == 0 and sample.startswith("#")
    (tmp_path / "sample.yaml").write_text(sample)
    assert run("config", "check", str(tmp_path / "sample.yaml"))[0] == 0


def test_an_invalid_config_file_fails_a_command_with_1(tmp_path, fake_service):
    (tmp_path / "bad.yaml").write_text("cli: {autostart: maybe}\n")
    rc, _, err = run("--config", str(tmp_path / "bad.yaml"), "status", service=fake_service)
    assert rc == 1 and "(CONFIG_INVALID)" in err and "$.cli.autostart" in err
    assert fake_service.requests == []


def test_cli_url_comes_from_the_config_file(tmp_path, fake_service):
    (tmp_path / "c.yaml").write_text(f"cli: {{url: '{fake_service.url}'}}\n")
    assert run("--config", str(tmp_path / "c.yaml"), "status")[0] == 0
    assert fake_service.last.path == "/"


# -- autostart -------------------------------------------------------------------------------------
class _Process:
    def __init__(self, returncode=None):
        self.returncode = returncode

    def poll(self):
        return self.returncode


def test_autostart_launches_the_service_and_waits_until_it_answers():
    port, started = closed_port(), []

    def launch():
        started.append(FakeService(port).__enter__())
        return _Process()

    try:
        with Client(f"http://127.0.0.1:{port}") as client:
            ensure_service(client, launch, wait_s=5)
        assert started[0].requests[-1].path == "/"
    finally:
        for service in started:
            service.__exit__(None, None, None)


def test_autostart_reports_a_service_that_exits_early():
    with (
        Client(f"http://127.0.0.1:{closed_port()}") as client,
        pytest.raises(ServiceUnreachable, match="status 1"),
    ):
        ensure_service(client, lambda: _Process(returncode=1), wait_s=5)


def test_autostart_never_launches_for_a_remote_url():
    def launch():
        raise AssertionError("must not launch for a non-loopback URL")

    with Client("http://192.0.2.10:18791") as client:
        ensure_service(client, launch)


def test_autostart_flag_checks_a_running_service_and_runs_the_command(fake_service):
    fake_service.answer("GET", "/tabs", TABS)
    rc, _, _ = run("--autostart", "tabs", service=fake_service)
    assert rc == 0 and [r.path for r in fake_service.requests] == ["/", "/tabs"]
