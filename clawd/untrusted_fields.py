"""Answers that go to an agent (`wrap=true`, docs/security.md): the free text a page or a provider
wrote is wrapped between fresh-id markers, and every other string of the answer (names, URLs,
content types, storage keys) has its marker look-alikes sanitized. An error's answer is
`sanitized` whatever `wrap` says: its message is prose for a reader, never data for a script."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from clawd.security.content import sanitize_markers, wrap_untrusted

# what a wrapped field turns into: a source label for wrap_untrusted, or a function of the text
Wrapper = str | Callable[[str], str]
_STEP = re.compile(r"\[\]|[^.\[\]]+")
_LEAF = object()  # the pattern tree's mark for "wrap the string here"


def for_agent(answer: Any, wrap: Mapping[str, Wrapper] | None = None) -> Any:
    """`answer` with the strings at the `wrap` paths wrapped and every other string (dict keys
    too) sanitized. A path names keys with dots, `[]` for each item of a list and `*` for each
    value of an object: `"snapshot"`, `"messages[].text"`, `"items.*"`."""
    tree: dict = {}
    for path, wrapper in (wrap or {}).items():
        _plant(tree, _STEP.findall(path), _wrapper(wrapper))
    return _walk(answer, tree)


def as_asked(answer: Any, wrap: bool, wrapped: Mapping[str, Wrapper] | None = None) -> Any:
    """A route's answer as asked: as it is for a script, shaped `for_agent` when `wrap`."""
    return for_agent(answer, wrapped) if wrap else answer


def sanitized(value: Any) -> Any:
    """`value` (JSON-like) with the markers of every string in it sanitized, keys included."""
    return _walk(value, {})


def _wrapper(wrapper: Wrapper) -> Callable[[str], str]:
    if callable(wrapper):
        return wrapper
    return lambda text: wrap_untrusted(text, source=wrapper)


def _plant(tree: dict, steps: list[str], wrap: Callable[[str], str]) -> None:
    for step in steps[:-1]:
        tree = tree.setdefault(step, {})
    tree[steps[-1]] = {_LEAF: wrap}


def _walk(value: Any, tree: dict | None) -> Any:
    tree = tree or {}
    if isinstance(value, str):
        return tree[_LEAF](value) if _LEAF in tree else sanitize_markers(value)
    if isinstance(value, dict):
        return {
            sanitize_markers(k) if isinstance(k, str) else k: _walk(v, tree.get(k, tree.get("*")))
            for k, v in value.items()
        }
    if isinstance(value, (list, tuple)):
        return [_walk(item, tree.get("[]")) for item in value]
    return value
