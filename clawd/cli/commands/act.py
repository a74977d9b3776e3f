"""Acting on a page by ref: click, type, press, fill, wait, evaluate... plus dialogs, uploads, downloads."""
from __future__ import annotations

import json

from clawd.cli import output
from clawd.cli.commands import Invocation, UsageError, either


def _act(inv: Invocation, result: dict) -> None:
    output.emit(inv, result, output.render_act)


def click(inv: Invocation) -> None:
    a = inv.args
    _act(inv, inv.client.click(a.ref, button=a.button, modifiers=a.modifiers, double_click=a.double or None,
                               delay_ms=a.delay_ms, target_id=inv.target()))


def click_coords(inv: Invocation) -> None:
    _act(inv, inv.client.click_coords(inv.args.x, inv.args.y, target_id=inv.target()))


def type_text(inv: Invocation) -> None:
    a = inv.args
    _act(inv, inv.client.type(a.ref, a.text, submit=a.submit or None, slowly=a.slowly or None,
                              target_id=inv.target()))


def press(inv: Invocation) -> None:
    _act(inv, inv.client.press(inv.args.key, delay_ms=inv.args.delay_ms, target_id=inv.target()))


def hover(inv: Invocation) -> None:
    _act(inv, inv.client.hover(inv.args.ref, target_id=inv.target()))


def scroll_into_view(inv: Invocation) -> None:
    _act(inv, inv.client.scroll_into_view(inv.args.ref, target_id=inv.target()))


def drag(inv: Invocation) -> None:
    _act(inv, inv.client.drag(inv.args.start, inv.args.end, target_id=inv.target()))


def select(inv: Invocation) -> None:
    _act(inv, inv.client.select(inv.args.ref, inv.args.values, target_id=inv.target()))


def fill(inv: Invocation) -> None:
    _act(inv, inv.client.fill(fill_fields(inv.args.fields_json, inv.args.pairs), target_id=inv.target()))


def fill_fields(fields_json: str | None, pairs: list[str]) -> list[dict]:
    """--fields-json is passed as given; REF=VALUE pairs become `{ref, value}` (the service knows the
    element's type from its ref)."""
    if fields_json and pairs:
        raise UsageError("fill takes --fields-json or REF=VALUE pairs, not both")
    if fields_json:
        return _json_list(fields_json)
    if not pairs:
        raise UsageError("fill needs --fields-json JSON or REF=VALUE pairs")
    return [_pair(p) for p in pairs]


def _json_list(text: str) -> list[dict]:
    try:
        fields = json.loads(text)
    except ValueError as exc:
        raise UsageError(f"--fields-json is not JSON: {exc}") from None
    if not isinstance(fields, list):
        raise UsageError("--fields-json must be a JSON list of {ref, type, value} objects")
    return fields


def _pair(text: str) -> dict:
    ref, sep, value = text.partition("=")
    if not sep or not ref:
        raise UsageError(f"expected REF=VALUE, got {text!r}")
    return {"ref": ref, "value": value}


def wait(inv: Invocation) -> None:
    a = inv.args
    selector = either(a.selector_arg, a.selector, "CSS", "--selector")
    conds = dict(time_ms=a.time_ms, text=a.text, text_gone=a.text_gone, selector=selector, url=a.url,
                 load_state=a.load_state, fn=a.fn, timeout_ms=a.timeout_ms)
    if all(v is None for k, v in conds.items() if k != "timeout_ms"):
        raise UsageError("wait needs at least one condition (--time-ms, --text, --text-gone, --selector, "
                         "--url, --load-state, --fn)")
    _act(inv, inv.client.wait(target_id=inv.target(), **conds))


def evaluate(inv: Invocation) -> None:
    fn = either(inv.args.fn, inv.args.fn_flag, "FN", "--fn")
    if fn is None:
        raise UsageError("evaluate needs the function: FN or --fn FN")
    result = inv.client.evaluate(fn, ref=inv.args.ref, target_id=inv.target())
    output.emit(inv, result, output.render_evaluate)


def resize(inv: Invocation) -> None:
    _act(inv, inv.client.resize(inv.args.width, inv.args.height, target_id=inv.target()))


def highlight(inv: Invocation) -> None:
    result = inv.client.highlight(inv.args.ref, duration_ms=inv.args.duration_ms, target_id=inv.target())
    output.emit(inv, result, output.render_fields)


def dialog(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.dialog(a.accept, prompt_text=a.prompt_text, dialog_id=a.dialog_id, target_id=inv.target())
    output.emit(inv, result, output.render_fields)


def upload(inv: Invocation) -> None:
    a = inv.args
    result = inv.client.file_chooser(a.paths, ref=a.ref, input_ref=a.input_ref, element=a.element,
                                     target_id=inv.target())
    output.emit(inv, result, output.render_fields)


def download(inv: Invocation) -> None:
    path = either(inv.args.file, inv.args.path, "FILE", "--path")
    result = inv.client.download(inv.args.ref, path=path, target_id=inv.target())
    output.emit(inv, result, output.render_media)


def wait_for_download(inv: Invocation) -> None:
    result = inv.client.wait_download(timeout_ms=inv.args.timeout_ms, path=inv.args.file, target_id=inv.target())
    output.emit(inv, result, output.render_media)
