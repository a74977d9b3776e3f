"""Request fields agents written for OpenClaw's browser tool send (DESIGN.md §17), each doing what
its name says on a real page: press delayMs, upload element, trace snapshots and sources, snapshot
refs=role|aria, bare numeric refs."""

from __future__ import annotations

import json
import pathlib

import pytest
import requests

from clawd import errors
from tests.support.act import Page, opened_pages
from tests.support.cli import cli_of


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


def post(service, path: str, body: dict) -> tuple[int, dict]:
    """A raw request, so the test sees the status and code exactly as an agent would."""
    r = requests.post(
        f"{service.url}{path}",
        json=body,
        timeout=30,
        headers={"Authorization": f"Bearer {service.token}"},
    )
    return r.status_code, r.json()


def get(service, path: str, params: dict) -> tuple[int, dict]:
    r = requests.get(
        f"{service.url}{path}",
        params=params,
        timeout=30,
        headers={"Authorization": f"Bearer {service.token}"},
    )
    return r.status_code, r.json()


# -- press delayMs --------------------------------------------------------------------------------
def key_events(p: Page, key: str) -> tuple[dict, dict]:
    log = p.value("window.keyLog")
    down = [e for e in log if e["type"] == "keydown" and e["key"] == key]
    up = [e for e in log if e["type"] == "keyup" and e["key"] == key]
    assert len(down) == 1 and len(up) == 1, (
        f"expected one keydown and one keyup of {key!r}, the page saw {log}"
    )
    return down[0], up[0]


@pytest.mark.parametrize("chord, key", [("a", "a"), ("Enter", "Enter"), ("Shift+B", "B")])
def test_press_delay_ms_keeps_the_key_down_that_long(page, chord, key):
    p = page("/compat/keys.html")
    p.act("press", key=chord, ref=p.ref("textbox", "Field"), delay_ms=300)
    down, up = key_events(p, key)
    held, listened = up["stamp"] - down["stamp"], up["now"] - down["now"]
    assert held >= 300 and listened >= 300, (
        f"keyup came {held:.1f} ms (event stamps) / {listened:.1f} ms (listeners) after keydown, "
        "not >= 300"
    )


@pytest.mark.parametrize("delay", [5001, -1, "soon", 2.5, True])
def test_press_with_a_bad_delay_ms_is_400_naming_delay_ms(service, page, delay):
    p = page("/compat/keys.html")
    status, body = post(
        service, "/act", {"kind": "press", "key": "a", "delayMs": delay, "targetId": p.id}
    )
    assert (status, body["code"]) == (400, "ACT_INVALID_REQUEST"), body
    assert "delayMs" in body["error"], body
    assert p.value("window.keyLog") == [], "a refused press must not touch the keyboard"


def test_press_delay_longer_than_the_timeout_fails_before_any_key_goes_down(service, page):
    p = page("/compat/keys.html")
    status, body = post(
        service,
        "/act",
        {"kind": "press", "key": "a", "delayMs": 3000, "timeoutMs": 600, "targetId": p.id},
    )
    assert (status, body["code"]) == (408, "ACT_TIMEOUT"), body
    assert p.value("window.keyLog") == [], "no key may be left held down"


def test_cli_press_delay_ms(service, page):
    p = page("/compat/keys.html")
    p.act("click", ref=p.ref("textbox", "Field"))
    ran = cli_of(service, "press", "x", "--delay-ms", "250", "--target", p.id)
    assert ran.status == 0
    down, up = key_events(p, "x")
    assert up["stamp"] - down["stamp"] >= 250, (
        f"keyup came {up['stamp'] - down['stamp']:.1f} ms after keydown"
    )


# -- upload element -------------------------------------------------------------------------------
@pytest.fixture
def upload_file(service):
    path = service.service.layout.uploads / "compat-report.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("hello element")
    return path


def test_upload_element_sets_the_files_on_the_matched_file_input(client, page, upload_file):
    p = page("/act/upload.html")
    result = client.file_chooser([upload_file.name], element="#file", target_id=p.id)
    assert (result["set"], result["files"]) == ("input", [str(upload_file)]), result
    assert p.text("chosen") == "chosen compat-report.txt:13"


def test_cli_upload_element(service, page, upload_file):
    p = page("/act/upload.html")
    ran = cli_of(
        service, "upload", upload_file.name, "--element", "input[multiple]", "--target", p.id
    )
    assert ran.status == 0
    assert p.text("chosen") == "chosen compat-report.txt"


def test_upload_element_matching_nothing_is_the_404_screenshot_gives(service, page, upload_file):
    p = page("/act/upload.html")
    shot_status, shot = post(service, "/screenshot", {"element": "#nothing-here", "targetId": p.id})
    status, body = post(
        service,
        "/hooks/file-chooser",
        {"paths": [upload_file.name], "element": "#nothing-here", "targetId": p.id},
    )
    assert (status, body["code"]) == (shot_status, shot["code"]) == (404, "SELECTOR_NOT_FOUND"), (
        body,
        shot,
    )
    assert "#nothing-here" in body["error"]


def test_upload_element_with_an_invalid_selector_is_400(service, page, upload_file):
    p = page("/act/upload.html")
    status, body = post(
        service,
        "/hooks/file-chooser",
        {"paths": [upload_file.name], "element": "input[", "targetId": p.id},
    )
    assert (status, body["code"]) == (400, "INVALID_REQUEST"), body
    assert "not a valid CSS selector" in body["error"]


def test_upload_element_that_is_not_a_file_input_is_400(service, page, upload_file):
    p = page("/act/upload.html")
    status, body = post(
        service,
        "/hooks/file-chooser",
        {"paths": [upload_file.name], "element": "#pick", "targetId": p.id},
    )
    assert (status, body["code"]) == (400, "ACT_INVALID_REQUEST"), body
    assert "<button>" in body["error"] and "input type=file" in body["error"]
    assert p.text("chosen") == ""


@pytest.mark.parametrize("other", ["inputRef", "ref"])
def test_upload_element_with_a_ref_too_is_400(service, page, upload_file, other):
    p = page("/act/upload.html")
    ref = p.ref("button", "Document" if other == "inputRef" else "Choose file")
    status, body = post(
        service,
        "/hooks/file-chooser",
        {"paths": [upload_file.name], "element": "#file", other: ref, "targetId": p.id},
    )
    assert (status, body["code"]) == (400, "ACT_INVALID_REQUEST"), body
    assert "element" in body["error"] and other in body["error"]
    assert p.text("chosen") == ""


# -- trace snapshots and sources ------------------------------------------------------------------
SNAPSHOT_EVENTS = {"LayerTreeHostImpl:snapshot", "cc::DisplayItemList:snapshot"}
SOURCE_MARKER = "clawd-traced-source-marker:"  # text of tests/site/compat/traced.js


def exercise(p: Page) -> None:
    """While a trace records: the page compiles traced.js, then changes and draws a box again."""
    assert p.value("loadTraced()") == "clawd-traced-source-marker:42"
    p.act("click", ref=p.ref("button", "Move"))
    assert p.value("drawn()") is True


def traced(client, p: Page, **options) -> tuple[dict, str, list[dict]]:
    """Record the page loading traced.js and repainting, with these trace options; the start answer,
    the saved file's text and its events."""
    started = client.trace_start(target_id=p.id, **options)
    exercise(p)
    stopped = client.trace_stop(target_id=p.id)
    text = pathlib.Path(stopped["path"]).read_text()
    trace = json.loads(text)
    return started, text, trace["traceEvents"] if isinstance(trace, dict) else trace


def snapshot_events(events: list[dict]) -> list[dict]:
    # Chromium 156 writes these as instant events ("ph": "I") named "<object>:snapshot"; older
    # ones as "ph": "O" object snapshots. Either way the snapshot itself is in args.snapshot.
    return [
        e
        for e in events
        if e.get("ph") in ("O", "I")
        and e.get("name") in SNAPSHOT_EVENTS
        and isinstance((e.get("args") or {}).get("snapshot"), dict)
    ]


def test_trace_snapshots_records_layer_trees_and_paint_pictures(client, page):
    p = page("/compat/traced.html")
    started, _, events = traced(client, p, snapshots=True)
    assert started["snapshots"] is True and started["sources"] is False
    found = snapshot_events(events)
    names = {e["name"] for e in found}
    assert names == SNAPSHOT_EVENTS, f"snapshot events in the trace: {sorted(names)}"
    layers = next(e for e in found if e["name"] == "LayerTreeHostImpl:snapshot")["args"]["snapshot"]
    picture = next(e for e in found if e["name"] == "cc::DisplayItemList:snapshot")["args"][
        "snapshot"
    ]
    assert "active_tree" in layers and "skp64" in picture, (sorted(layers), sorted(picture))


def test_trace_sources_carries_the_text_of_the_page_scripts(client, page):
    p = page("/compat/traced.html")
    started, text, events = traced(client, p, sources=True)
    assert started["sources"] is True and started["snapshots"] is False
    assert SOURCE_MARKER in text, "the text of traced.js is not in the trace"
    assert "function loadTraced()" in text, (
        "the page's inline script (compiled before the trace) is not in it"
    )
    rundown = {e.get("name") for e in events if "v8-source-rundown" in (e.get("cat") or "")}
    assert rundown, "no v8-source-rundown events"


def test_trace_without_the_flags_has_neither_snapshots_nor_sources(client, page):
    p = page("/compat/traced.html")
    started, text, events = traced(client, p)
    assert (started["snapshots"], started["sources"]) == (False, False)
    assert snapshot_events(events) == [] and SOURCE_MARKER not in text


def test_cli_trace_start_with_snapshots_and_sources(service, client, page):
    p = page("/compat/traced.html")
    ran = cli_of(service, "--json", "trace", "start", "--snapshots", "--sources", "--target", p.id)
    assert ran.status == 0
    started = json.loads(ran.out)
    assert (started["snapshots"], started["sources"]) == (True, True), started
    exercise(p)
    stopped = cli_of(service, "trace", "stop", "--target", p.id, "--path", "compat-cli.json")
    assert stopped.status == 0
    text = pathlib.Path(stopped.out.strip()).read_text()
    trace = json.loads(text)
    names = {
        e["name"]
        for e in snapshot_events(trace["traceEvents"] if isinstance(trace, dict) else trace)
    }
    assert SOURCE_MARKER in text, "the text of traced.js is not in the trace"
    assert names == SNAPSHOT_EVENTS, f"snapshot events in the trace: {sorted(names)}"


# -- snapshot refs=role|aria ----------------------------------------------------------------------
def nth_ref(refs: dict, role: str, name: str, nth: int = 0) -> str:
    found = [
        ref
        for ref, info in refs.items()
        if (info["role"], info["name"], info.get("nth", 0)) == (role, name, nth)
    ]
    assert len(found) == 1, f"no single {role} {name!r} nth={nth} in {refs}"
    return found[0]


def rerendered(p: Page, names: list[str] | None = None) -> None:
    """Replace the page's buttons with new elements (same labels unless `names`)."""
    generation = p.value(f"render({json.dumps(names) if names else ''})")
    assert generation >= 2


@pytest.mark.parametrize("nth, index", [(0, 0), (1, 1)])
def test_role_ref_lands_on_the_element_a_rerender_put_in_its_place(client, page, nth, index):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    save = nth_ref(refs, "button", "Save", nth)
    rerendered(p)
    result = p.act("click", ref=save)
    assert result["ok"] is True
    assert p.text("log") == f"clicked Save #{index} of render 2"


def test_role_ref_that_still_has_its_element_acts_on_it(client, page):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    p.act("click", ref=nth_ref(refs, "button", "Publish"))
    assert p.text("log") == "clicked Publish #2 of render 1"


def test_finding_a_role_ref_again_leaves_the_other_refs_as_they_were(client, page):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    rerendered(p)
    p.act("click", ref=nth_ref(refs, "button", "Publish"))
    assert p.text("log") == "clicked Publish #2 of render 2"
    p.act("click", ref=nth_ref(refs, "button", "Stay"))
    assert p.text("log") == "clicked Stay"
    p.act("click", ref=nth_ref(refs, "button", "Save", 1))  # found again, a second time
    assert p.text("log") == "clicked Save #1 of render 2"


@pytest.mark.parametrize("refs_mode", ["aria", None])
def test_aria_refs_of_a_rerendered_element_are_stale(client, page, refs_mode):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs=refs_mode)["refs"]
    save = nth_ref(refs, "button", "Save")
    rerendered(p)
    with pytest.raises(errors.RefStale) as caught:
        p.act("click", ref=save)
    assert caught.value.http_status == 409 and "take a new snapshot" in caught.value.message
    assert p.text("log") == "nothing clicked"


def test_role_ref_without_an_element_of_its_role_and_name_is_stale(client, page):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    rerendered(p, ["Saved", "Saved", "Publish"])
    with pytest.raises(errors.RefStale) as caught:
        p.act("click", ref=nth_ref(refs, "button", "Save"))
    assert "button 'Save'" in caught.value.message, caught.value.message
    assert p.text("log") == "nothing clicked"


def test_role_ref_with_fewer_equals_than_its_nth_is_stale(client, page):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    rerendered(p, ["Save", "Publish"])
    with pytest.raises(errors.RefStale):
        p.act("click", ref=nth_ref(refs, "button", "Save", 1))
    assert p.text("log") == "nothing clicked"


def test_role_refs_do_not_reach_into_a_new_document(client, site, page):
    p = page("/compat/rerender.html")
    refs = client.snapshot(target_id=p.id, refs="role")["refs"]
    client.navigate(site.url("/compat/rerender.html?again"), target_id=p.id)
    with pytest.raises(errors.RefStale):
        p.act("click", ref=nth_ref(refs, "button", "Publish"))
    assert p.text("log") == "nothing clicked"


def test_the_ref_mode_is_the_latest_snapshots(client, page):
    p = page("/compat/rerender.html")
    client.snapshot(target_id=p.id, refs="role")
    refs = client.snapshot(target_id=p.id)["refs"]  # the default (aria) replaces the role refs
    rerendered(p)
    with pytest.raises(errors.RefStale):
        p.act("click", ref=nth_ref(refs, "button", "Save"))


def test_snapshot_refs_false_still_prints_no_refs(client, page):
    p = page("/compat/rerender.html")
    snap = client.snapshot(target_id=p.id, refs=False)
    assert snap["refs"] == {} and "[ref=" not in snap["snapshot"], snap["snapshot"]
    assert '- button "Publish"' in snap["snapshot"]


@pytest.mark.parametrize("value", ["roles", "ARIA-ish", "2", "e12"])
def test_snapshot_refs_of_another_value_is_400_naming_refs(service, page, value):
    p = page("/compat/rerender.html")
    status, body = get(service, "/snapshot", {"refs": value, "targetId": p.id})
    assert (status, body["code"]) == (400, "INVALID_REQUEST"), body
    assert "refs" in body["error"] and "role" in body["error"], body


def test_cli_snapshot_refs_role(service, page):
    p = page("/compat/rerender.html")
    ran = cli_of(service, "--json", "snapshot", "--refs", "role", "--target", p.id)
    assert ran.status == 0
    save = nth_ref(json.loads(ran.out)["refs"], "button", "Save", 1)
    rerendered(p)
    assert cli_of(service, "click", save, "--target", p.id).status == 0
    assert p.text("log") == "clicked Save #1 of render 2"


# -- bare numeric refs ----------------------------------------------------------------------------
@pytest.mark.parametrize("spelling", ["{n}", "@{n}", "ref={n}", "[ref={n}]"])
def test_a_bare_number_is_the_e_ref(client, page, spelling):
    p = page("/compat/rerender.html")
    ref = nth_ref(client.snapshot(target_id=p.id)["refs"], "button", "Publish")
    p.act("click", ref=spelling.format(n=ref.removeprefix("e")))
    assert p.text("log") == "clicked Publish #2 of render 1"


def test_bare_numbers_work_wherever_refs_are_accepted(service, client, page, upload_file):
    p = page("/act/upload.html")
    refs = client.snapshot(target_id=p.id)["refs"]
    number = {
        name: nth_ref(refs, "button", name).removeprefix("e")
        for name in ("Document", "Many", "Choose file")
    }
    client.file_chooser([upload_file.name], ref=number["Choose file"], target_id=p.id)
    assert p.text("chosen") == "chosen compat-report.txt:13"
    client.file_chooser([upload_file.name], input_ref=number["Many"], target_id=p.id)
    assert p.text("chosen") == "chosen compat-report.txt"
    assert (
        client.evaluate("(el) => el.id", ref=number["Document"], target_id=p.id)["result"] == "file"
    )
    shot = client.screenshot(target_id=p.id, ref=number["Choose file"])
    assert 0 < shot["width"] < 400, shot
    assert client.highlight(number["Choose file"], target_id=p.id)["ok"] is True


def test_bare_numbers_in_drag_and_fill(client, page):
    p = page("/act/drag.html")
    refs = client.snapshot(target_id=p.id)["refs"]
    card, zone = nth_ref(refs, "button", "Card"), nth_ref(refs, "region", "Drop zone")
    p.act("drag", start_ref=card.removeprefix("e"), end_ref=zone.removeprefix("e"))
    assert p.text("target") == "dropped card-1"
    p = page("/act/forms.html")
    name = nth_ref(client.snapshot(target_id=p.id)["refs"], "textbox", "Name")
    result = p.act("fill", fields=[{"ref": name.removeprefix("e"), "value": "numeric"}])
    assert result["filled"] == [name.removeprefix("e")]
    assert p.value("document.getElementById('name').value") == "numeric"


def test_a_bare_number_never_minted_is_404_ref_unknown(service, page):
    p = page("/compat/rerender.html")
    p.snapshot()
    status, body = post(service, "/act", {"kind": "click", "ref": "99999", "targetId": p.id})
    assert (status, body["code"]) == (404, "REF_UNKNOWN"), body
    assert "e99999" in body["error"]


def test_snapshot_frame_takes_a_bare_number(client, page):
    p = page("/snapshot/frames.html")
    iframe = next(
        ref
        for ref, info in client.snapshot(target_id=p.id)["refs"].items()
        if info["role"] == "iframe"
    )
    inner = client.snapshot(target_id=p.id, frame=iframe.removeprefix("e"))["snapshot"]
    assert 'button "Inside"' in inner and "Top" not in inner, inner


def test_a_number_sign_selector_is_still_refused_as_css(service, page):
    p = page("/compat/rerender.html")
    status, body = post(service, "/act", {"kind": "click", "ref": "#12", "targetId": p.id})
    assert (status, body["code"]) == (400, "ACT_SELECTOR_UNSUPPORTED"), body
