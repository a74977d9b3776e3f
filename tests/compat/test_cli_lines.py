"""OpenClaw-style `browser` CLI lines replayed against the real service (DESIGN.md §17): each line
as a script written for OpenClaw's CLI has it, and what the page or the service shows after it."""

from __future__ import annotations

import json
import os

import pytest

from tests.support.cli import cli_of
from tests.support.site import answer
from tests.support.tabs import opened_tab


def cli(service, *argv: str):
    """One line, --browser-profile first as OpenClaw's CLI writes it; it must succeed."""
    ran = cli_of(service, "--browser-profile", "openclaw", *argv)
    assert ran.status == 0
    return ran


def page_value(service, tab_id: str, fn: str):
    return json.loads(cli(service, "--json", "evaluate", "--fn", fn, "--target", tab_id).out)[
        "result"
    ]


@pytest.fixture
def probe(client, site):
    with opened_tab(client, site.url("/debug/probe.html")) as tab:
        yield tab["tabId"]


def test_evaluate_fn_and_set_media_dark(service, probe):
    assert page_value(service, probe, "() => document.title") == "probe"
    cli(service, "set", "media", "dark", "--target", probe)
    assert (
        page_value(service, probe, "() => matchMedia('(prefers-color-scheme: dark)').matches")
        is True
    )
    cli(service, "set", "media", "none", "--target", probe)


def test_cookies_set_name_value_url(service, site, probe):
    cli(
        service, "cookies", "set", "compat_sid", "abc123", "--url", site.url("/"), "--target", probe
    )
    assert "compat_sid=abc123" in page_value(service, probe, "() => document.cookie")
    cli(service, "cookies", "clear", "--target", probe)


def test_set_headers_json_reaches_the_server(service, site, probe):
    seen = []
    site.route(
        "/compat/headers",
        lambda h: (seen.append(h.headers.get("X-Debug")), answer(h, 200, "ok", "text/plain")),
    )
    cli(service, "set", "headers", "--json", '{"X-Debug": "1"}', "--target", probe)
    page_value(service, probe, "() => fetch('/compat/headers').then(r => r.text())")
    cli(service, "set", "headers", "--clear", "--target", probe)
    assert seen == ["1"]


def test_wait_for_a_css_selector_given_as_a_word(service, site, probe):
    page_value(
        service,
        probe,
        "() => { setTimeout(() => document.body.insertAdjacentHTML('beforeend', "
        "'<div id=late>late</div>'), 200); return true; }",
    )
    cli(service, "wait", "#late", "--timeout-ms", "5000", "--target", probe)
    assert page_value(service, probe, "() => !!document.querySelector('#late')") is True


def test_download_ref_file_and_waitfordownload_file(service, client, site):
    payload = b"compat download\n"
    site.route(
        "/act/file.bin",
        lambda h: answer(
            h,
            body=payload,
            content_type="application/octet-stream",
            headers={"Content-Disposition": 'attachment; filename="r.bin"'},
        ),
    )
    downloads = service.service.layout.downloads
    with opened_tab(client, site.url("/act/download.html")) as tab:
        snapshot = cli(service, "snapshot", "--target", tab["tabId"]).out
        ref = snapshot.split('link "Get report" [ref=')[1].split("]")[0]
        cli(service, "download", ref, "compat-report.bin", "--target", tab["tabId"])
        assert (downloads / "compat-report.bin").read_bytes() == payload
        cli(
            service,
            "evaluate",
            "--fn",
            "() => { setTimeout(() => location.href = '/act/file.bin', 100); }",
            "--target",
            tab["tabId"],
        )
        cli(
            service,
            "waitfordownload",
            "compat-waited.bin",
            "--timeout-ms",
            "10000",
            "--target",
            tab["tabId"],
        )
        assert (downloads / "compat-waited.bin").read_bytes() == payload
    for name in ("compat-report.bin", "compat-waited.bin"):
        os.unlink(downloads / name)


def test_create_profile_and_delete_profile(service, client):
    created = json.loads(
        cli(service, "--json", "create-profile", "compat-extra", "--color", "#339966").out
    )
    assert created["profile"] == "compat-extra" and created["color"] == "#339966"
    assert "compat-extra" in {p["name"] for p in client.profiles()["profiles"]}
    cli(service, "delete-profile", "compat-extra", "--purge")
    assert "compat-extra" not in {p["name"] for p in client.profiles()["profiles"]}


def test_profile_given_as_profile_is_the_same_as_browser_profile(service, probe):
    listed = cli_of(service, "--profile", "openclaw", "--json", "tabs")
    assert listed.status == 0 and probe in {t["tabId"] for t in json.loads(listed.out)["tabs"]}
