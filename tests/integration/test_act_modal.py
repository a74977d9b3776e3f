"""Modal state around actions: dialogs that never hang an action, popups as tabs, file choosers
and uploads confined to $CLAWD_HOME/uploads, downloads into $CLAWD_HOME/downloads, permissions."""

from __future__ import annotations

import os
import time

import pytest

from clawd import errors
from tests.support.act import opened_pages
from tests.support.site import answer


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site, answer_dialogs=True)


# -- dialogs --------------------------------------------------------------------------------------
def test_alert_returns_promptly_pending_and_blocks_other_actions(client, page):
    p = page("/act/dialogs.html")
    started = time.monotonic()
    result = p.act("click", ref=p.ref("button", "Alert"))
    assert time.monotonic() - started < 3
    assert result["blockedByDialog"] is True
    (dialog,) = result["dialogs"]["pending"]
    assert dialog["type"] == "alert" and dialog["message"] == "Hello alert" and dialog["dialogId"]
    with pytest.raises(errors.ActBlockedByDialog) as caught:
        p.act("click", ref=p.ref("button", "Confirm"))
    assert (
        caught.value.http_status == 409
        and caught.value.details["dialog"]["dialogId"] == dialog["dialogId"]
    )
    answered = client.dialog(True, dialog_id=dialog["dialogId"], target_id=p.id)
    assert (
        answered["answered"]["dialogId"] == dialog["dialogId"]
        and answered["dialogs"]["pending"] == []
    )
    assert p.text("out") == "alert done"


def test_confirm_dismissed_and_prompt_answered(client, page):
    p = page("/act/dialogs.html")
    result = p.act("click", ref=p.ref("button", "Confirm"))
    assert result["dialogs"]["pending"][0]["type"] == "confirm"
    client.dialog(False, target_id=p.id)
    assert p.text("out") == "confirm false"
    result = p.act("click", ref=p.ref("button", "Prompt"))
    pending = result["dialogs"]["pending"][0]
    assert (pending["type"], pending["message"], pending["defaultPrompt"]) == (
        "prompt",
        "Your name?",
        "anon",
    )
    client.dialog(True, prompt_text="Bob", target_id=p.id)
    assert p.text("out") == "prompt Bob"


def test_armed_answer_handles_the_next_dialog(client, page):
    p = page("/act/dialogs.html")
    armed = client.dialog(True, prompt_text="Zed", target_id=p.id)
    assert armed["armed"] == {"accept": True, "promptText": "Zed"}
    result = p.act("click", ref=p.ref("button", "Prompt"))
    assert result["dialogs"]["pending"] == [] and "blockedByDialog" not in result
    assert result["dialogs"]["handled"][0]["type"] == "prompt"
    assert p.text("out") == "prompt Zed"


def test_dialog_opened_after_an_action_blocks_the_next_one(client, page):
    p = page("/act/dialogs.html")
    p.act("click", ref=p.ref("button", "Later"))
    deadline = time.monotonic() + 5
    while True:
        try:
            p.act("wait", time_ms=20)
        except errors.ActBlockedByDialog as exc:
            assert exc.details["dialog"]["message"] == "Later alert"
            break
        assert time.monotonic() < deadline, "the late alert never showed"
    client.dialog(True, target_id=p.id)
    assert p.act("wait", time_ms=0)["dialogs"]["pending"] == []


def test_beforeunload_is_pending_until_answered(client, page, site):
    p = page("/act/dialogs.html")
    p.act("click", ref=p.ref("button", "Arm unload"))
    result = p.act("click", ref=p.ref("link", "Leave"))
    assert result["dialogs"]["pending"][0]["type"] == "beforeunload"
    client.dialog(True, target_id=p.id)
    # the page leaves now: wait for the new one the way an agent would (an evaluate polled
    # meanwhile may meet the navigation: 409 TAB_LOADING, tests/integration/test_act.py)
    p.act("wait", url="**/forms.html", timeout_ms=5000)
    assert p.value("location.pathname").endswith("forms.html")


def test_unknown_dialog_id_is_404(client, page):
    p = page("/act/dialogs.html")
    p.act("click", ref=p.ref("button", "Alert"))
    with pytest.raises(errors.DialogNotFound):
        client.dialog(True, dialog_id="d999999", target_id=p.id)
    client.dialog(True, target_id=p.id)


# -- popups ---------------------------------------------------------------------------------------
def test_window_open_becomes_a_tab_in_opened_tabs(client, page):
    p = page("/act/popup.html")
    result = p.act("click", ref=p.ref("button", "Open popup"))
    (popup,) = result["openedTabs"]
    assert popup["tabId"].startswith("t") and popup["tabId"] != p.id
    assert popup["tabId"] in [t["tabId"] for t in client.tabs()["tabs"]]
    assert (
        client.evaluate("() => location.pathname", target_id=popup["tabId"])["result"]
        == "/act/forms.html"
    )
    client.close_tab(popup["tabId"])


def test_target_blank_link_becomes_a_tab_in_opened_tabs(client, page):
    p = page("/act/popup.html")
    result = p.act("click", ref=p.ref("link", "New tab link"))
    (blank,) = result["openedTabs"]
    deadline = time.monotonic() + 5
    while not client.evaluate("() => location.pathname", target_id=blank["tabId"])[
        "result"
    ].endswith("dialogs.html"):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    client.close_tab(blank["tabId"])


# -- uploads --------------------------------------------------------------------------------------
@pytest.fixture
def upload_file(service):
    uploads = service.service.layout.uploads
    path = uploads / "report.txt"
    path.write_text("hello upload")
    return path


def test_upload_with_input_ref_sets_the_files(client, page, upload_file):
    p = page("/act/upload.html")
    result = client.file_chooser(
        [upload_file.name], input_ref=p.ref("button", "Document"), target_id=p.id
    )
    assert result["files"] == [str(upload_file)]
    assert p.text("chosen") == "chosen report.txt:12"


def test_upload_with_ref_clicks_and_satisfies_the_chooser(client, page, upload_file):
    p = page("/act/upload.html")
    result = client.file_chooser(
        [str(upload_file)], ref=p.ref("button", "Choose file"), target_id=p.id
    )
    assert result["ok"] is True and result["url"].endswith("/act/upload.html")
    assert p.text("chosen") == "chosen report.txt:12"


def test_upload_without_ref_arms_the_next_chooser(client, page, upload_file):
    p = page("/act/upload.html")
    assert client.file_chooser([upload_file.name], target_id=p.id)["armed"] is True
    p.act("click", ref=p.ref("button", "Choose file"))
    assert p.text("chosen") == "chosen report.txt:12"


def test_upload_satisfies_a_chooser_that_is_already_open(client, page, upload_file):
    p = page("/act/upload.html")
    p.act("click", ref=p.ref("button", "Choose file"))
    result = client.file_chooser([upload_file.name], target_id=p.id)
    assert result["set"] == "pending chooser"
    assert p.text("chosen") == "chosen report.txt:12"


@pytest.mark.parametrize("bad", ["../outside.txt", "/etc/passwd", "missing.txt", "link.txt", "."])
def test_upload_paths_outside_uploads_are_400_invalid_path(
    client, page, upload_file, bad, tmp_path
):
    link = upload_file.parent / "link.txt"
    if not os.path.lexists(link):
        outside = tmp_path / "secret.txt"
        outside.write_text("secret")
        link.symlink_to(outside)
    p = page("/act/upload.html")
    with pytest.raises(errors.InvalidPath):
        client.file_chooser([bad], input_ref=p.ref("button", "Document"), target_id=p.id)


# -- downloads ------------------------------------------------------------------------------------
@pytest.fixture
def download_site(site):
    payload = bytes(range(256)) * 400
    site.route(
        "/act/file.bin",
        lambda h: answer(
            h,
            body=payload,
            content_type="application/octet-stream",
            headers={"Content-Disposition": 'attachment; filename="report 2024.bin"'},
        ),
    )

    def slow(h):
        h.send_response(200)
        h.send_header("Content-Type", "application/octet-stream")
        h.send_header("Content-Disposition", 'attachment; filename="slow.bin"')
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload[:1000])
        h.wfile.flush()
        time.sleep(0.5)
        h.wfile.write(payload[1000:])

    site.route("/act/slow.bin", slow)
    return payload


def test_download_by_ref_saves_the_whole_file_under_downloads(client, service, page, download_site):
    p = page("/act/download.html")
    result = client.download(p.ref("link", "Get report"), target_id=p.id)
    item = result["download"]
    downloads = service.service.layout.downloads
    assert item["suggestedFilename"] == "report 2024.bin"
    assert os.path.dirname(item["path"]) == str(downloads)
    assert item["bytes"] == len(download_site)
    with open(item["path"], "rb") as fh:
        assert fh.read() == download_site
    again = client.download(p.ref("link", "Get report"), target_id=p.id)["download"]
    assert again["path"] != item["path"] and os.path.exists(item["path"])  # never overwritten


def test_download_names_are_sanitized_and_path_is_honoured(client, service, page, download_site):
    p = page("/act/download.html")
    item = client.download(p.ref("link", "Get notes"), target_id=p.id)["download"]
    name = os.path.basename(item["path"])
    assert os.path.dirname(item["path"]) == str(service.service.layout.downloads)
    assert not name.startswith(".") and "\\" not in name and name.endswith("me.txt")
    named = client.download(p.ref("link", "Get notes"), path="notes-copy.txt", target_id=p.id)[
        "download"
    ]
    assert os.path.basename(named["path"]).startswith("notes-copy")
    with open(named["path"]) as fh:
        assert fh.read() == "plain notes\n"


def test_a_download_takes_its_suggested_or_given_name_when_that_name_is_free(
    client, service, page, download_site
):
    downloads = service.service.layout.downloads
    p = page("/act/download.html")
    for given in (None, "report 2024.bin", "given-name.bin"):
        expected = given or "report 2024.bin"
        (downloads / expected).unlink(missing_ok=True)
        item = client.download(p.ref("link", "Get report"), path=given, target_id=p.id)["download"]
        assert item["path"] == str(downloads / expected), given
        assert os.path.getsize(item["path"]) == len(download_site)
        os.unlink(item["path"])


def test_wait_download_reports_a_slow_download_once_complete(client, page, download_site):
    p = page("/act/download.html")
    p.act("click", ref=p.ref("link", "Get slow"))
    item = client.wait_download(timeout_ms=10000, target_id=p.id)["download"]
    assert item["bytes"] == len(download_site) and os.path.getsize(item["path"]) == len(
        download_site
    )


def test_wait_download_times_out_with_408(client, page):
    p = page("/act/download.html")
    with pytest.raises(errors.DownloadTimeout):
        client.wait_download(timeout_ms=300, target_id=p.id)


def test_navigation_that_becomes_a_download_keeps_the_tab(client, page, site, download_site):
    p = page("/act/download.html")
    client.navigate(site.url("/act/file.bin"), target_id=p.id)
    item = client.wait_download(timeout_ms=10000, target_id=p.id)["download"]
    assert item["bytes"] == len(download_site)
    assert p.act("evaluate", fn="() => 1 + 1")["result"] == 2


def test_act_response_reports_downloads_it_caused(client, page, download_site):
    p = page("/act/download.html")
    result = p.act("click", ref=p.ref("link", "Get report"))
    found = result.get("downloads") or [
        client.wait_download(timeout_ms=10000, target_id=p.id)["download"]
    ]
    assert found[0]["suggestedFilename"] == "report 2024.bin"


# -- permissions ----------------------------------------------------------------------------------
def test_grant_permissions_for_an_origin(client, page, site):
    p = page("/act/forms.html")
    origin = site.url("").rstrip("/")
    client.grant_permissions(origin, ["geolocation"])
    state = client.evaluate(
        "async () => (await navigator.permissions.query({name: 'geolocation'})).state",
        target_id=p.id,
    )["result"]
    assert state == "granted"
    with pytest.raises(errors.InvalidRequest):
        client.grant_permissions(origin, ["noSuchPermission"])
