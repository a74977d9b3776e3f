"""The walker preloaded into a tab's later documents (page/snapshot/inject.py preload): after a
tab's first snapshot, every new document of the tab, its iframes too, starts with the script in
clawd's world; a tab never snapshotted gets nothing; a preloaded document's snapshot is the one
an injected walker takes, one whose script went missing gets it injected, and the world has no
more access than the one Page.createIsolatedWorld makes."""

from __future__ import annotations

import re

from clawd.page.snapshot import inject


def open_page(client, site, tab_id, path):
    client.navigate(site.url("/snapshot/" + path), target_id=tab_id)


def snap(client, tab_id) -> dict:
    return client.request("GET", "/snapshot", params={"targetId": tab_id})


def in_world(live, expression, frame_id=None, *, promise=False):
    """`expression`'s value in clawd's world of the frame (the main frame by default)."""
    context = inject.world(live.session, frame_id or live.target_id, 5)
    reply = live.session.call(
        "Runtime.evaluate",
        {
            "expression": expression,
            "contextId": context,
            "returnByValue": True,
            "awaitPromise": promise,
        },
        timeout=5,
    )
    assert "exceptionDetails" not in reply, reply
    return reply["result"].get("value")


def same_process_iframe(live) -> str:
    tree = live.session.call("Page.getFrameTree", timeout=5)["frameTree"]
    return next(
        child["frame"]["id"]
        for child in tree.get("childFrames", [])
        if child["frame"]["url"].endswith("/snapshot/child.html")
    )


def without_refs(text: str) -> str:
    return re.sub(r"\[ref=[^\]]+\]", "[ref]", text)


def test_a_tab_snapshotted_once_starts_its_next_documents_with_the_walker(client, site, service):
    tab_id = client.open(site.url("/snapshot/basics.html"))["tabId"]
    live = service.live_tab(tab_id)
    assert in_world(live, "typeof globalThis.__clawd") == "undefined", "never snapshotted"
    snap(client, tab_id)
    open_page(client, site, tab_id, "frames.html")
    assert in_world(live, "typeof globalThis.__clawd") == "object"
    iframe = same_process_iframe(live)
    assert in_world(live, "typeof globalThis.__clawd", iframe) == "object"
    # the page's own world sees none of it
    page = live.session.call(
        "Runtime.evaluate",
        {"expression": "typeof globalThis.__clawd", "returnByValue": True},
        timeout=5,
    )
    assert page["result"]["value"] == "undefined", page
    client.close_tab(tab_id)


def test_a_preloaded_document_snapshots_as_an_injected_one(client, site, service):
    fresh = client.open(site.url("/snapshot/frames.html"))["tabId"]
    preloaded = client.open(site.url("/snapshot/basics.html"))["tabId"]
    snap(client, preloaded)
    open_page(client, site, preloaded, "frames.html")
    assert in_world(service.live_tab(preloaded), "typeof globalThis.__clawd") == "object"
    injected_text = snap(client, fresh)["snapshot"]
    preloaded_body = snap(client, preloaded)
    assert without_refs(preloaded_body["snapshot"]) == without_refs(injected_text)
    assert 'button "Top"' in injected_text and "Pointer div" in injected_text
    # its refs act as any other: the button is found and clicked
    top = next(r for r, info in preloaded_body["refs"].items() if info["name"] == "Top")
    acted = client.act("click", ref=top, target_id=preloaded)
    assert acted["ok"], acted
    for tab_id in (fresh, preloaded):
        client.close_tab(tab_id)


def test_a_preloaded_document_whose_script_went_missing_gets_it_injected(client, site, service):
    tab_id = client.open(site.url("/snapshot/basics.html"))["tabId"]
    first = snap(client, tab_id)["snapshot"]
    open_page(client, site, tab_id, "dups.html")
    open_page(client, site, tab_id, "basics.html")
    live = service.live_tab(tab_id)
    assert in_world(live, "delete globalThis.__clawd") is True
    assert in_world(live, "typeof globalThis.__clawd") == "undefined"
    again = snap(client, tab_id)["snapshot"]
    assert without_refs(again) == without_refs(first)
    assert in_world(live, "typeof globalThis.__clawd") == "object"
    client.close_tab(tab_id)


def test_the_preloaded_world_reads_no_other_origin(client, site, service):
    tab_id = client.open(site.url("/snapshot/basics.html"))["tabId"]
    snap(client, tab_id)
    open_page(client, site, tab_id, "frames.html")
    live = service.live_tab(tab_id)
    assert in_world(live, "typeof globalThis.__clawd") == "object"
    other = site.url("/snapshot/child.html").replace("127.0.0.1", "localhost")
    read = in_world(
        live,
        f"fetch({other!r}).then(r => r.text()).then(t => 'read ' + t.length, e => 'refused')",
        promise=True,
    )
    assert read == "refused", f"clawd's world read {other}: {read}"
    client.close_tab(tab_id)


def test_the_world_chrome_reported_is_the_one_it_hands_back(client, site, service):
    tab_id = client.open(site.url("/snapshot/basics.html"))["tabId"]
    snap(client, tab_id)
    live = service.live_tab(tab_id)

    def made(frame_id):
        return live.session.call(
            "Page.createIsolatedWorld",
            {"frameId": frame_id, "worldName": inject.WORLD, "grantUniveralAccess": False},
            timeout=5,
        )["executionContextId"]

    open_page(client, site, tab_id, "frames.html")
    iframe = same_process_iframe(live)
    first = inject.WORLDS.get(live.session, live.target_id, 5)
    assert first is not None and first == made(live.target_id)
    assert inject.WORLDS.get(live.session, iframe, 5) == made(iframe)
    open_page(client, site, tab_id, "dups.html")  # the old document's world is forgotten
    second = inject.WORLDS.get(live.session, live.target_id, 5)
    assert second not in (None, first) and second == made(live.target_id)
    assert inject.WORLDS.get(live.session, iframe, 5) is None
    client.close_tab(tab_id)
