"""refs=false reads as Playwright's locator("body").aria_snapshot() on every page of tests/site/ and
of the corpus (../shared/corpus/pages beside the checkout, when it is there), in the same Chromium.
Each page's differences are exactly those recorded in tests/site/snapshot/fidelity.json, each of a
kind docs/snapshot.md lists as deliberate ("Where the text differs from Playwright's").

Re-record after a deliberate change: CLAWD_FIDELITY_RECORD=1 pytest this file (then read the diff
of fidelity.json: every hunk must be one of the documented kinds)."""

from __future__ import annotations

import difflib
import json
import os
import re

import pytest

pytestmark = pytest.mark.peer
playwright_api = pytest.importorskip("playwright.sync_api")

from tests.support.browser import require_chromium, service_config  # noqa: E402
from tests.support.service import RunningService  # noqa: E402
from tests.support.site import SITE_ROOT, Site  # noqa: E402

ROOT = SITE_ROOT.parent.parent
CORPUS = next(
    (
        c / "corpus" / "pages"
        for c in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
        if (c / "corpus" / "pages").is_dir()
    ),
    None,
)
RECORDED = SITE_ROOT / "snapshot" / "fidelity.json"
RECORD = os.environ.get("CLAWD_FIDELITY_RECORD") == "1"
RESOLVER = "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"

# pages whose text is not the same twice, in any snapshotter: not compared
UNSTABLE = {
    "web/spa.html": "renders its article after a timer: the two snapshots catch different states",
    "corpus/readability-aktualne.html": "an ad script adds links, or not, as its requests fail",
}

SITE_PAGES = sorted(str(p.relative_to(SITE_ROOT)) for p in SITE_ROOT.rglob("*.html"))
CORPUS_PAGES = sorted(f"corpus/{p.name}" for p in CORPUS.glob("*.html")) if CORPUS else []
PAGES = [p for p in SITE_PAGES + CORPUS_PAGES if p not in UNSTABLE]


@pytest.fixture(scope="module")
def peered(tmp_path_factory):
    """A service of its own whose Chromium reaches 127.0.0.1 only (a corpus page's other hosts
    fail at once), its clawd tab, a Playwright page in the same Chromium, and the corpus served."""
    require_chromium()
    extra = {"browser": {"extraArgs": ["--disable-quic", RESOLVER]}}
    running = RunningService(service_config(tmp_path_factory.mktemp("clawd-fidelity"), extra=extra))
    client = running.client(timeout=120)
    client.start()
    tab = client.open("about:blank")
    corpus = Site(CORPUS) if CORPUS else None
    port = running.config.browser.profiles["clawd"].cdp_port
    try:
        with playwright_api.sync_playwright() as pw:
            browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
            page = browser.contexts[0].new_page()
            yield client, tab, page, corpus
            browser.close()
    finally:
        if corpus:
            corpus.close()
        client.close()
        running.close()


@pytest.fixture(scope="module")
def recorded():
    known = json.loads(RECORDED.read_text(encoding="utf-8")) if RECORDED.exists() else {}
    yield known
    if RECORD:
        RECORDED.write_text(json.dumps(known, indent=1, ensure_ascii=False, sort_keys=True) + "\n")


def hunks(theirs: str, ours: str) -> list[dict]:
    """Where our lines differ from Playwright's: [{kind, playwright: [...], clawd: [...]}]."""
    a, b = theirs.split("\n"), ours.split("\n")
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    return [
        {"kind": kind_of(a[i1:i2], b[j1:j2]), "playwright": a[i1:i2], "clawd": b[j1:j2]}
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    ]


NAMED = re.compile(r'^(\s*- [a-z]+)(?: ("(?:[^"\\]|\\.)*"))?(.*)$')


def kind_of(theirs: list[str], ours: list[str]) -> str:
    """The documented kind of a difference (docs/snapshot.md), from its lines."""
    if len(theirs) != len(ours):  # what a closed shadow root holds, in clawd's text only
        return "closed shadow root content"
    if all(
        re.sub(r'^(\s*- row) "(?:[^"\\]|\\.)*":$', r"\1:", t) == o for t, o in zip(theirs, ours)
    ):
        return "row name"
    if all(same_but_name(t, o) for t, o in zip(theirs, ours)):
        return "Chrome's name"
    return "other"


def same_but_name(theirs: str, ours: str) -> bool:
    """Lines alike but for the quoted name (and the key's quoting that follows from it)."""
    a, b = NAMED.match(unquoted(theirs)), NAMED.match(unquoted(ours))
    return bool(a and b) and a.group(1) == b.group(1) and a.group(3) == b.group(3)


def unquoted(line: str) -> str:
    """A line with its key's YAML single quotes taken off."""
    found = re.match(r"^(\s*- )'(.*)'(:?.*)$", line)
    return found.group(1) + found.group(2).replace("''", "'") + found.group(3) if found else line


def both(peered, url: str) -> tuple[str, str]:
    client, tab, peer, _ = peered
    client.navigate(url, target_id=tab["tabId"])
    ours = client.request(
        "GET", "/snapshot", params={"targetId": tab["tabId"], "refs": "false", "maxChars": 0}
    )
    peer.goto(url, wait_until="load")
    return ours["snapshot"], peer.locator("body").aria_snapshot()


@pytest.mark.parametrize("page", PAGES)
def test_refs_false_differs_from_playwright_only_as_recorded(peered, recorded, site, page):
    corpus = peered[3]
    in_corpus = page.startswith("corpus/")
    url = corpus.url("/" + page.split("/", 1)[1]) if in_corpus else site.url("/" + page)
    ours, theirs = both(peered, url)
    found = hunks(theirs, ours)
    if RECORD:
        if found:
            recorded[page] = found
        else:
            recorded.pop(page, None)
    assert found == recorded.get(page, []), json.dumps(found, indent=1, ensure_ascii=False)[:4000]
