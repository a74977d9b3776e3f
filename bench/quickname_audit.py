"""Quick names audit: every name the snapshot walker computes the short way (clawd/page/snapshot/
js/quickname.js) compared, in the page, with the walker's general algorithm (js/walker.js,
accname 1.2) for the same element, over the corpus pages. Not a test (tests/integration/
test_snapshot_quickname.py checks the test site's pages): the check to run after changing which
content quickname.js takes.

    .venv/bin/python bench/quickname_audit.py [--only NAME] [--show 5]

Prints, per page, the names computed the short way, those left to the general algorithm, and
every difference (text or contributing elements).
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from snapshot import corpus_parser, corpus_session  # noqa: E402

from tests.support.quickaudit import audited_snapshot  # noqa: E402


def main() -> None:
    args = corpus_parser(__doc__, show=5).parse_args()

    quick = general = bad = 0
    with corpus_session(args.corpus, args.only) as (pages, site, running, client):
        tab = client.open("about:blank")
        for name in pages:
            audit = audited_snapshot(client, running, tab["tabId"], site.url("/" + name))
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
