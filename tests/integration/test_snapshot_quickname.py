"""quickname.js computes Playwright's name from content the short way for links, buttons,
headings and cells of plain content: in audit mode the walker computes each such name both ways,
and every one must be the general algorithm's (text and contributing elements alike)."""

from __future__ import annotations

import pytest

from tests.support.quickaudit import audited_snapshot, result, start


def test_quick_names_are_playwrights_on_content_of_every_shape(client, site, tab, service):
    audit = audited_snapshot(client, service, tab["tabId"], site.url("/snapshot/quicknames.html"))
    assert audit["differ"] == [], "\n".join(map(repr, audit["differ"]))
    # most of the page's links, buttons, headings and cells the short way; images, svg, labels
    # (of a button too), a nav, a form control, and empty content (a title names it) the general
    # way
    assert audit["count"] >= 30, audit
    assert audit["general"] >= 10, audit


@pytest.mark.parametrize("page", ["names.html", "vouched.html", "basics.html", "peer.html"])
def test_quick_names_are_playwrights_on_the_name_test_pages(client, site, tab, service, page):
    audit = audited_snapshot(client, service, tab["tabId"], site.url("/snapshot/" + page))
    assert audit["differ"] == [], "\n".join(map(repr, audit["differ"]))
    assert audit["count"] >= 5, audit


def test_snapshot_text_is_the_same_with_the_audit_on(client, site, tab, service):
    # the audit only looks: a second snapshot of the same document, audited, reads the same
    client.navigate(site.url("/snapshot/quicknames.html"), target_id=tab["tabId"])
    params = {"targetId": tab["tabId"], "maxChars": 0}
    plain = client.request("GET", "/snapshot", params=params)
    session, context = start(service, tab["tabId"])
    audited = client.request("GET", "/snapshot", params=params)
    assert audited["snapshot"] == plain["snapshot"]
    assert result(session, context)["count"]
