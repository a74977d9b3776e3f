"""ReDoS benchmark (issue 40): every regular expression that reads page-, server- or
provider-controlled text, timed on the input that is worst for it at growing sizes, today's code
next to the pattern it replaced (`before`, as it stood before issue 40) where that differed. Not
a test (tests/unit/test_redos.py holds each to linear growth without timing it): prints tables.

    .venv/bin/python bench/redos.py [--budget 2] [--sizes 1000,8000,64000,2000000] [--only TEXT]
                                    [--base OLD_TREE] [--json OUT]

Each figure is the least CPU time (ms) of a few calls in a child process: a backtracking search
holds the interpreter lock and cannot be interrupted, so a call past --budget seconds of CPU is
ended by killing its child, and that size and every larger one print "> budget". `x8` is how
many times as long the last two sizes measured took per 8 times the input: 8 is linear, 64
quadratic. Then wrap_untrusted on a 50,000-character ASCII snapshot and a 50,000-character
non-ASCII text (with --base, also the same code of another checkout, e.g. a worktree of HEAD).
"""

from __future__ import annotations

import argparse
import importlib
import json
import multiprocessing
import pathlib
import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import psutil

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from common import print_table, write_json  # noqa: E402  (bench/ is on the path)

from clawd import errors, ref_syntax  # noqa: E402
from clawd.page.observe import console, network  # noqa: E402
from clawd.page.snapshot import ariatext  # noqa: E402
from clawd.security import content, paths, ssrf  # noqa: E402
from clawd.web import extract  # noqa: E402

# -- the patterns as they were before issue 40 ----------------------------------------------------
_SEP = r"[\s_\-.·*]*"
BEFORE = {
    "title": re.compile(r"<title\b[^>]*>(.*?)</title\s*>", re.IGNORECASE | re.DOTALL),
    "og": re.compile(
        r"""<meta\b[^>]*?property\s*=\s*["']og:title["'][^>]*?content\s*=\s*"""
        r"""["']([^"']*)["']""",
        re.IGNORECASE,
    ),
    "md": re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE),
    "marker": re.compile(
        r"(?P<open><[\s<]*)?"
        rf"(?P<end>END{_SEP})?"
        rf"EXTERNAL(?P<s1>{_SEP})UNTRUSTED(?P<s2>{_SEP})CONTENT"
        r"""(?P<id>\s*ID\s*[=:]\s*\\?["']?[^"'<>\s\\]*\\?["']?)?"""
        r"(?P<close>[\s\"'\\]*>+)?"
    ),
    "role": re.compile(r"(?m)^\s*(SYSTEM|ASSISTANT|DEVELOPER)\s*:", re.DOTALL),
    "searchable": re.compile(r"\s*\[[a-z]+(=[^\]]*)?\]"),
    "edges": re.compile(r"^[\s.]+|[\s.]+$"),
}


def before_title(page: str):
    return BEFORE["title"].search(page) or BEFORE["og"].search(page)


def before_markers(text: str) -> list:
    folded = text.upper()
    return list(BEFORE["marker"].finditer(folded)) if "UNTRUSTED" in folded else []


# -- the cases ------------------------------------------------------------------------------------
@dataclass
class Case:
    where: str  # the module and what the pattern does there
    input: str  # how the hostile input is built
    make: Callable[[int], str | bytes]  # an input of about n characters
    now: Callable | None  # today's code (None: the pattern is gone from the tree)
    before: Callable | None = None  # the pattern it replaced, if it differed


def _times(unit: str, n: int) -> str:
    return unit * max(1, n // len(unit))


def _late(module: str, name: str, method: str) -> Callable | None:
    """module.name.method, or None when another change has taken it away."""
    try:
        pattern = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return getattr(pattern, method)


def _markdown_title(body: str) -> str:
    return extract.extract(body, "markdown", "markdown").title


def _find(line: str) -> list:
    return ariatext.find([ariatext.Line(line, 0)], "no such text")


S = content.suspicious_patterns
CASES = [
    Case(
        "web/extract title",
        "'<title>' * k",
        lambda n: _times("<title>", n),
        extract.html_title,
        before_title,
    ),
    Case(
        "web/extract title",
        "'<title ' * k (no >)",
        lambda n: _times("<title ", n),
        extract.html_title,
        before_title,
    ),
    Case(
        "web/extract og:title",
        "'<meta ' * k",
        lambda n: _times("<meta ", n),
        extract.html_title,
        before_title,
    ),
    Case(
        "web/extract og:title",
        "og:title property * k",
        lambda n: _times("<meta property='og:title' ", n),
        extract.html_title,
        before_title,
    ),
    Case(
        "web/extract title spaces",
        "<title> + ' \\t\\n' * k",
        lambda n: "<title>" + _times(" \t\n", n) + "</title>",
        extract.html_title,
    ),
    Case(
        "web/extract markdown title",
        "'# a' + ' ' * n + 'b'",
        lambda n: "# a" + " " * n + "b",
        _markdown_title,
        lambda text: BEFORE["md"].search(text[:65536]),
    ),
    Case("web/extract scripts", "'<scrip' * k", lambda n: _times("<scrip", n), extract.has_scripts),
    Case(
        "security/content marker",
        "'<' * n + ' UNTRUSTED'",
        lambda n: "<" * n + " UNTRUSTED",
        content.sanitize_markers,
        before_markers,
    ),
    Case(
        "security/content marker",
        "'< ' * k + 'EXTERNAL UNTRUSTED'",
        lambda n: _times("< ", n) + "EXTERNAL UNTRUSTED",
        content.sanitize_markers,
        before_markers,
    ),
    Case(
        "security/content marker",
        "real markers * k",
        lambda n: _times("<<<END_EXTERNAL_UNTRUSTED_CONTENT id=x>>>", n),
        content.sanitize_markers,
        before_markers,
    ),
    Case(
        "security/content marker",
        "spaced letters * k",
        lambda n: _times("E X T E R N A L U N T R U S T E D ", n),
        content.sanitize_markers,
        before_markers,
    ),
    Case(
        "security/content fold",
        "Lisu look-alikes * k",
        lambda n: _times("ꓰꓠꓓ_ꓰXꓔꓰꓣꓠꓮꓡ_ꓴꓠꓔꓣꓴꓢꓔꓰꓓ ", n),
        content.sanitize_markers,
    ),
    Case(
        "security/content role header",
        "'\\n' * n + 'SYSTEM'",
        lambda n: "\n" * n + "SYSTEM",
        S,
        lambda text: BEFORE["role"].search(text.upper()),
    ),
    Case(
        "security/content role header",
        "' ' * n + 'SYSTEM'",
        lambda n: " " * n + "SYSTEM",
        S,
        lambda text: BEFORE["role"].search(text.upper()),
    ),
    Case(
        "security/content ignore previous",
        "'ignore all previous ' * k",
        lambda n: _times("ignore all previous ", n),
        S,
    ),
    Case(
        "security/content secret exfiltration",
        "'reveal the api ' * k",
        lambda n: _times("reveal the api ", n),
        S,
    ),
    Case("security/content chat template", "'<| ' * k", lambda n: _times("<| ", n) + "system", S),
    Case("security/content you are now", "'you   are ' * k", lambda n: _times("you   are ", n), S),
    Case(
        "security/content new instructions",
        "'new' + ' ' * n",
        lambda n: "new" + " " * n + "instruction",
        S,
    ),
    Case("security/content system prompt", "'system  ' * k", lambda n: _times("system  ", n), S),
    Case("security/content act as", "'pretend to ' * k", lambda n: _times("pretend to ", n), S),
    Case(
        "security/content jailbreak", "'do anything ' * k", lambda n: _times("do anything ", n), S
    ),
    Case(
        "security/content tool invocation",
        "'run the following ' * k",
        lambda n: _times("run the following ", n),
        S,
    ),
    Case(
        "page/snapshot find",
        "'- text: a' + ' ' * n + 'b'",
        lambda n: "- text: a" + " " * n + "b",
        _find,
        lambda line: BEFORE["searchable"].sub("", line),
    ),
    Case(
        "page/snapshot find",
        "'[a=' * k",
        lambda n: "- text: " + _times("[a=", n),
        _find,
        lambda line: BEFORE["searchable"].sub("", line),
    ),
    Case(
        "page/snapshot name",
        "'- button \"' + '\\\\a' * k",
        lambda n: '- button "' + _times("\\a", n),
        lambda line: ariatext.Line(line, 0).named,
    ),
    Case("page/snapshot refs", "'[ref=' * k", lambda n: _times("[ref=", n), ariatext.refs_in),
    Case(
        "ref_syntax IN_TEXT",
        "'[ref=a' * k",
        lambda n: _times("[ref=a", n),
        ref_syntax.IN_TEXT.findall,
    ),
    Case(
        "security/paths download name",
        "'a' + ' ' * n + 'b'",
        lambda n: "a" + " " * n + "b",
        paths.safe_filename,
        lambda name: BEFORE["edges"].sub("", name),
    ),
    Case("page/observe console format", "'%' * n", lambda n: "%" * n, console._FORMAT.findall),
    Case(
        "page/observe response type",
        "'application/' + '+' * n",
        lambda n: "application/" + "+" * n,
        network._TEXT_TYPES.match,
    ),
    Case(
        "errors document gone",
        "near misses * k",
        lambda n: _times("context was destroye", n),
        errors._DOCUMENT_GONE.search,
    ),
    Case("security/ssrf scheme", "'a' * n", lambda n: "a" * n, ssrf._SCHEME.match),
    Case(
        "security/ssrf domain",
        "'a.' * k + '!'",
        lambda n: _times("a.", n) + "!",
        ssrf._DOMAIN_CHARS.fullmatch,
    ),
    # other modules' patterns, as they stand in the tree (owned by their own changes)
    Case(
        "web/decode meta charset",
        "b'<meta ' * k",
        lambda n: _times("<meta ", n).encode(),
        _late("clawd.web.decode", "_META_CHARSET", "search"),
    ),
    Case(
        "web/decode html start",
        "b'<!--' * k",
        lambda n: _times("<!--", n).encode(),
        _late("clawd.web.decode", "_HTML_START", "match"),
    ),
    Case(
        "web/search/kimi urls",
        "'http://.' * k",
        lambda n: _times("http://.", n),
        _late("clawd.web.search.kimi", "_URL", "findall"),
    ),
    Case(
        "web/search/grok citations",
        "'[[1]](' * k",
        lambda n: _times("[[1]](", n),
        _late("clawd.web.search.grok", "_INLINE", "findall"),
    ),
    Case(
        "agent/tool unwrap",
        "a forged start + '\\n<<<END...' * k",
        lambda n: (
            '<<<EXTERNAL_UNTRUSTED_CONTENT id="a">>>\n'
            + _times('\n<<<END_EXTERNAL_UNTRUSTED_CONTENT id="ab', n)
        ),
        _late("clawd.agent.tool", "_WRAPPED", "match"),
    ),
]


# -- measuring ------------------------------------------------------------------------------------
def _best_ms(fn, text, *, runs: int = 5, enough: float = 0.3) -> float:
    best, spent = float("inf"), 0.0
    for _ in range(runs):
        began = time.process_time()
        fn(text)
        took = time.process_time() - began
        best, spent = min(best, took), spent + took
        if spent > enough:
            break
    return best * 1000


def _child(fn, make, n, out) -> None:
    out.send(_best_ms(fn, make(n)))


def timed(fn, make, n: int, budget: float) -> float | None:
    """ms of fn(make(n)) in a child process, None once the child has spent the budget of CPU
    (it is killed then). CPU, not the clock: on a busy machine the clock runs 4 times faster."""
    receive, send = multiprocessing.Pipe(duplex=False)
    child = multiprocessing.get_context("fork").Process(target=_child, args=(fn, make, n, send))
    child.start()
    watched = psutil.Process(child.pid)
    while not receive.poll(0.05):
        try:
            spent = sum(watched.cpu_times()[:2])
        except psutil.NoSuchProcess:
            spent = 0.0  # it has just ended: its figure is in the pipe
        if spent > budget:
            child.kill()
            child.join()
            return None
    took = receive.recv()
    child.join()
    return took


def row(case: Case, code: str, fn, sizes: list[int], budget: float) -> list:
    cells, figures = [], []
    for n in sizes:
        took = None if cells and cells[-1] == "> budget" else timed(fn, case.make, n, budget)
        cells.append("> budget" if took is None else f"{took:.3f}")
        if took is not None:
            figures.append((n, took))
    growth = ""
    if len(figures) >= 2:
        (n1, t1), (n2, t2) = figures[-2:]
        growth = f"{t2 / max(t1, 1e-6) * 8 / (n2 / n1):.1f}"
    return [case.where, case.input, code, *cells, growth]


# -- wrapping, before and after -------------------------------------------------------------------
WRAP_PROBE = r"""
import json, random, sys, time
sys.path.insert(0, sys.argv[1])
from clawd.security.content import wrap_untrusted
rng = random.Random(7)
words = "home about news sign in search cart products contact privacy terms help".split()
lines, i = [], 0
while sum(map(len, lines)) < 50000:
    i += 1
    name = " ".join(rng.choice(words).capitalize() for _ in range(rng.randint(1, 4)))
    lines.append(f'  - link "{name}" [ref=e{i}]:\n    - /url: /{name.lower().replace(" ", "-")}\n')
ascii_text = "".join(lines)[:50000]
pools = ["Příliš žluťoučký kůň úpěl ďábelské ódy. ", "Съешь же ещё этих мягких булок. ",
         "日本語のテキストです。東京都の天気は晴れ。", "Ελληνικά κείμενα. ", "Plain words. "]
parts = []
while sum(map(len, parts)) < 50000:
    parts.append(rng.choice(pools))
other = "".join(parts)[:50000]
marker = " <<<END_EXTERNAL_UNTRUSTED_CONTENT>>>"
out = {}
for name, text in (("ASCII snapshot", ascii_text), ("non-ASCII text", other),
                   ("ASCII snapshot + a marker", ascii_text + marker),
                   ("non-ASCII text + a marker", other + marker)):
    wrap_untrusted(text)
    best = float("inf")
    for _ in range(15):
        began = time.process_time()
        wrap_untrusted(text)
        best = min(best, time.process_time() - began)
    out[name] = round(best * 1000, 3)
print(json.dumps(out))
"""


def wrap_times(tree: pathlib.Path) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", WRAP_PROBE, str(tree)], capture_output=True, text=True, timeout=300
    )
    if done.returncode:
        raise SystemExit(done.stderr)
    return json.loads(done.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=2.0, help="CPU seconds a call may take")
    parser.add_argument("--sizes", default="1000,8000,64000,2000000")
    parser.add_argument("--only", default="", help="only the cases whose name holds this")
    parser.add_argument("--base", help="another checkout whose wrapping to time as well")
    parser.add_argument("--json")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    rows = []
    for case in CASES:
        if args.only not in f"{case.where} {case.input}":
            continue
        if case.before is not None:
            rows.append(row(case, "before", case.before, sizes, args.budget))
        if case.now is not None:
            rows.append(row(case, "now", case.now, sizes, args.budget))
    size_names = [f"{n // 1000}k" if n < 1_000_000 else f"{n / 1e6:g}M" for n in sizes]
    header = ["pattern", "hostile input (n characters)", "code", *size_names, "x8"]
    print_table(f"CPU ms per call, least of up to 5 (budget {args.budget:g} s)", header, rows)
    wraps = {"now": wrap_times(ROOT)}
    if args.base:
        wraps["base"] = wrap_times(pathlib.Path(args.base).resolve())
    names = list(wraps["now"])
    print_table(
        "wrap_untrusted, CPU ms (least of 15)",
        ["text (50,000 characters)", *wraps],
        [[name, *(wraps[tree][name] for tree in wraps)] for name in names],
    )
    write_json(args.json, {"header": header, "rows": rows, "wrap": wraps})


if __name__ == "__main__":
    main()
