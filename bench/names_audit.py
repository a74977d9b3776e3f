"""Names audit: every name a snapshot prints, compared with Chrome's own accessible name of the
same node (Accessibility.getPartialAXTree), over the corpus pages. Not a test: the walker asks
Chrome only for the names it cannot vouch for, and this is how the rules that vouch are checked
on real pages before they are trusted (tests/integration/test_snapshot_names.py checks them on
tests/site/snapshot/names.html).

    .venv/bin/python bench/names_audit.py [--only NAME] [--show 20]

Prints, per page, the names compared, how many Chrome was asked for, and every difference.
Chrome's names are normalized as the snapshot normalizes them (zero-width spaces and soft hyphens
out, whitespace collapsed). Iframes are left out: like Playwright, the snapshot prints them
nameless.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from snapshot import corpus_parser, corpus_session  # noqa: E402

from clawd.page.snapshot import aria  # noqa: E402

ELEMENTS = "(refs => refs.map(ref => __clawd.refs.get(ref) || null))({refs})"


def normalized(name: str) -> str:
    """As the page's normalizeWhiteSpace: JavaScript's \\s also matches U+FEFF,
    Python's does not."""
    return re.sub(r"[\s\ufeff]+", " ", name.replace("\u200b", "").replace("\u00ad", "")).strip()


def audit_page(
    client, running, tab_id: str, url: str, pending_shown: int = 0
) -> tuple[int, int, list[tuple]]:
    client.navigate(url, target_id=tab_id)
    body = client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    # main frame only; iframes print no name (Playwright's format), Chrome names them by title
    refs = [
        (ref, info)
        for ref, info in body["refs"].items()
        if ref.startswith("e") and info["role"] != "iframe"
    ]
    tab = running.live_tab(tab_id)
    walk = aria.Walk(tab.session, tab.session.target_id, "ai", deadline=time.monotonic() + 120)
    context = aria.world(walk.session, walk.frame_id, walk.remaining())
    ids = aria.element_ids(
        walk, context, ELEMENTS.format(refs=json.dumps([ref for ref, _ in refs]))
    )
    calls = [
        ("Accessibility.getPartialAXTree", {"objectId": i, "fetchRelatives": False}) for i in ids
    ]
    replies = aria.pipelined(walk.session, calls, walk)
    differ = []
    if pending_shown:
        print_pending(walk, context, pending_shown)
    for (ref, info), reply in zip(refs, replies):
        chrome = normalized(aria._node_name((reply or {}).get("nodes") or [{}]) or "")
        if chrome != info["name"]:
            differ.append((ref, info["role"], info["name"], chrome))
    return len(refs), body["stats"].get("chromeNames", 0), differ


# The elements whose names the walker could not vouch for, as the build that asks Chrome sees them
PENDING = """(() => {{
  const built = __clawd.build({{mode: "ai", base: 0, probe: false}});
  if (!built || !built.pending) return [];
  const elements = __clawd.askedElements();  // no closed-root candidates: probe is off
  return __clawd.pending.slice(0, {count}).map((node, i) => {{
    const element = elements[i];
    const html = element && element.outerHTML ? element.outerHTML : String(element);
    return [node.role, node.name, html.replace(/\\s+/g, " ").slice(0, 240)];
  }});
}})()"""


def print_pending(walk, context: int, count: int) -> None:
    """Up to `count` of the page's pending names: role, the walker's name, the element's HTML."""
    for role, name, html in aria.evaluate(
        walk.session, context, PENDING.format(count=count), walk.remaining()
    ):
        print(f"    pending {role} {name!r}: {html}")


def main() -> None:
    parser = corpus_parser(__doc__, show=20)
    parser.add_argument("--pending", type=int, default=0, help="pending names printed per page")
    args = parser.parse_args()

    total = asked = bad = 0
    with corpus_session(args.corpus, args.only) as (pages, site, running, client):
        tab = client.open("about:blank")
        for name in pages:
            compared, chrome, differ = audit_page(
                client, running, tab["tabId"], site.url("/" + name), args.pending
            )
            total, asked, bad = total + compared, asked + chrome, bad + len(differ)
            print(
                f"{name:46s} {compared:6d} names  {chrome:5d} asked of Chrome  "
                f"{len(differ):4d} differ",
                flush=True,
            )
            for ref, role, ours, theirs in differ[: args.show]:
                print(f"    {ref} {role}: snapshot {ours!r}  chrome {theirs!r}")
    print(f"\n{total} names compared on {len(pages)} pages, {asked} asked of Chrome, {bad} differ")


if __name__ == "__main__":
    main()
