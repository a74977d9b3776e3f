"""Acting on a page by ref: the act table's commands (click, type, press, fill, wait, evaluate...,
made from clawd/acts.py) plus highlight, dialogs, uploads, downloads."""

from __future__ import annotations

from clawd import acts
from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, either, json_value


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
    if param.type == "fields":
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
