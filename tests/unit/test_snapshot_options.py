"""GET /snapshot's query becomes snapshot.Options: browser.snapshotDefaults.mode applies when no
mode is given, an explicit mode wins, and unknown options and bad values are 400s."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from clawd import errors
from clawd.server.api.snapshot import options_from


def request(query: dict, default_mode=None):
    config = SimpleNamespace(
        browser=SimpleNamespace(snapshot_defaults=SimpleNamespace(mode=default_mode))
    )
    return SimpleNamespace(args={}, query=query, config=config)


def test_snapshot_defaults_mode_applies_when_no_mode_is_given():
    opts = options_from(request({}, default_mode="efficient")).resolved()
    assert (opts.mode, opts.interactive, opts.compact, opts.depth, opts.max_chars) == (
        "efficient",
        True,
        True,
        None,  # no depth: it would cut deep interactive lines (docs/snapshot.md)
        10000,
    )


def test_no_default_mode_means_the_full_tree():
    opts = options_from(request({})).resolved()
    assert (opts.mode, opts.interactive, opts.depth, opts.max_chars) == (None, False, None, 80000)


def test_explicit_values_win_over_the_default_mode():
    opts = options_from(
        request({"maxChars": "0", "interactive": "false"}, default_mode="efficient")
    ).resolved()
    assert (opts.max_chars, opts.interactive, opts.compact) == (0, False, True)


@pytest.mark.parametrize(
    "query",
    [
        {"depth": "-1"},
        {"maxChars": "abc"},
        {"nope": "1"},
        {"mode": "quick"},
        {"format": "yaml"},
        {"limit": "2001"},
        {"refs": "perhaps"},
    ],
)
def test_bad_queries_are_invalid_requests(query):
    with pytest.raises(errors.InvalidRequest):
        options_from(request(query))


def test_query_values_are_typed():
    opts = options_from(
        request(
            {
                "depth": "3",
                "urls": "true",
                "refs": "false",
                "wrap": "1",
                "timeoutMs": "500",
                "selector": "main",
                "frame": "e4",
                "limit": "20",
                "format": "aria",
            }
        )
    )
    assert (opts.depth, opts.urls, opts.refs, opts.wrap, opts.timeout_ms) == (
        3,
        True,
        False,
        True,
        500,
    )
    assert (opts.selector, opts.frame, opts.limit, opts.format) == ("main", "e4", 20, "aria")
