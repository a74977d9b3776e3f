"""The `browser` tool against the real service and Chromium: every action, as the text a model
reads (always wrapped as untrusted content), images within 1568 px, errors as text with codes."""

from __future__ import annotations

import re
import struct

import pytest

from clawd.agent.tool import MAX_IMAGE_SIDE, MAX_SNAPSHOT_CHARS, BrowserTool
from clawd.security.content import END, START
from tests.support.browser import service_config
from tests.support.service import RunningService
from tests.support.site import answer


@pytest.fixture
def tool(service, client):
    return BrowserTool(service.client())


@pytest.fixture
def opened(tool, client, site):
    """Open a site page through the tool; every tab it opened is closed afterwards."""
    tab_ids = []

    def open_page(path: str, **extra) -> str:
        result = tool.run({"action": "open", "url": site.url(path), **extra})
        assert not result.is_error, result.text
        tab_ids.append(re.search(r"opened (t\d+)", result.text)[1])
        return tab_ids[-1]

    yield open_page
    for tab_id in tab_ids:
        try:
            client.close_tab(tab_id)
        except Exception:
            pass


def body(result) -> str:
    """The text between the markers, after checking it is wrapped exactly once."""
    match = re.fullmatch(
        rf'<<<{START} id="([0-9a-f]+)">>>\n(.*)\n<<<{END} id="\1">>>', result.text, re.DOTALL
    )
    assert match, f"not wrapped: {result.text[:200]!r}"
    assert START not in match[2]
    return match[2]


def ref_of(snapshot_text: str, line: str) -> str:
    return re.search(re.escape(line) + r" \[ref=(e\d+)\]", snapshot_text)[1]


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_open_snapshot_click_snapshot_reads_the_changed_page(tool, opened):
    tab_id = opened("/act/forms.html", label="agent-forms")
    first = body(tool.run({"action": "snapshot", "targetId": "agent-forms"}))
    assert first.splitlines()[0].startswith(f"{tab_id} http://127.0.0.1:")
    assert '"clicks: 0"' in first and '{"' not in first  # aria text, not JSON
    clicked = tool.run(
        {
            "action": "act",
            "kind": "click",
            "ref": ref_of(first, 'button "Count"'),
            "targetId": tab_id,
        }
    )
    assert not clicked.is_error and body(clicked).startswith(f"{tab_id} http://127.0.0.1:")
    assert '"clicks: 1"' in body(tool.run({"action": "snapshot", "targetId": tab_id}))


def test_act_kinds_with_camel_case_fields_reach_the_page(tool, opened):
    tab_id = opened("/act/forms.html")
    snap = body(tool.run({"action": "snapshot", "targetId": tab_id}))
    typed = tool.run(
        {
            "action": "act",
            "kind": "type",
            "ref": ref_of(snap, 'textbox "Name"'),
            "text": "Ada",
            "targetId": tab_id,
        }
    )
    assert not typed.is_error, typed.text
    double = tool.run(
        {
            "action": "act",
            "kind": "click",
            "ref": ref_of(snap, 'button "Double me"'),
            "doubleClick": True,
            "targetId": tab_id,
        }
    )
    assert not double.is_error, double.text
    value = tool.run(
        {
            "action": "act",
            "kind": "evaluate",
            "targetId": tab_id,
            "fn": "() => document.querySelector('input').value",
        }
    )
    assert "result: Ada" in body(value)


def test_efficient_mode_lists_interactive_lines_only(tool, opened):
    tab_id = opened("/act/forms.html")
    lines = body(
        tool.run({"action": "snapshot", "targetId": tab_id, "mode": "efficient"})
    ).splitlines()[1:]
    assert '- button "Count" [ref=e' in "\n".join(lines)
    assert lines and all(line.startswith("- ") and " [ref=e" in line for line in lines)


def test_snapshot_text_is_capped_at_80000_characters_on_a_whole_line(tool, opened, site):
    items = "".join(f"<li>item number {i:05d} of a long list</li>" for i in range(4000))
    site.route("/agent/huge.html", lambda h: answer(h, body=f"<title>Huge</title><ul>{items}</ul>"))
    tab_id = opened("/agent/huge.html")
    text = body(tool.run({"action": "snapshot", "targetId": tab_id})).split("\n", 1)[1]
    assert len(text) <= MAX_SNAPSHOT_CHARS
    assert text.endswith("\n\n[...TRUNCATED - page too large]")
    assert re.fullmatch(
        r"  - listitem \[ref=e\d+\]: item number \d{5} of a long list", text.splitlines()[-3]
    )
    small = body(tool.run({"action": "snapshot", "targetId": tab_id, "maxChars": 300})).split(
        "\n", 1
    )[1]
    assert len(small) <= 300 and small.endswith("[...TRUNCATED - page too large]")
    over = tool.run({"action": "snapshot", "targetId": tab_id, "maxChars": 80_001})
    assert over.is_error and "INVALID_REQUEST" in over.text


def test_snapshot_follows_the_services_snapshot_defaults_mode(tmp_path_factory, site):
    config = service_config(
        tmp_path_factory.mktemp("efficient-home"),
        extra={"browser": {"snapshotDefaults": {"mode": "efficient"}}},
    )
    # the extra's "browser" replaces service_config's browser keys it names, nothing else
    running = RunningService(config)
    try:
        tool = BrowserTool(running.client())
        tool.run({"action": "open", "url": site.url("/act/forms.html")})
        default = body(tool.run({"action": "snapshot"}))
        full = body(tool.run({"action": "snapshot", "mode": "full"}))
    finally:
        running.close()
    assert "- paragraph" not in default and '- button "Count"' in default  # interactive lines only
    assert '- paragraph [ref=e' in full and '- heading "Forms" [level=1]' in full


def test_screenshots_are_images_scaled_to_at_most_1568_px(tool, opened, client):
    tab_id = opened("/long.html")
    full = tool.run({"action": "screenshot", "targetId": tab_id, "fullPage": True})
    assert full.image.mime_type == "image/png"
    width, height = png_size(full.image.data)
    assert height == MAX_IMAGE_SIDE and width < height
    assert f"({width}x{height} png)" in body(full)
    client.set_viewport(1000, 800, device_scale_factor=2, target_id=tab_id)  # 2000x1600 device px
    retina = tool.run({"action": "screenshot", "targetId": tab_id})
    assert max(png_size(retina.image.data)) <= MAX_IMAGE_SIDE
    jpeg = tool.run({"action": "screenshot", "targetId": tab_id, "type": "jpeg"})
    assert jpeg.image.mime_type == "image/jpeg" and jpeg.image.data[:2] == b"\xff\xd8"
    # the size read from the JPEG's own header is the PNG's of the same viewport
    assert f"({'x'.join(map(str, png_size(retina.image.data)))} jpeg)" in body(jpeg)


def test_post_screenshot_max_side_holds_under_an_emulated_device_pixel_ratio(client, site):
    tab = client.open(site.url("/long.html"))
    try:
        client.set_viewport(1000, 800, device_scale_factor=2, target_id=tab["tabId"])
        default = client.screenshot(target_id=tab["tabId"], full_page=True)  # 3700 css px tall, x2
        small = client.request(
            "POST", "/screenshot", json={"targetId": tab["tabId"], "maxSide": 300}
        )
    finally:
        client.close_tab(tab["tabId"])
    assert 1990 <= default["height"] <= 2000  # not 4000: the ratio is undone by a second capture
    assert png_size(open(default["path"], "rb").read(24)) == (default["width"], default["height"])
    assert 295 <= max(small["width"], small["height"]) <= 300
    assert png_size(open(small["path"], "rb").read(24)) == (small["width"], small["height"])


def test_screenshot_describe_without_vision_falls_back_to_the_image_with_a_note(tool, opened):
    tab_id = opened("/index.html")
    result = tool.run({"action": "screenshot", "targetId": tab_id, "describe": True})
    assert result.image is not None and not result.is_error
    assert "note: could not describe the screenshot (browser.vision is not enabled" in body(result)


def test_tabs_focus_navigate_close(tool, opened, site):
    first = opened("/index.html", label="agent-one")
    second = opened("/act/forms.html")
    listing = body(tool.run({"action": "tabs"}))
    assert re.search(rf'^  {first} \[agent-one\] "clawd test site" http://', listing, re.M)
    assert re.search(rf"^\* {second} ", listing, re.M)
    assert body(tool.run({"action": "focus", "targetId": "agent-one"})).startswith(
        f"focused {first} [agent-one]"
    )
    moved = body(tool.run({"action": "navigate", "url": site.url("/act/dialogs.html")}))
    assert moved == f'{first} {site.url("/act/dialogs.html")} "Dialogs"'  # the focused tab moved
    assert body(tool.run({"action": "close", "targetId": second})) == f"closed {second}"
    assert second not in body(tool.run({"action": "tabs"}))


def test_status_profiles_console_pdf(tool, opened, client):
    tab_id = opened("/debug/console.html")
    status = body(tool.run({"action": "status"}))
    assert re.fullmatch(
        r"profile clawd \(managed\): running, \d+ tabs?, headless, cdp http://127\.0\.0\.1:\d+",
        status,
    )
    assert re.fullmatch(
        r"clawd \(managed\): running, \d+ tabs?, default, also named openclaw\n"
        r"user \(existing-session\): stopped, built in: your own browser",
        body(tool.run({"action": "profiles"})),
    )
    console = body(tool.run({"action": "console", "targetId": tab_id, "level": "warning"}))
    assert "[warning] warning line" in console and "[error] error line" in console
    assert "log line" not in console
    pdf = body(tool.run({"action": "pdf", "targetId": tab_id}))
    path = re.search(r"machine: (\S+\.pdf) \(\d+ bytes\)", pdf)[1]
    assert open(path, "rb").read(5) == b"%PDF-"


def test_dialogs_are_reported_pending_and_answered_with_the_dialog_action(tool, opened):
    tab_id = opened("/act/dialogs.html")
    snap = body(tool.run({"action": "snapshot", "targetId": tab_id}))
    clicked = body(
        tool.run(
            {
                "action": "act",
                "kind": "click",
                "ref": ref_of(snap, 'button "Confirm"'),
                "targetId": tab_id,
            }
        )
    )
    assert 'pending dialog' in clicked and '(confirm): "Are you sure?"' in clicked
    assert "answer it with action=dialog" in clicked
    answered = body(tool.run({"action": "dialog", "accept": True, "targetId": tab_id}))
    assert answered.startswith("dialog accepted")
    assert ": confirm true" in body(tool.run({"action": "snapshot", "targetId": tab_id}))


def test_upload_sets_files_from_the_uploads_directory(tool, opened, service):
    uploads = service.service.layout.uploads
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / "agent-note.txt").write_text("hello")
    tab_id = opened("/act/upload.html")
    snap = body(tool.run({"action": "snapshot", "targetId": tab_id}))
    done = tool.run(
        {
            "action": "upload",
            "paths": ["agent-note.txt"],
            "targetId": tab_id,
            "inputRef": ref_of(snap, 'button "Document"'),
        }
    )
    assert not done.is_error, done.text
    assert "files set (input)" in body(done)
    assert "chosen agent-note.txt:5" in body(tool.run({"action": "snapshot", "targetId": tab_id}))
    outside = tool.run(
        {
            "action": "upload",
            "paths": ["/etc/passwd"],
            "targetId": tab_id,
            "inputRef": ref_of(snap, 'button "Document"'),
        }
    )
    assert outside.is_error and "error INVALID_PATH" in outside.text


def test_service_errors_are_text_with_the_code_never_exceptions(tool, opened):
    tab_id = opened("/index.html")
    unknown = tool.run({"action": "act", "kind": "click", "ref": "e4242", "targetId": tab_id})
    assert unknown.is_error and unknown.code == "REF_UNKNOWN"
    assert body(unknown).startswith("error REF_UNKNOWN: ")
    missing = tool.run({"action": "focus", "targetId": "t99999"})
    assert missing.is_error and "error TAB_NOT_FOUND" in body(missing)
    blocked = tool.run({"action": "navigate", "url": "file:///etc/passwd", "targetId": tab_id})
    assert blocked.is_error and "error NAVIGATION_BLOCKED" in body(blocked)
