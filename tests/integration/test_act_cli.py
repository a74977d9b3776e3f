"""The act commands of the CLI, in-process against the running service."""

from __future__ import annotations

import functools
import json

import pytest

from tests.support.act import Page
from tests.support.cli import cli_of


@pytest.fixture
def cli(service):
    return functools.partial(cli_of, service)


@pytest.fixture
def forms(service, client, site):
    p = Page(client, client.open(site.url("/act/forms.html")))
    yield p
    p.close()


def test_cli_click_type_press_and_evaluate(cli, forms):
    t = forms.id
    code, out, _ = cli("click", forms.ref("button", "Count"), "--target", t)
    assert code == 0 and f"{t} " in out and "/act/forms.html" in out
    assert cli("type", forms.ref("textbox", "Name"), "Ada", "--submit", "--target", t)[0] == 0
    assert cli("press", "Control+A", "--target", t)[0] == 0
    code, out, _ = cli(
        "evaluate", "() => document.getElementById('submitted').textContent", "--target", t
    )
    assert code == 0 and out.strip().strip('"') == "submitted Ada"
    code, out, _ = cli("--json", "evaluate", "() => window.count", "--target", t)
    assert json.loads(out)["result"] == 1


def test_cli_fill_select_wait_and_hover(cli, forms):
    t = forms.id
    code, _, err = cli("fill", f"{forms.ref('textbox', 'Name')}=Grace", "--target", t)
    assert code == 0, err
    fields = json.dumps([{"ref": forms.ref("checkbox", "Agree"), "value": True}])
    assert cli("fill", "--fields-json", fields, "--target", t)[0] == 0
    assert cli("select", forms.ref("listbox", "Tags"), "x", "Yankee", "--target", t)[0] == 0
    assert cli("hover", forms.ref("button", "Hover target"), "--target", t)[0] == 0
    assert cli("wait", "--text", "hovered", "--timeout-ms", "2000", "--target", t)[0] == 0
    assert forms.value(
        "[document.getElementById('name').value, document.getElementById('agree').checked,"
        " Array.from(document.getElementById('tags').selectedOptions).map(o => o.value)]"
    ) == ["Grace", True, ["x", "y"]]


def test_cli_exit_statuses_for_act_errors(cli, forms):
    t = forms.id
    code, _, err = cli("click", forms.ref("button", "Off"), "--target", t)
    assert code == 1 and "disabled" in err
    code, _, err = cli("click", "e99999", "--target", t)
    assert code == 4
    code, _, err = cli("wait", "--text", "never", "--timeout-ms", "500", "--target", t)
    assert code == 5


def test_cli_dialog_upload_and_download(cli, service, client, site):
    p = Page(client, client.open(site.url("/act/dialogs.html")))
    try:
        code, out, _ = cli("click", p.ref("button", "Prompt"), "--target", p.id)
        assert code == 0 and "prompt" in out.lower()
        assert cli("dialog", "--accept", "--prompt-text", "Cli", "--target", p.id)[0] == 0
        assert p.text("out") == "prompt Cli"
    finally:
        p.close()
    (service.service.layout.uploads / "cli.txt").write_text("from the cli")
    up = Page(client, client.open(site.url("/act/upload.html")))
    try:
        code, _, err = cli(
            "upload", "cli.txt", "--input-ref", up.ref("button", "Document"), "--target", up.id
        )
        assert code == 0, err
        assert up.text("chosen") == "chosen cli.txt:12"
    finally:
        up.close()
    dl = Page(client, client.open(site.url("/act/download.html")))
    try:
        code, out, err = cli(
            "download", dl.ref("link", "Get notes"), "--path", "cli-notes.txt", "--target", dl.id
        )
        assert code == 0, err
        assert out.strip().endswith(".txt") and "cli-notes" in out
    finally:
        dl.close()
