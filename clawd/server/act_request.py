"""Reading a POST /act body against the act table (clawd/acts.py): each field by its type's
reader, batches within their limits. Every problem is a 400 that names the field (or a 403 for
script when browser.evaluateEnabled is false) before anything runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from clawd import acts, errors, ref_syntax
from clawd.coerce import as_bool, as_int, as_list, as_number, as_object, as_str
from clawd.page.act import keys

E = errors.ActInvalidRequest
# What a CSS selector has and a ref never does (a ref is e12, f1e3, ax4, 12, @e12, ref=e12).
_CSS_HINT = re.compile(r"[#.\[\]:>~+*()=\"' ]|^[a-zA-Z]+$")


def read(
    body: Any, *, evaluate_enabled: bool = True, depth: int = 1, where: str = ""
) -> acts.Action:
    """The validated action, or the 400/403 that names what is wrong (nothing has run yet)."""
    if not isinstance(body, dict):
        raise E(f"{where or 'action'} must be an object")
    kind = _kind(body.get("kind"), where)
    if "selector" in body and kind.param("selector") is None:
        raise errors.ActSelectorUnsupported(
            f"{where}selector: CSS selectors are not accepted for "
            "actions; take a snapshot and pass the element's ref"
        )
    args = _fields(body, kind, where)
    missing = sorted(p.name for p in kind.params if p.required and p.name not in args)
    if missing:
        raise E(f"{where}{missing[0]} is required for kind {kind.name}")
    _check_kind(kind, args, evaluate_enabled, where)
    action = acts.Action(kind.name, args)
    if kind.name == "batch":
        action.children = _batch(args["actions"], evaluate_enabled, depth, where)
    return action


def _kind(name: Any, where: str) -> acts.Kind:
    if name is None or name == "":
        raise errors.ActKindRequired(f"{where}kind is required: one of {', '.join(acts.KINDS)}")
    if not isinstance(name, str) or name not in acts.KINDS:
        raise E(f"{where}kind: unknown kind {name!r}; one of {', '.join(acts.KINDS)}")
    return acts.KINDS[name]


def _fields(body: dict, kind: acts.Kind, where: str) -> dict:
    args = {}
    for name, value in body.items():
        param = kind.param(name)
        if param is None:
            allowed = sorted(p.name for p in (*acts.COMMON, *kind.params))
            raise E(
                f"{where}{name}: unknown field for kind {kind.name}; allowed: {', '.join(allowed)}"
            )
        if value is not None:
            args[name] = READERS[param.type](param, value, where + name)
    return args


def _check_kind(kind: acts.Kind, args: dict, evaluate_enabled: bool, where: str) -> None:
    if kind.needs_one_of and not set(args) & set(kind.needs_one_of):
        raise E(f"{where}{kind.name} needs at least one of {', '.join(kind.needs_one_of)}")
    for param in kind.params:
        if param.script and param.name in args and not evaluate_enabled:
            what = kind.name if param.required else f"{kind.name} {param.name}"
            raise errors.ActEvaluateDisabled(
                f"{what} is disabled by browser.evaluateEnabled: false"
            )


def _batch(items: list, evaluate_enabled: bool, depth: int, where: str) -> list[acts.Action]:
    nested = any(isinstance(item, dict) and item.get("kind") == "batch" for item in items)
    if depth >= acts.MAX_DEPTH and nested:
        raise E(f"{where}actions: batches nest at most {acts.MAX_DEPTH} deep")
    if len(items) > acts.MAX_BATCH:
        raise E(f"{where}actions: at most {acts.MAX_BATCH} actions in a batch, not {len(items)}")
    if not items:
        raise E(f"{where}actions must list at least one action")
    return [
        read(
            item, evaluate_enabled=evaluate_enabled, depth=depth + 1, where=f"{where}actions[{i}]."
        )
        for i, item in enumerate(items)
    ]


# -- one reader per field type (acts.TYPES); each names the field in its error ------------------
def _ref(p: acts.Param, value: Any, where: str) -> str:
    ref = as_str(value, where, error=E).strip()
    if not ref_syntax.is_ref(ref) and _CSS_HINT.search(ref):
        raise errors.ActSelectorUnsupported(
            f"{where}: {ref!r} looks like a CSS selector; actions "
            "take refs (e12) from GET /snapshot"
        )
    return ref


def _choice(p: acts.Param, value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in p.choices:
        raise E(f"{where} must be one of {', '.join(p.choices)}; not {value!r}")
    return value


def _key(p: acts.Param, value: Any, where: str) -> str:
    keys.parse_chord(as_str(value, where, error=E))
    return value


def _modifiers(p: acts.Param, value: Any, where: str) -> list:
    names = (
        [part.strip() for part in value.split("+") if part.strip()]
        if isinstance(value, str)
        else as_list(value, where, error=E)
    )
    for name in names:
        if not isinstance(name, str) or keys.modifier_name(name) is None:
            raise E(
                f"{where}: unknown modifier {name!r}; use {', '.join(acts.MODIFIERS[:-1])} or "
                f"{acts.MODIFIERS[-1]}"
            )
    return names


def _strings(p: acts.Param, value: Any, where: str) -> list[str]:
    values = [value] if isinstance(value, str) else as_list(value, where, error=E)
    if not values or not all(isinstance(v, str) for v in values):
        raise E(f"{where} must be a non-empty list of strings (option values or labels)")
    return values


def _fill_fields(p: acts.Param, value: Any, where: str) -> list[dict]:
    items = as_list(value, where, error=E)
    if not items:
        raise E(f"{where} must list at least one {{ref, value}}")
    return [_fill_field(item, f"{where}[{i}]") for i, item in enumerate(items)]


def _fill_field(item: Any, name: str) -> dict:
    item = as_object(item, name, error=E)
    unknown = sorted(set(item) - {"ref", "type", "value"})
    if unknown:
        raise E(f"{name}: unknown field {unknown[0]!r}; allowed: ref, type, value")
    if "ref" not in item or "value" not in item:
        raise E(f"{name}.{'ref' if 'ref' not in item else 'value'} is required")
    kind = item.get("type")
    if kind is not None and kind not in acts.FILL_TYPES:
        raise E(f"{name}.type {kind!r} is not one of {', '.join(acts.FILL_TYPES)}")
    value = item["value"]
    if not isinstance(value, (str, bool, int, float, list)):
        raise E(f"{name}.value must be a string, a boolean or a list of strings")
    return {"ref": _ref(acts.REF, item["ref"], f"{name}.ref"), "type": kind, "value": value}


def _timeout(p: acts.Param, value: Any, where: str) -> int:
    ms = as_int(value, where, minimum=0, error=E)
    return min(acts.MAX_TIMEOUT_MS, max(acts.MIN_TIMEOUT_MS, ms))


def _integer(p: acts.Param, value: Any, where: str) -> int:
    return as_int(value, where, minimum=p.minimum, maximum=p.maximum, error=E)


def _number(p: acts.Param, value: Any, where: str) -> float:
    return as_number(value, where, minimum=p.minimum, maximum=p.maximum, error=E)


def _string(p: acts.Param, value: Any, where: str) -> str:
    return as_str(value, where, error=E)


def _text(p: acts.Param, value: Any, where: str) -> str:
    return as_str(value, where, allow_empty=True, error=E)


def _boolean(p: acts.Param, value: Any, where: str) -> bool:
    return as_bool(value, where, error=E)


def _list(p: acts.Param, value: Any, where: str) -> list:
    return as_list(value, where, error=E)


READERS: dict[str, Callable[[acts.Param, Any, str], Any]] = {
    "ref": _ref,
    "string": _string,
    "text": _text,
    "key": _key,
    "boolean": _boolean,
    "integer": _integer,
    "number": _number,
    "choice": _choice,
    "modifiers": _modifiers,
    "strings": _strings,
    "fields": _fill_fields,
    "actions": _list,
    "timeout": _timeout,
}
