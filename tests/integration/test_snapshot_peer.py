"""refs=false reads exactly as Playwright's locator("body").aria_snapshot() of the same page in
the same Chromium (DESIGN.md §7). Playwright connects to the test service's Chromium over CDP.
Where Chrome's names or clawd's rules differ from Playwright, the difference is asserted exactly."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.peer
playwright_api = pytest.importorskip("playwright.sync_api")

from tests.support.browser import require_chromium, service_config  # noqa: E402
from tests.support.service import RunningService  # noqa: E402

PAGES = [
    "peer.html",
    "basics.html",
    "dups.html",
    "child.html",
    "names.html",
    "shadow.html",
    "frames.html",
]


@pytest.fixture(scope="module")
def peered(tmp_path_factory):
    """A service of its own (Playwright's page must not show up among the shared service's tabs),
    its clawd tab, and a Playwright page in the same Chromium."""
    require_chromium()
    running = RunningService(service_config(tmp_path_factory.mktemp("clawd-peer")))
    client = running.client()
    client.start()
    tab = client.open("about:blank")
    port = running.config.browser.profiles["clawd"].cdp_port
    with playwright_api.sync_playwright() as pw:
        browser = pw.chromium.connect_over_cdp(f"http://127.0.0.1:{port}")
        page = browser.contexts[0].new_page()
        yield client, tab, page
        browser.close()
    client.close()
    running.close()


def both(peered, url: str) -> tuple[str, str]:
    client, tab, peer = peered
    client.navigate(url, target_id=tab["tabId"])
    ours = client.request(
        "GET", "/snapshot", params={"targetId": tab["tabId"], "refs": "false", "maxChars": 0}
    )
    peer.goto(url)
    return ours["snapshot"], peer.locator("body").aria_snapshot()


@pytest.mark.parametrize("page", PAGES)
def test_refs_false_reads_as_playwright(peered, site, page):
    ours, theirs = both(peered, site.url("/snapshot/" + page))
    expected = theirs
    for before, after in DIFFERENCES.get(page, []):
        assert expected.count(before) == 1, (before, expected)
        expected = expected.replace(before, after)
    assert ours == expected


# page -> [(Playwright's text, clawd's text)]: the documented differences, each one exact.
# - Table rows: Playwright names a row from its cells' text (even when it has a title); Chrome
#   gives a row no name unless aria-label, aria-labelledby or title names it.
# - text-transform: Chrome's names carry the transformed text ("UPPER LINK"),
#   Playwright's the DOM's.
# - <option label=...>: Chrome names the option by its label attribute, Playwright by its text.
# - <figure>: Playwright names it from its <figcaption>; Chrome gives it no name.
# - Whitespace in names from content: Chrome puts a space after an inline image or svg and at a
#   <wbr>, and drops the whitespace next to a comment ("1/50<!-- -->Title") or at the edge of a
#   link inside the name.
# - Closed shadow roots: Playwright cannot see into them and prints the host's light content;
#   clawd walks them (Chrome's accessibility tree includes them).
# - Long content: Chrome stops a name from content after so many descendants (100): a cell of 60
#   linked list items is named by its first 33.
COUNTRIES = [f"Country {i}" for i in range(60)]
ROWS = {
    "peer.html": ["Name Score", "Ann 3", "Bob Edit"],
    "basics.html": ["Item Price", "Apple 1", "Pear 2"],
    "names.html": [
        "Head A Head B",
        "Cell one Cell link",
        "Cell label Cell two",
        "cell 3-0 act 3.0 row link tail",
        "Plain cell",
        "Summary cell",
        "Titled cell",
        " ".join(COUNTRIES),
    ],
}
DIFFERENCES: dict[str, list[tuple[str, str]]] = {
    page: [(f'- row "{name}":\n', "- row:\n") for name in names] for page, names in ROWS.items()
}
DIFFERENCES["names.html"] += [
    ('- link "upper link":', '- link "UPPER LINK":'),
    ('- button "shout"', '- button "SHOUT"'),
    ('- textbox "upper label"', '- textbox "UPPER LABEL"'),
    ('- option "B"', '- option "Opt B label"'),
    ('- figure "Figure caption":', "- figure:"),
    ('- row "Typed Glued x":', '- row "Titled row":'),  # Chrome names a row by its title
    ('- link "FirefoxTry it":', '- link "Firefox Try it":'),
    ('- heading "1/50 Commented heading"', '- heading "1/50Commented heading"'),
    ('- link "longword":', '- link "long word":'),
    ('- link "Middle":', '- link "Mid dle":'),
    # Chrome takes a link's own (trimmed) name into the heading's: the space that was whitespace-
    # only text at the link's start is gone
    ('- heading "Site Index The Site" [level=2]:', '- heading "Site IndexThe Site" [level=2]:'),
    (f'- cell "{" ".join(COUNTRIES)}"', f'- cell "{" ".join(COUNTRIES[:33])}"'),
]
DIFFERENCES["shadow.html"] = [
    (
        "- text: Card title Slotted only",
        "\n".join(
            [
                '- button "Closed inside"',
                '- textbox "Closed input"',
                '- heading "Card title" [level=3]',
                '- button "Card action"',
                '- link "Deep link":',
                "  - /url: /deep",
                "- paragraph: Shadow paragraph",
                '- button "Slotted only"',
                '- link "Slot host link":',
                "  - /url: /slot-host",
            ]
        ),
    ),
]
