"""The client's act methods, made from the act table (clawd/acts.py): `act(kind, **fields)` and one
method a kind, `click(ref, button=None, ...)`, `click_coords(x, y, ...)`, ... whose arguments are
the kind's fields in snake_case, required ones first."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from clawd import acts

_EVERY_KIND = ("target_id", "timeout_ms", "profile")


class ActMethods:
    """Mixed into Client, whose transport gives it `_post` and `_wait_timeout`."""

    def act(self, kind: str, *, profile: str | None = None, **fields: Any) -> dict:
        """`POST /act {kind, ...}`: snake_case field names become the API's camelCase."""
        timeout = self._wait_timeout(fields.get("timeout_ms") or fields.get("time_ms"))
        return self._post("/act", profile, timeout=timeout, kind=kind, **fields)


def _signature(kind: acts.Kind) -> inspect.Signature:
    params = sorted(kind.params, key=lambda p: not p.required)  # stable: table order within
    named = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    named += [
        inspect.Parameter(
            acts.snake(p.name),
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
            default=inspect.Parameter.empty if p.required else None,
        )
        for p in params
    ]
    named += [
        inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None)
        for name in _EVERY_KIND
    ]
    return inspect.Signature(named, return_annotation=dict)


def _doc(kind: acts.Kind) -> str:
    lines = [f"`POST /act {{kind: {kind.name}}}`: {kind.help}."]
    lines += [f"{acts.snake(p.name)}: {p.help}" for p in kind.params]
    return "\n    ".join(lines)


def _sent(kind: acts.Kind, name: str, value: Any) -> Any:
    """A list field given as any iterable (a tuple, a generator) goes out as a list."""
    param = kind.param(acts.camel(name)) if name not in _EVERY_KIND else None
    listed = param is not None and param.schema().get("type") == "array"
    return list(value) if listed and value is not None and not isinstance(value, str) else value


def method_for(kind: acts.Kind) -> Callable[..., dict]:
    signature = _signature(kind)

    def act_kind(self, *args: Any, **kw: Any) -> dict:
        bound = signature.bind(self, *args, **kw)  # a TypeError names a wrong argument
        given = list(bound.arguments.items())[1:]  # all but self
        fields = {name: _sent(kind, name, value) for name, value in given}
        return self.act(kind.name, **fields)

    act_kind.__name__ = act_kind.__qualname__ = kind.method_name
    act_kind.__doc__ = _doc(kind)
    act_kind.__signature__ = signature
    return act_kind


for _kind in acts.KINDS.values():
    if _kind.method:
        setattr(ActMethods, _kind.method_name, method_for(_kind))
