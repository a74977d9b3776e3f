"""Quick names audit: every name the snapshot walker computes the short way (clawd/page/snapshot/
js/quickname.js) compared, in the page, with Playwright's general algorithm for the same element,
over the corpus pages. Not a test (tests/integration/test_snapshot_quickname.py checks the test
site's pages): the check to run after changing which content quickname.js takes.

    .venv/bin/python bench/quickname_audit.py [--only NAME] [--show 5]

Prints, per page, the names computed the short way, those left to the general algorithm, and
every difference (text or contributing elements).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from snapshot import CORPUS, corpus_session  # noqa: E402

from clawd.page.snapshot import aria  # noqa: E402

AUDIT_ON = "__clawd.auditQuickNames = true, __clawd.quickAudit = {count: 0, general: 0, differ: []}"


def audit_page(client, running, tab_id: str, url: str) -> dict:
    """A cold snapshot of `url` with the audit on: {count, general, differ}."""
    client.navigate(url, target_id=tab_id)
    client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    session = running.live_tab(tab_id).session
    context = aria.world(session, session.target_id, 10)
    aria.evaluate(session, context, AUDIT_ON, 10)
    client.request("GET", "/snapshot", params={"targetId": tab_id, "maxChars": 0})
    return json.loads(aria.evaluate(session, context, "JSON.stringify(__clawd.quickAudit)", 10))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=pathlib.Path, default=CORPUS)
    parser.add_argument("--only", action="append", default=[])
    parser.add_argument("--show", type=int, default=5, help="differences printed per page")
    args = parser.parse_args()

    quick = general = bad = 0
    with corpus_session(args.corpus, args.only) as (pages, site, running, client):
        tab = client.open("about:blank")
        for name in pages:
            audit = audit_page(client, running, tab["tabId"], site.url("/" + name))
            quick, general = quick + audit["count"], general + audit["general"]
            bad += len(audit["differ"])
            print(
                f"{name:46s} {audit['count']:6d} quick  {audit['general']:5d} general  "
                f"{len(audit['differ']):4d} differ",
                flush=True,
            )
            for html, ours, theirs, ours_n, theirs_n in audit["differ"][: args.show]:
                print(f"    {html!r}")
                print(f"      quick {ours!r} ({ours_n})  general {theirs!r} ({theirs_n})")
    print(f"\n{quick} quick names on {len(pages)} pages, {general} general, {bad} differ")


if __name__ == "__main__":
    main()
