"""POST /screenshot {ifChanged: true}: `unchanged: true` and no image while the tab's
pixels are those of its last screenshot of the same shape; the image as soon as they differ."""

from __future__ import annotations

import pytest
import requests

from tests.support.act import Page, opened_pages
from tests.support.cli import cli_of


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


@pytest.fixture
def shot(service, page):
    opened = page("/effects/next.html")

    def take(**body) -> dict:
        r = requests.post(
            f"{service.url}/screenshot",
            json={"targetId": opened.id, "ifChanged": True, **body},
            headers={"Authorization": f"Bearer {service.token}"},
            timeout=30,
        )
        assert r.status_code == 200, r.text
        return r.json()

    take.page = opened
    return take


def test_the_first_screenshot_of_a_tab_is_an_image(shot):
    first = shot()
    assert "unchanged" not in first and first["path"]


def test_the_same_pixels_again_answer_unchanged_without_an_image(shot):
    shot()
    again = shot()
    assert again["unchanged"] is True
    assert "path" not in again and "mediaUrl" not in again


def test_changed_pixels_answer_the_new_image(shot):
    shot()
    p: Page = shot.page
    p.value("document.querySelector('p').textContent = 'Something else entirely'")
    changed = shot()
    assert "unchanged" not in changed and changed["path"]
    assert shot()["unchanged"] is True


def test_a_change_nobody_can_see_is_unchanged(shot):
    shot()
    shot.page.value("document.body.appendChild(document.createElement('div')).hidden = true")
    assert shot()["unchanged"] is True


def test_another_format_is_compared_with_its_own_kind_only(shot):
    shot()
    assert "unchanged" not in shot(type="jpeg")
    assert shot(type="jpeg")["unchanged"] is True


def test_without_if_changed_the_image_always_comes(shot):
    shot()
    assert shot(ifChanged=False)["path"]


def test_the_client_and_the_cli_ask_if_changed(service, shot):
    tab_id = shot.page.id
    client = service.client()
    assert "path" in client.screenshot(target_id=tab_id, if_changed=True)
    assert client.screenshot(target_id=tab_id, if_changed=True)["unchanged"] is True
    ran = cli_of(service, "screenshot", "--target", tab_id, "--if-changed")
    assert ran.status == 0, ran.err
    assert ran.out.strip() == "unchanged: the same pixels as the last screenshot"
