"""Acting on a page by ref: the act table's commands (click, type, press, fill, wait, evaluate...,
made from clawd/acts.py) plus highlight, dialogs, uploads, downloads."""

from __future__ import annotations

import argparse

from clawd import acts
from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, command, either, json_value, route_help


def act_kind(inv: Invocation) -> None:
    """Any command of the act table (click, type, wait, ...): its words and flags become the
    request's fields."""
    kind = acts.KINDS[inv.args.act_kind]
    fields = request_fields(kind, inv.args)
    result = inv.client.act(kind.name, target_id=inv.target(), **fields)
    output.emit(inv, result, RENDERERS.get(kind.name, output.render_act))


RENDERERS = {"evaluate": output.render_evaluate}  # evaluate prints its value alone


def request_fields(kind: acts.Kind, args) -> dict:
    """The given fields in snake_case (the client's spelling); a field the table requires, or a
    condition it needs, that is missing is a usage error, before any request."""
    fields = {}
    for param in (*kind.params, *acts.COMMON):
        if param.cli is not None:
            value = _field_value(param, args)
            if value is not None:
                fields[acts.snake(param.name)] = value
            elif param.required:
                raise UsageError(f"{kind.command} needs {param.help} ({_spelling(param)})")
    if kind.needs_one_of and not {acts.camel(name) for name in fields} & set(kind.needs_one_of):
        flags = ", ".join(_spelling(kind.param(name)) for name in kind.needs_one_of)
        raise UsageError(f"{kind.command} needs at least one of {flags}")
    return fields


def _field_value(param: acts.Param, args):
    value = getattr(args, param.name, None)
    if param.cli.word is None:
        return value
    word = getattr(args, f"{param.name}_word", None)
    if _is_json(param):
        word, value = [_pair(p) for p in word or ()] or None, _json_list(value) if value else None
    return either(word, value, param.cli.word, param.cli.flag)


def _spelling(param: acts.Param) -> str:
    cli = param.cli
    flag = f"{cli.flag} {cli.metavar}" if cli.metavar else cli.flag
    return f"{cli.word} or {flag}" if cli.word else flag


def _json_list(text: str) -> list[dict]:
    return json_value(text, "--fields-json", list, "a JSON list of {ref, type, value} objects")


def _pair(text: str) -> dict:
    """REF=VALUE as `{ref, value}`: the service knows the element's type from its ref."""
    ref, sep, value = text.partition("=")
    if not sep or not ref:
        raise UsageError(f"expected REF=VALUE, got {text!r}")
    return {"ref": ref, "value": value}


def highlight(inv: Invocation) -> None:
    result = inv.client.highlight(
        inv.args.ref, duration_ms=inv.args.duration_ms, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def dialog(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.dialog(
        a.accept, prompt_text=a.prompt_text, dialog_id=a.dialog_id, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def upload(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.file_chooser(
        a.paths, ref=a.ref, input_ref=a.input_ref, element=a.element, target_id=inv.target()
    )
    output.emit(inv, result, output.render_fields)


def download(inv: Invocation) -> None:
    path = either(inv.args.file, inv.args.path, "FILE", "--path")
    result = inv.client.download(inv.args.ref, path=path, target_id=inv.target())
    output.emit(inv, result, output.render_media)


def wait_for_download(inv: Invocation) -> None:
    result = inv.client.wait_download(
        timeout_ms=inv.args.timeout_ms, path=inv.args.file, target_id=inv.target()
    )
    output.emit(inv, result, output.render_media)


WORD_HELP = {"fields": "a field ref and its text value"}  # fill's REF=VALUE pairs, by field name


def add_parsers(sub) -> None:
    for kind in acts.KINDS.values():
        if kind.command:
            _act_kind(sub, kind)
    p = command(
        sub, "highlight", highlight, "outline an element on the page for a moment", tab=True
    )
    p.add_argument("ref", metavar="REF", help=route_help("POST", "/highlight", "ref"))
    p.add_argument(
        "--duration-ms", type=int, metavar="MS", help="how long the outline stays (100-10000)"
    )
    _hooks(sub)


def _act_kind(sub, kind: acts.Kind) -> None:
    """A command of the act table: its fields as words and flags,
    as the table says to write them."""
    p = command(sub, kind.command, act_kind, kind.help, tab=True)
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
    if param.schema().get("type") == "boolean":
        how = {"action": "store_true", "default": None}
    else:
        how["metavar"] = cli.metavar
    as_json = ", as JSON" if _is_json(param) else ""
    p.add_argument(cli.flag, dest=param.name, help=param.help + as_json, **how)
    if cli.word:
        p.add_argument(
            f"{param.name}_word",
            metavar=cli.word,
            nargs="*" if as_json else "?",
            help=WORD_HELP.get(param.name, f"{param.help} (as {cli.flag})"),
        )


def _value_spec(param: acts.Param) -> dict:
    """How argparse reads the field's value(s), from the JSON Schema of what its reader takes:
    a list is several words (each one of the items' choices, if they have some)."""
    schema = param.schema()
    if schema.get("type") == "array" and not _is_json(param):
        choices = schema.get("items", {}).get("enum")
        return {"nargs": "+", **({"choices": choices} if choices else {})}
    if "enum" in schema:
        return {"choices": schema["enum"]}
    return {"type": {"integer": int, "number": float}.get(schema.get("type"), str)}


def _is_json(param: acts.Param) -> bool:
    """A list of objects (fill's fields): written as JSON on the command line."""
    return param.schema().get("items", {}).get("type") == "object"


def _hooks(sub) -> None:
    p = command(sub, "dialog", dialog, "answer a pending (or the next) JavaScript dialog", tab=True)
    answer = p.add_mutually_exclusive_group(required=True)
    answer.add_argument(
        "--accept", dest="accept", action="store_true", default=None, help="press OK"
    )
    answer.add_argument("--dismiss", dest="accept", action="store_false", help="press Cancel")
    p.add_argument(
        "--prompt-text", metavar="TEXT", help=route_help("POST", "/hooks/dialog", "promptText")
    )
    p.add_argument(
        "--dialog-id", metavar="ID", help=route_help("POST", "/hooks/dialog", "dialogId")
    )
    p = command(sub, "upload", upload, "set files on a file chooser or file input", tab=True)
    p.add_argument(
        "paths",
        metavar="PATH",
        nargs="+",
        help=route_help("POST", "/hooks/file-chooser", "paths"),
    )
    p.add_argument("--ref", metavar="REF", help=route_help("POST", "/hooks/file-chooser", "ref"))
    p.add_argument(
        "--input-ref", metavar="REF", help=route_help("POST", "/hooks/file-chooser", "inputRef")
    )
    p.add_argument(
        "--element", metavar="CSS", help=route_help("POST", "/hooks/file-chooser", "element")
    )
    p = command(sub, "download", download, "click an element and save what it downloads", tab=True)
    p.add_argument("ref", metavar="REF", help="element ref that starts the download")
    p.add_argument(
        "file", metavar="FILE", nargs="?", help="file name under $CLAWD_HOME/downloads (as --path)"
    )
    p.add_argument("--path", metavar="PATH", help="file name under $CLAWD_HOME/downloads")
    p = command(
        sub,
        "waitfordownload",
        wait_for_download,
        "wait for the next download to finish",
        tab=True,
    )
    p.add_argument(
        "file", metavar="FILE", nargs="?", help="save it under this name in $CLAWD_HOME/downloads"
    )
    p.add_argument("--timeout-ms", type=int, metavar="MS", help="give up after MS")
