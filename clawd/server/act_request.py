"""Reading a POST /act body against the act table (clawd/acts.py): each field by its own reader
(clawd/fields.py), batches within their limits. Every problem is a 400 that names the field (or a
403 for script when browser.evaluateEnabled is false) before anything runs."""

from __future__ import annotations

from typing import Any

from clawd import acts, errors

E = errors.ActInvalidRequest


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
            args[name] = param.read(value, where + name, E)
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
