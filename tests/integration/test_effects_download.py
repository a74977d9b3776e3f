"""An act's `effect` names the file a click downloads (DESIGN §20), whether the server asks for it
(Content-Disposition: attachment) or the link does (a `download` attribute), and says nothing of
a navigation: the page stays where it was. The file itself is saved under downloads."""

from __future__ import annotations

import pathlib
import time

import pytest

from tests.support.act import Page, opened_pages
from tests.support.browser import require_chromium, service_config
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import answer

REPORT = b"quarterly figures\n" * 100
NOTES = b"notes of the meeting\n"
SLOW_SERVER = 0.3  # s before the notes' answer: a server that thinks first, as real ones do


def _notes(handler) -> None:
    time.sleep(SLOW_SERVER)
    answer(handler, body=NOTES, content_type="text/plain")


@pytest.fixture(scope="module")
def own(tmp_path_factory):
    """A service of this module's own: a download an act reported while it was still coming is
    the next one `wait_download` answers, so none of these may reach another module's service."""
    require_chromium()
    running = RunningService(service_config(tmp_path_factory.mktemp("effects-download")))
    started = running.client()
    started.start()
    yield running, started
    started.close()
    running.close()


@pytest.fixture
def client(own):
    return own[1]


@pytest.fixture
def page(client, site):
    site.route(
        "/effects/report.bin",
        lambda h: answer(
            h,
            body=REPORT,
            content_type="application/octet-stream",
            headers={"Content-Disposition": 'attachment; filename="q3 report.bin"'},
        ),
    )
    site.route("/effects/notes.txt", _notes)
    yield from opened_pages(client, site)


@pytest.fixture
def fx(page) -> Page:
    opened = page("/effects/download.html")
    opened.snapshot()
    return opened


@pytest.fixture
def downloads(own) -> pathlib.Path:
    return own[0].service.layout.downloads


def click(p: Page, name: str) -> dict:
    return p.act("click", ref=p.ref("link", name))["effect"]


def saved(downloads: pathlib.Path, pattern: str, body: bytes, before: set) -> bool:
    """A new whole file named like `pattern` (one is moved there only once complete)."""
    return any(p.read_bytes() == body for p in set(downloads.glob(pattern)) - before)


def test_a_click_on_an_attachment_link_is_its_download_saved(fx, downloads):
    before = set(downloads.glob("q3 report*.bin"))
    assert click(fx, "Get report").get("download") == "q3 report.bin"
    wait_until(lambda: saved(downloads, "q3 report*.bin", REPORT, before), message="report saved")


def test_an_attachment_link_is_a_download_and_no_navigation(fx):
    assert click(fx, "Get report") == {"download": "q3 report.bin"}


def test_a_click_on_a_download_attribute_link_is_its_download(fx, downloads):
    before = set(downloads.glob("meeting notes*.txt"))
    assert click(fx, "Get notes") == {"download": "meeting notes.txt"}
    wait_until(lambda: saved(downloads, "meeting notes*.txt", NOTES, before), message="saved")
