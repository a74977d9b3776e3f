"""The URL patterns of network waits and routes (POST /response/body, POST /route): exact,
substring or glob, matched in linear time whatever URL a page chose."""

from __future__ import annotations

import re

from clawd.security import linear


def url_matcher(pattern: str):
    """`*` matches within one path segment, `**` across segments; without a star the pattern
    matches the URL exactly or as a substring."""
    if "*" not in pattern:
        return lambda url: pattern in url
    parts = re.split(r"(\*\*|\*)", pattern)
    regex = "".join(".*" if p == "**" else "[^/]*" if p == "*" else re.escape(p) for p in parts)
    # every star a backtracking point (`**a**a**b`) over a URL the page chose: RE2, linear
    compiled = linear.compile_regex(regex, what="the URL pattern")
    return lambda url: compiled.fullmatch(url) is not None
