"""Names in snapshots are Chrome's own accessible names: every named ref of a page of varied
elements is resolved to its node and compared with Accessibility.getPartialAXTree's name."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from clawd.page.snapshot.refs import resolve_ref


def chrome_name(resolved) -> str:
    """Chrome's name, with whitespace as the snapshot prints every name (collapsed and trimmed,
    zero-width spaces and soft hyphens out): Chrome keeps the space an icon leaves, " Icon link"."""
    reply = resolved.session.call(
        "Accessibility.getPartialAXTree",
        {"backendNodeId": resolved.backend_node_id, "fetchRelatives": False},
    )
    node = reply["nodes"][0]
    name = (node.get("name") or {}).get("value", "")
    return re.sub(r"[\s\ufeff]+", " ", name.replace("\u200b", "").replace("\u00ad", "")).strip()


def beside_chrome(client, service, tab, url: str) -> tuple[dict, list[tuple]]:
    """A snapshot of `url`, and each of its refs as (ref, info, Chrome's name of its node)."""
    client.navigate(url, target_id=tab["tabId"])
    body = client.request("GET", "/snapshot", params={"targetId": tab["tabId"], "maxChars": 0})
    live = service.live_tab(tab["tabId"])
    return body, [
        (ref, info, chrome_name(resolve_ref(live, ref))) for ref, info in body["refs"].items()
    ]


def mismatches(named: list[tuple]) -> list[tuple]:
    """(ref, role, snapshot's name, Chrome's) of each ref whose names differ."""
    return [
        (ref, info["role"], info["name"], theirs)
        for ref, info, theirs in named
        if info["name"] != theirs
    ]


def test_names_of_fifty_varied_elements_are_chromes(client, site, tab, service):
    _, named = beside_chrome(client, service, tab, site.url("/snapshot/names.html"))
    named = [(ref, info, theirs) for ref, info, theirs in named if info["name"] or theirs]
    differ = mismatches(named)
    assert differ == [], "\n".join(map(repr, differ))
    assert len(named) >= 50, len(named)
    roles = Counter(info["role"] for _, info, _ in named)
    for role in (
        "button",
        "link",
        "textbox",
        "heading",
        "cell",
        "columnheader",
        "option",
        "group",
        "img",
        "checkbox",
        "radio",
        "combobox",
        "listbox",
        "tab",
        "menuitem",
        "region",
        "navigation",
    ):
        assert roles[role] >= 1, f"no named {role} compared: {sorted(roles)}"
    assert len(roles) >= 20, sorted(roles)


def test_names_the_walker_vouches_for_are_chromes_and_ask_chrome_nothing(
    client, site, tab, service
):
    body, named = beside_chrome(client, service, tab, site.url("/snapshot/vouched.html"))
    text = body["snapshot"]
    differ = mismatches(named)
    # a clickable generic named only by its title: Chrome gives it no name, its line and ref carry
    # the title, as Playwright's ai mode prints it (issue 35)
    assert [d[1:] for d in differ] == [("generic", "Generic title", "")], differ
    assert body["stats"]["chromeNames"] == 0, (body["stats"], text)
    names = {(info["role"], info["name"]) for info in body["refs"].values()}
    for expected in (
        ("link", "Heading in a link"),
        ("link", "Attributes that name nothing"),
        ("button", "Live label"),
        ("link", "Nested alt caption"),
        ("link", "Pictured"),
        ("link", "Icon between words"),
        ("link", "Labelled icon after icon"),
        ("link", "Line break"),
        ("link", "Shown"),
        ("link", "Only a title"),
        ("link", "Alt and title"),
        ("link", "Image title"),
        ("img", "Bare image title"),
        ("link", "Jan 1 news"),
        ("cell", "First item Second item"),
        ("term", "Term label:"),
        ("term", "Term link:"),
        ("group", "Legend name"),
        ("textbox", "Comment"),
        ("navigation", "Site menu"),
        ("link", "Positioned label visible text"),
        ("button", "Two icons"),
        ("checkbox", "Wrapped label"),
        ("checkbox", "Nested label"),
        ("textbox", "Search label"),
        ("link", "Cart icon Shop"),
        ("link", "Firefox Try it"),
        ("heading", "Score"),
        ("heading", "Critic 10 Reviews"),
        ("link", "ALREADY UPPER"),
        ("link", "Story title Source On Msn"),
        ("term", "The Motley Fool"),
        ("link", "Inserted deleted flow root"),
        ("link", "$45"),
        ("heading", "Logo news"),
        ("link", "Labelled image"),
        ("link", "Presented"),
        ("cell", "Bullet one Bullet two"),
        ("cell", "12 Info nov"),
        ("link", "split here"),
        ("navigation", "Inline label"),
    ):
        assert expected in names, (expected, text)
    # Chrome names no generic element, but the title is all an agent has of a clickable one
    assert '- generic "Generic title" [ref=' in text, text


@pytest.mark.parametrize("query", ["", "?open"])
def test_names_asked_of_chrome_beside_closed_root_candidates_land_on_their_nodes(
    client, site, tab, service, query
):
    # the build lists the closed-root candidates and the nodes Chrome must name in one array:
    # each name must come back to its own node, whether a candidate hosts a closed root (the page
    # is walked again with it) or none does (the first walk stands)
    body, named = beside_chrome(client, service, tab, site.url("/snapshot/candidates.html" + query))
    text = body["snapshot"]
    assert ('button "Inside the closed root"' in text) == (query == ""), text
    differ = mismatches(named)
    assert differ == [], "\n".join(map(repr, differ))
    assert body["stats"]["chromeNames"] >= 2, (body["stats"], text)
    names = {(info["role"], info["name"]) for info in body["refs"].values()}
    assert {("heading", "SiteHeading link"), ("heading", "SecondOther link")} <= names, sorted(
        names
    )
