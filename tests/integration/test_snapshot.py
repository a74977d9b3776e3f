"""GET /snapshot and /snapshot/find against real pages (tests/site/snapshot/)."""
from __future__ import annotations

import re

import pytest

from clawd import errors
from clawd.page.refs import resolve_ref


def open_page(client, site, tab, path):
    client.navigate(site.url("/snapshot/" + path), target_id=tab["tabId"])
    return tab["tabId"]


def snap(client, tab_id, **params):
    return client.request("GET", "/snapshot", params={"targetId": tab_id, **params})


def live_tab(service, tab_id):
    browser = service.service.runtime(None).browser
    return next(t for t in browser.tabs() if t.tab_id == tab_id)


def test_snapshot_prints_roles_names_states_and_refs(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    body = snap(client, tab_id)
    text = body["snapshot"]
    assert body["format"] == "ai" and body["tabId"] == tab_id
    assert re.search(r'- heading "Title" \[level=1\] \[ref=e\d+\]', text)
    assert re.search(r'- checkbox "Remember me" \[checked\] \[ref=e\d+\]', text)
    assert re.search(r'- button "Disabled" \[disabled\] \[ref=e\d+\]', text)
    assert re.search(r'- link "Home" \[ref=e\d+\] \[cursor=pointer\]:\n\s+- /url: /home', text)
    assert "Not shown" not in text and "Invisible" not in text and "Aria hidden" not in text
    assert body["stats"]["refs"] == len(body["refs"]) > 10
    assert all(set(info) >= {"role", "name"} for info in body["refs"].values())


def test_same_element_keeps_its_ref_across_snapshots(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    first = snap(client, tab_id)["refs"]
    second = snap(client, tab_id)["refs"]
    assert first == second


def test_duplicates_get_nth(client, site, tab):
    tab_id = open_page(client, site, tab, "dups.html")
    text = snap(client, tab_id)["snapshot"]
    assert re.search(r'- button "OK" \[ref=e\d+\]\n', text)
    assert re.search(r'- button "OK" \[ref=e\d+\] \[nth=1\]', text)
    assert re.search(r'- button "OK" \[ref=e\d+\] \[nth=2\]', text)


def test_removed_element_ref_is_stale_and_unknown_ref_is_404(client, site, tab, service):
    tab_id = open_page(client, site, tab, "dups.html")
    refs = snap(client, tab_id)["refs"]
    victim = next(ref for ref, info in refs.items() if info["name"] == "Victim")
    live = live_tab(service, tab_id)
    resolved = resolve_ref(live, "@" + victim)
    assert resolved.role == "button" and resolved.name == "Victim" and resolved.backend_node_id > 0
    assert resolve_ref(live, f"ref={victim}").backend_node_id == resolved.backend_node_id
    live.session.call("Runtime.evaluate", {"expression": "document.getElementById('victim').remove()"})
    with pytest.raises(errors.RefStale):
        resolve_ref(live, victim)
    with pytest.raises(errors.RefUnknown):
        resolve_ref(live, "e99999")


def test_ref_from_previous_document_is_stale(client, site, tab, service):
    tab_id = open_page(client, site, tab, "dups.html")
    refs = snap(client, tab_id)["refs"]
    old = next(iter(refs))
    open_page(client, site, tab, "dups.html")
    snap(client, tab_id)
    with pytest.raises(errors.RefStale):
        resolve_ref(live_tab(service, tab_id), old)


def test_same_process_iframe_is_nested_with_frame_refs(client, site, tab):
    # the cross-origin frame of frames.html (localhost) is blocked by the test policy: an
    # out-of-process frame needs a second allowed host, not yet in tests/support
    tab_id = open_page(client, site, tab, "frames.html")
    text = snap(client, tab_id)["snapshot"]
    inside = re.findall(r'- button "Inside" \[ref=(f\d+e\d+)\]', text)
    assert len(inside) >= 1, text
    assert re.search(r'- iframe \[ref=e\d+\]:\n\s+- ', text)


def test_clickables_without_role_get_refs_and_cursor_pointer(client, site, tab):
    tab_id = open_page(client, site, tab, "frames.html")
    text = snap(client, tab_id)["snapshot"]
    assert re.search(r'Pointer div.*|\[cursor=pointer\]', text)
    line = next(l for l in text.splitlines() if "Pointer div" in l)
    assert "[ref=" in line and "[cursor=pointer]" in line


def test_open_shadow_roots_and_slots_are_included(client, site, tab):
    tab_id = open_page(client, site, tab, "shadow.html")
    text = snap(client, tab_id)["snapshot"]
    assert 'button "Slotted label"' in text and 'link "Shadow link"' in text


@pytest.mark.xfail(reason="closed shadow roots are not walked yet (need DOM.resolveNode of each closed root)")
def test_closed_shadow_roots_are_included(client, site, tab):
    tab_id = open_page(client, site, tab, "shadow.html")
    text = snap(client, tab_id)["snapshot"]
    assert 'button "Closed inside"' in text and 'textbox "Closed input"' in text


def test_options_interactive_compact_depth_maxchars_urls(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    inter = snap(client, tab_id, interactive="true")["snapshot"].splitlines()
    assert inter and all(line.startswith("- ") and "[ref=" in line for line in inter)
    shallow = snap(client, tab_id, depth=1)["snapshot"]
    assert all(len(l) - len(l.lstrip()) <= 2 for l in shallow.splitlines())
    cut = snap(client, tab_id, maxChars=300)
    assert cut["truncated"] and cut["snapshot"].endswith("\n\n[...TRUNCATED - page too large]")
    assert len(cut["snapshot"]) <= 300
    assert all(ref in cut["snapshot"] for ref in cut["refs"])
    urls = snap(client, tab_id, urls="true")["snapshot"]
    assert f"[url={site.url('/home')}]" in urls
    eff = snap(client, tab_id, mode="efficient")
    assert len(eff["snapshot"]) <= 10000 and "[ref=" in eff["snapshot"]


def test_selector_and_frame_options(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    nav = snap(client, tab_id, selector="nav")["snapshot"]
    assert nav.startswith('- navigation "Main"') and "Title" not in nav
    with pytest.raises(errors.SelectorNotFound):
        snap(client, tab_id, selector="#nothing-here")
    with pytest.raises(errors.InvalidRequest):
        snap(client, tab_id, frame="nav")
    tab_id = open_page(client, site, tab, "frames.html")
    inner = snap(client, tab_id, frame="#same")["snapshot"]
    assert 'button "Inside"' in inner and "Top" not in inner


def test_bad_options_are_400(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    for params in ({"depth": "-1"}, {"maxChars": "abc"}, {"bogus": "1"}, {"format": "xml"}, {"mode": "fast"}):
        with pytest.raises(errors.InvalidRequest):
            snap(client, tab_id, **params)


def test_find_returns_matching_lines_with_refs_and_paths(client, site, tab):
    tab_id = open_page(client, site, tab, "basics.html")
    found = client.request("GET", "/snapshot/find", params={"targetId": tab_id, "text": "remember"})
    assert found["count"] >= 1
    match = found["matches"][0]
    assert match["ref"] and "Remember me" in match["line"]
    assert any("form" in p for p in match["path"])
    regex = client.request("GET", "/snapshot/find", params={"targetId": tab_id, "text": "/^button \"(OK|Send)\"/"})
    assert regex["count"] == 2


def test_aria_format_lists_nodes_with_actionable_ax_refs(client, site, tab, service):
    tab_id = open_page(client, site, tab, "dups.html")
    body = snap(client, tab_id, format="aria", limit=50)
    assert body["format"] == "aria" and 0 < len(body["nodes"]) <= 50
    button = next(n for n in body["nodes"] if n["role"] == "button" and n["name"] == "Victim")
    resolved = resolve_ref(live_tab(service, tab_id), button["ref"])
    assert resolved.backend_node_id == button["backendDOMNodeId"]


def test_wrap_marks_untrusted_content(client, site, tab):
    tab_id = open_page(client, site, tab, "dups.html")
    text = snap(client, tab_id, wrap="true")["snapshot"]
    assert text.startswith("<<<EXTERNAL_UNTRUSTED_CONTENT") and "END_EXTERNAL_UNTRUSTED_CONTENT" in text


def test_labels_writes_a_screenshot(client, site, tab):
    tab_id = open_page(client, site, tab, "dups.html")
    body = snap(client, tab_id, labels="true")
    assert body["labelsCount"] >= 5 and body["imagePath"].endswith(".png")
