"""Every regular expression that reads page-, server- or provider-controlled text runs in time
linear in it, on the inputs that make a backtracking engine quadratic or worse (issue 40: one
`'<title>' * 16000` froze the service for 8 s). No wall-clock threshold: each case compares the
CPU time the same work takes on an input 8 times as large (about 8 when linear, 64 when
quadratic, 512 when cubic). bench/redos.py prints the times."""

from __future__ import annotations

import gc
import time

import pytest

from clawd import errors, ref_syntax
from clawd.page.observe import console, network
from clawd.page.snapshot import ariatext
from clawd.security import content, linear, paths, redact, ssrf
from clawd.web import extract
from clawd.web.search import grok, kimi

FACTOR = 8
# linear work measures about FACTOR times as much on the larger input (up to 22 seen on this
# shared 2-core machine under load); the former quadratic patterns measured 47 to 76 here, the
# cubic ones 221 to 584
LINEAR_BOUND = 4 * FACTOR
TRIALS = 5
MIN_TRIAL = 0.002  # seconds of CPU a trial on the smaller input lasts at least (repeated calls)


def _cpu(fn, arg, calls: int) -> float:
    began = time.thread_time()
    for _ in range(calls):
        fn(arg)
    return time.thread_time() - began


def growth(fn, make, n: int) -> float:
    """How many times as much CPU fn spends on make(FACTOR * n) as on make(n), the least of a
    few trials (a trial is only ever slowed down, never sped up, by the rest of the machine)."""
    small, large = make(n), make(FACTOR * n)
    calls = 1
    while _cpu(fn, small, calls) < MIN_TRIAL and calls < 1 << 16:
        calls *= 2
    gc.disable()
    try:
        base = min(_cpu(fn, small, calls) for _ in range(TRIALS))
        ratios: list[float] = []
        while len(ratios) < TRIALS:
            ratios.append(_cpu(fn, large, calls) / base)
            if min(ratios) < LINEAR_BOUND or (len(ratios) >= 2 and min(ratios) > 4 * FACTOR**2):
                break  # settled either way: the least can only fall, and not by that much
        return min(ratios)
    finally:
        gc.enable()


def _title(body: str) -> str:
    return extract.html_title(body)


def _markdown_title(body: str) -> str:
    return extract.extract(body, "markdown", "markdown").title


def _find(line: str) -> list:
    return ariatext.find([ariatext.Line(line, 0)], "no such text")


def _find_regex(line: str) -> list:
    return ariatext.find([ariatext.Line(line, 0)], "/(a+)+$/")


# (name, function, input of size n, n): n is chosen so that the smaller input already makes
# the former quadratic (or cubic) pattern spend milliseconds, and the larger one seconds at most
CASES = [
    # clawd/web/extract.py: a fetched body
    ("title: a run of <title>", _title, lambda n: "<title>" * n, 400),
    ("title: <title without its >", _title, lambda n: "<title " * n, 400),
    ("title: an unclosed <title> then text", _title, lambda n: "<title>" + "x" * n, 4000),
    ("og:title: a run of <meta", _title, lambda n: "<meta " * n, 800),
    (
        "og:title: og:title properties and no content",
        _title,
        lambda n: "<meta property='og:title' " * n,
        30,
    ),
    ("og:title: unquoted content", _title, lambda n: "<meta property='og:title' content=" * n, 60),
    (
        "title: a whitespace run to collapse",
        _title,
        lambda n: "<title>" + " \t\n" * n + "</title>",
        2000,
    ),
    ("markdown title: a line of spaces", _markdown_title, lambda n: "# a" + " " * n + "b", 100),
    ("markdown title: many heading lines", _markdown_title, lambda n: "#\n" * n, 2000),
    ("scripts: a run of <script", extract.has_scripts, lambda n: "<scrip" * n, 2000),
    # clawd/security/content.py: snapshots, console messages, titles, fetched text
    ("marker: a run of <", content.sanitize_markers, lambda n: "<" * n + " UNTRUSTED", 400),
    (
        "marker: < and spaces",
        content.sanitize_markers,
        lambda n: "< " * n + "EXTERNAL UNTRUSTED",
        300,
    ),
    (
        "marker: END runs",
        content.sanitize_markers,
        lambda n: "END_" * n + "EXTERNAL_UNTRUSTED",
        1000,
    ),
    (
        "marker: many markers",
        content.sanitize_markers,
        lambda n: "<<<END_EXTERNAL_UNTRUSTED_CONTENT id=x>>>" * n,
        100,
    ),
    (
        "marker: prose repeated",
        content.sanitize_markers,
        lambda n: "external untrusted content " * n,
        200,
    ),
    (
        "marker: spaced letters, unfinished",
        content.sanitize_markers,
        lambda n: "E X T E R N A L U N T R U S T E D " * n,
        100,
    ),
    (
        "marker: separators after the words",
        content.sanitize_markers,
        lambda n: "EXTERNAL UNTRUSTED CONTENT" + " " * n + "x",
        4000,
    ),
    (
        "marker: an id that never ends",
        content.sanitize_markers,
        lambda n: "EXTERNAL_UNTRUSTED_CONTENT id=" + "a" * n,
        4000,
    ),
    (
        "marker: non-ASCII look-alikes",
        content.sanitize_markers,
        lambda n: "ꓰꓠꓓ_ꓰXꓔꓰꓣꓠꓮꓡ_ꓴꓠꓔꓣꓴꓢꓔꓰꓓ " * n,
        50,
    ),
    ("marker: a run of colons", content.sanitize_markers, lambda n: ":" * n + "UNTRUSTED", 4000),
    ("marker: END and underscores", content.sanitize_markers, lambda n: "END" + "_" * n, 4000),
    (
        "marker: END, underscores, a near word",
        content.sanitize_markers,
        lambda n: "END" + "_" * n + "UNTRUSTD",
        4000,
    ),
    ("marker: < before a near word", content.sanitize_markers, lambda n: "<" * n + "UNTRUSTD", 400),
    (
        "marker: END_ runs, a near word",
        content.sanitize_markers,
        lambda n: "END_" * n + "UNTRUSTD",
        1000,
    ),
    ("marker: near words in brackets", content.sanitize_markers, lambda n: "<<UNTRUSTD " * n, 200),
    ("marker: near words, no brackets", content.sanitize_markers, lambda n: "UNTRUSTD " * n, 200),
    (
        "marker: > after a near word",
        content.sanitize_markers,
        lambda n: "UNTRUSTD" + "> " * n,
        2000,
    ),
    (
        "marker: escaped underscores",
        content.sanitize_markers,
        lambda n: "%5F" * n + "UNTRUSTED",
        1000,
    ),
    ("marker: signs between letters", content.sanitize_markers, lambda n: "U:N:T:R:U:S ." * n, 200),
    ("marker: words with a U", content.sanitize_markers, lambda n: "TRUSTED USTED " * n, 200),
    ("wrap: a run of <", content.wrap_untrusted, lambda n: "<" * n + " UNTRUSTED", 400),
    ("role header: blank lines", content.suspicious_patterns, lambda n: "\n" * n + "SYSTEM", 400),
    (
        "role header: blank lines with spaces",
        content.suspicious_patterns,
        lambda n: "\n \t" * n + "system",
        300,
    ),
    ("role header: a long indent", content.suspicious_patterns, lambda n: " " * n + "SYSTEM", 4000),
    (
        "ignore previous: many starts",
        content.suspicious_patterns,
        lambda n: "ignore all previous " * n,
        200,
    ),
    (
        "secret exfiltration: many starts",
        content.suspicious_patterns,
        lambda n: "reveal the api " * n,
        200,
    ),
    (
        "chat template: < and spaces",
        content.suspicious_patterns,
        lambda n: "<|" + " " * n + "system",
        4000,
    ),
    (
        "chat template: a run of <|",
        content.suspicious_patterns,
        lambda n: "<| " * n + "system",
        1000,
    ),
    ("you are now: many starts", content.suspicious_patterns, lambda n: "you   are " * n, 500),
    (
        "new instructions: spaces",
        content.suspicious_patterns,
        lambda n: "new" + " " * n + "instruction",
        4000,
    ),
    ("system prompt: many starts", content.suspicious_patterns, lambda n: "system  " * n, 500),
    ("act as: many starts", content.suspicious_patterns, lambda n: "pretend to " * n, 500),
    ("jailbreak: many starts", content.suspicious_patterns, lambda n: "do anything " * n, 500),
    (
        "tool invocation: many starts",
        content.suspicious_patterns,
        lambda n: "run the following " * n,
        300,
    ),
    # clawd/page/snapshot/ariatext.py: snapshot lines hold page text
    ("snapshot find: a whitespace run", _find, lambda n: "- text: a" + " " * n + "b", 1000),
    ("snapshot find: unclosed properties", _find, lambda n: "- text: " + "[a=" * n, 400),
    (
        "snapshot line: an unclosed name",
        lambda line: ariatext.Line(line, 0).named,
        lambda n: '- button "' + "\\a" * n,
        2000,
    ),
    ("snapshot refs: a run of [ref=", ariatext.refs_in, lambda n: "[ref=" * n, 1000),
    ("ref in text", ref_syntax.IN_TEXT.findall, lambda n: "[ref=a" * n, 1000),
    # clawd/security/paths.py: a download's suggested name comes from the page
    ("download name: inner spaces", paths.safe_filename, lambda n: "a" + " " * n + "b", 1000),
    ("download name: dots and spaces", paths.safe_filename, lambda n: "a" + ". " * n + "b", 500),
    # clawd/page/observe: console format strings and response MIME types come from the page
    ("console format: a run of %", console._FORMAT.findall, lambda n: "%" * n, 2000),
    (
        "response type: a run of +",
        network._TEXT_TYPES.match,
        lambda n: "application/" + "+" * n,
        2000,
    ),
    # clawd/errors.py: Chrome's error messages can quote the page
    (
        "document gone: near misses",
        errors._DOCUMENT_GONE.search,
        lambda n: "context was destroye" * n,
        500,
    ),
    # clawd/web/search: providers' answers
    ("grok inline citations", lambda text: grok._INLINE.sub("", text), lambda n: "[[1]](" * n, 400),
    ("kimi answer URLs", kimi._URL.findall, lambda n: "http://." * n, 1000),
    # clawd/security/redact.py: every log line (a page's URL, a provider's error)
    ("log: header-like lines", redact.scrub_credentials, lambda n: "Authorization:" * n, 500),
    ("log: bearer words", redact.scrub_credentials, lambda n: "bearer " * n, 500),
    ("log: userinfo starts", redact.scrub_credentials, lambda n: "://" * n, 1000),
    ("log: query parameters", redact.scrub_credentials, lambda n: "?a=" * n, 1000),
    ("log: quoted fields", redact.scrub_credentials, lambda n: '"token": "' * n, 500),
    ("log: browser paths", redact.scrub_credentials, lambda n: "/devtools/browser/" * n, 500),
    # clawd/security/linear.py: a caller's pattern over the page's text (RE2)
    ("snapshot find: the agent's /(a+)+$/", _find_regex, lambda n: "- text: " + "a" * n + "!", 200),
    ("URL pattern: many stars", network.url_matcher("**a**a**b"), lambda n: "a" * n, 200),
    # clawd/security/ssrf.py: URLs from the caller and from redirects
    ("URL scheme: a long would-be scheme", ssrf._SCHEME.match, lambda n: "a" * n, 4000),
    ("domain characters", ssrf._DOMAIN_CHARS.fullmatch, lambda n: "a." * n + "!", 2000),
]


@pytest.mark.parametrize("fn, make, n", [case[1:] for case in CASES], ids=[c[0] for c in CASES])
def test_work_grows_linearly_with_hostile_input(fn, make, n):
    ratio = growth(fn, make, n)
    assert ratio < LINEAR_BOUND, f"{FACTOR}x the input took {ratio:.0f}x the CPU: super-linear"


# -- what the linear forms still find -------------------------------------------------------------
@pytest.mark.parametrize(
    "page, title",
    [
        ("<html><head><title>A &amp; B</title></head></html>", "A & B"),
        ("<TITLE lang=en>\n  Two\n  lines </TITLE >", "Two lines"),
        ("<titles>no</titles><title>yes</title>", "yes"),
        ("<title></title><meta property='og:title' content='og'>", ""),
        ('<meta property="og:title" content="From OG">', "From OG"),
        (
            "<meta name=x><meta property=og:title content=z><meta property='og:title' content='b'>",
            "b",
        ),
        ("<meta content='a' property='og:title'>", ""),
        ("<title>never closed", ""),
        ("<title>" * 5000, ""),
    ],
)
def test_the_title_is_the_first_title_element_then_og_title(page, title):
    assert extract.html_title(page) == title


@pytest.mark.parametrize(
    "body, title",
    [
        ("# Agents welcome\n\ntext", "Agents welcome"),
        ("intro\n#  Spaced out  \t\n", "Spaced out"),
        ("# Closed ##  ", "Closed"),
        ("# C#", "C#"),
        ("#hashtag\n# Real", "Real"),
        ("# a" + " " * 5000 + "b", "a" + " " * 5000 + "b"),
    ],
)
def test_a_markdown_title_is_its_first_atx_heading(body, title):
    assert extract.extract(body, "markdown", "markdown").title == title


def test_a_role_header_is_found_on_its_own_line_only():
    assert "role header" in content.suspicious_patterns("text\n  \tASSISTANT :do it")
    assert "role header" not in content.suspicious_patterns("SYSTEM\n: not a header")


def test_snapshot_find_still_ignores_properties():
    lines = ariatext.parse('- link "Home" [ref=e1] [cursor=pointer]\n- text: level 2 [level=2]')
    assert [m["ref"] for m in ariatext.find(lines, "home")] == ["e1"]
    assert ariatext.find(lines, "pointer") == [] and ariatext.find(lines, "level=") == []


@pytest.mark.parametrize(
    "name, kept", [("  .hidden. ", "hidden"), ("report" + " ." * 500, "report")]
)
def test_a_download_name_loses_its_edge_dots_and_spaces(name, kept):
    assert paths.safe_filename(name) == kept


@pytest.mark.parametrize("pattern", ["/(?=a)b/", "/(a)\\1/", "/(unclosed/"])
def test_an_agents_regex_that_re2_cannot_run_is_a_400_naming_it(pattern):
    with pytest.raises(errors.InvalidRequest) as caught:
        ariatext.find([ariatext.Line("- text: a", 0)], pattern)
    assert repr(pattern[1:-1]) in caught.value.message


def test_an_agents_regex_still_finds_case_insensitively():
    lines = [ariatext.Line('- button "Pay now" [ref=e1]', 0), ariatext.Line("- text: later", 0)]
    assert [m["ref"] for m in ariatext.find(lines, "/PAY\\s+now/i")] == ["e1"]
    assert ariatext.find(lines, "/PAY/") == []
    assert network.url_matcher("**/api/*.json")("https://x.test/api/a.json")
    assert not network.url_matcher("**/api/*.json")("https://x.test/api/a/b.json")
    with pytest.raises(errors.InvalidRequest):
        linear.compile_regex("(?<=a)b")
