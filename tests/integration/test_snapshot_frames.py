"""Cross-origin iframes in their own renderer process (OOPIF): a dedicated service whose
Chromium isolates every site and maps other.test to 127.0.0.1, so the fixture site's pages
under that name are another site."""

from __future__ import annotations

import re

import pytest

from clawd.page.snapshot.refs import resolve_ref
from tests.support.service import OTHER_SITE, two_site_service

OTHER = OTHER_SITE


@pytest.fixture(scope="module")
def isolated(tmp_path_factory):
    with two_site_service(tmp_path_factory.mktemp("clawd-oopif")) as started:
        yield started


def test_out_of_process_iframe_refs_are_nested_and_resolve(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/oopif.html"))["tabId"]
    live = running.live_tab(tab_id)
    children = live.child_sessions()
    assert len(children) == 1, "the cross-site frame must be an out-of-process target"
    child_session = next(iter(children.values()))

    body = client.request("GET", "/snapshot", params={"targetId": tab_id})
    text = body["snapshot"]
    found = re.search(
        r'( *)- iframe \[ref=(e\d+)\]:\n\1  - generic \[ref=f\d+e\d+\]:\n'
        r'\1    - button "Inside" \[ref=(f\d+e\d+)\]\n'
        r'\1    - link "Child link" \[ref=(f\d+e\d+)\] \[cursor=pointer\]:\n\1      - /url: /c',
        text,
    )
    assert found, text
    iframe_ref, inside_ref, link_ref = found.group(2), found.group(3), found.group(4)
    assert body["refs"][inside_ref] == {"role": "button", "name": "Inside"}
    assert inside_ref[: inside_ref.index("e")] == link_ref[: link_ref.index("e")]

    resolved = resolve_ref(live, inside_ref)
    assert resolved.session is child_session and resolved.role == "button"
    node = child_session.call("DOM.describeNode", {"backendNodeId": resolved.backend_node_id})[
        "node"
    ]
    assert node["nodeName"] == "BUTTON"

    inner = client.request("GET", "/snapshot", params={"targetId": tab_id, "frame": iframe_ref})[
        "snapshot"
    ]
    assert f'- button "Inside" [ref={inside_ref}]' in inner and "Outer" not in inner
    client.close_tab(tab_id)


def test_out_of_process_iframe_refs_stay_across_snapshots_and_act(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/oopif.html"))["tabId"]
    first = client.request("GET", "/snapshot", params={"targetId": tab_id})["refs"]
    second = client.request("GET", "/snapshot", params={"targetId": tab_id})["refs"]
    assert first == second
    link = next(ref for ref, info in second.items() if info["name"] == "Child link")
    assert re.fullmatch(r"f\d+e\d+", link)
    found = client.request(
        "GET", "/snapshot/find", params={"targetId": tab_id, "text": "Child link"}
    )
    assert found["matches"][0]["ref"] == link and any(
        p.startswith("- iframe") for p in found["matches"][0]["path"]
    )

    # a click by ref lands inside the other process's frame, at the element's own place
    inside = next(ref for ref, info in second.items() if info["name"] == "Inside")
    client.request("POST", "/act", json={"kind": "click", "ref": inside, "targetId": tab_id})
    client.request("POST", "/act", json={"kind": "click", "ref": inside, "targetId": tab_id})
    after = client.request("GET", "/snapshot", params={"targetId": tab_id})
    clicked = [
        ref
        for ref, info in after["refs"].items()
        if info == {"role": "button", "name": "Clicked 2"}
    ]
    assert len(clicked) == 1 and clicked[0].startswith(inside[: inside.index("e")]), after[
        "snapshot"
    ]
    assert '- button "Outer button"' in after["snapshot"]
    client.close_tab(tab_id)


def test_form_controls_in_an_out_of_process_iframe_take_text_clicks_and_choices(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/oopif-form.html"))["tabId"]
    refs = client.request("GET", "/snapshot", params={"targetId": tab_id})["refs"]
    ref = {info["name"]: r for r, info in refs.items() if r.startswith("f")}
    for body in (
        {"kind": "type", "ref": ref["Name"], "text": "Ada"},
        {"kind": "click", "ref": ref["Agree"]},
        {"kind": "select", "ref": ref["Size"], "values": ["large"]},
    ):
        client.request("POST", "/act", json={**body, "targetId": tab_id})
    child = next(iter(running.live_tab(tab_id).child_sessions().values()))
    state = child.call(
        "Runtime.evaluate",
        {
            "returnByValue": True,
            "expression": "[document.querySelector('#name').value, "
            "document.querySelector('#agree').checked,"
            " document.querySelector('select').value]",
        },
    )["result"]["value"]
    assert state == ["Ada", True, "large"]
    client.close_tab(tab_id)


def test_sibling_frames_in_and_out_of_process_each_get_their_own_text(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/mixed-frames.html"))["tabId"]
    assert len(running.live_tab(tab_id).child_sessions()) == 1
    text = client.request("GET", "/snapshot", params={"targetId": tab_id})["snapshot"]
    found = re.search(
        r'( *)- iframe \[ref=e\d+\]:\n\1  - generic \[ref=(f\d+)e\d+\]:\n'
        r'\1    - button "First" \[ref=\2e\d+\]\n'
        r'\1    - iframe \[ref=\2e\d+\]:\n\1      - button "Nested" \[ref=(f\d+)e\d+\]\n'
        r'\1- iframe \[ref=e\d+\] \[nth=1\]:\n\1  - generic \[ref=(f\d+)e\d+\]:\n'
        r'\1    - button "Inside" \[ref=\4e\d+\]\n'
        r'(?:\1    .*\n)+'
        r'\1- iframe \[ref=e\d+\] \[nth=2\]:\n\1  - button "Third" \[ref=(f\d+)e\d+\]',
        text,
    )
    assert found, text
    assert len(set(found.group(2, 3, 4, 5))) == 4, "each frame has a ref prefix of its own"
    client.close_tab(tab_id)


def test_a_snapshot_walks_at_most_fifty_frames_and_prints_the_rest_bare(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/many-frames.html"))["tabId"]
    client.request(
        "POST",
        "/act",
        json={"kind": "wait", "fn": "() => document.readyState === 'complete'", "targetId": tab_id},
    )
    text = client.request("GET", "/snapshot", params={"targetId": tab_id})["snapshot"]
    buttons = re.findall(r'- button "b(\d+)"', text)
    assert buttons == [str(i) for i in range(50)], text
    assert text.count("- iframe") == 53, text
    client.close_tab(tab_id)


def test_a_frame_inside_an_out_of_process_frame_is_walked_in_that_frames_process(isolated, site):
    running, client = isolated
    tab_id = client.open(site.url("/snapshot/oopif-nesting.html"))["tabId"]
    assert len(running.live_tab(tab_id).child_sessions()) == 1
    client.request(
        "POST",
        "/act",
        json={"kind": "wait", "fn": "() => document.readyState === 'complete'", "targetId": tab_id},
    )
    body = client.request("GET", "/snapshot", params={"targetId": tab_id})
    found = re.search(
        r'( *)- iframe \[ref=e\d+\]:\n\1  - generic \[ref=(f\d+)e\d+\]:\n'
        r'\1    - button "Middle" \[ref=\2e\d+\]\n'
        r'\1    - iframe \[ref=\2e\d+\]:\n\1      - button "Deep" \[ref=(f\d+e\d+)\]',
        body["snapshot"],
    )
    assert found, body["snapshot"]
    deep = found.group(3)
    client.request("POST", "/act", json={"kind": "click", "ref": deep, "targetId": tab_id})
    after = client.request("GET", "/snapshot", params={"targetId": tab_id})["snapshot"]
    # the click landed in the nested frame (a renamed button gets a new ref, in the same frame)
    prefix = deep[: deep.index("e")]
    assert re.search(rf'- button "Deep clicked" .*\[ref={prefix}e\d+\]', after), after
    client.close_tab(tab_id)


def test_a_world_is_forgotten_when_its_tab_moves_to_another_site(isolated, site):
    """No stale world (page/snapshot/inject.py Worlds), in a tab not preloaded: after a navigation
    to another site (another renderer process) the old document's world is gone, and the next
    one is the new document's."""
    from clawd.page.snapshot import aria, inject

    running, client = isolated
    tab_id = client.open(site.url("/snapshot/basics.html"))["tabId"]
    live = running.live_tab(tab_id)
    old = inject.world(live.session, live.target_id, 5)  # watched from here on, made here
    assert inject.WORLDS.get(live.session, live.target_id, 5) == old
    client.navigate(site.url("/snapshot/dups.html").replace("127.0.0.1", OTHER), target_id=tab_id)
    assert inject.WORLDS.get(live.session, live.target_id, 5) is None
    new = inject.world(live.session, live.target_id, 5)
    assert aria.evaluate(live.session, new, "location.hostname", 5) == OTHER
    body = client.request("GET", "/snapshot", params={"targetId": tab_id})
    assert body["snapshot"].count('button "OK"') == 3, body["snapshot"]
    client.close_tab(tab_id)
