"""Patterns a caller writes (an agent's `/regex/` for snapshot find, a URL glob), run over text a
page wrote. They are compiled with RE2, whose matching is linear in the text whatever the pattern:
Python's re backtracks, and `(a+)+$` over a hostile page's line would hold the interpreter lock,
and so every route of every profile, for minutes. Patterns clawd writes itself stay on re
(tests/unit/test_redos.py holds them linear)."""

from __future__ import annotations

from clawd import errors


def compile_regex(pattern: str, *, ignore_case: bool = False, what: str = "the pattern"):
    """An RE2 regular expression (search, match, fullmatch as re's); a pattern RE2 cannot read
    (lookaround, backreferences, a syntax error) is a 400 saying so."""
    import re2  # only the routes that take a caller's pattern need it

    options = re2.Options()
    options.case_sensitive = not ignore_case
    options.log_errors = False  # a caller's typo is their 400, not a line on our stderr
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = (
            exc.args[0].decode(errors="replace")
            if exc.args and isinstance(exc.args[0], bytes)
            else str(exc)
        )
        raise errors.InvalidRequest(
            f"{what} {pattern!r} is not a regular expression clawd can run: {detail} "
            "(RE2 syntax: no lookaround or backreferences)"
        ) from None
