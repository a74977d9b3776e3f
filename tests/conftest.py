"""Shared fixtures: one Chromium per test session behind one in-process clawd service, the
fixture site on 127.0.0.1, and a fresh tab per test."""

from __future__ import annotations

import pytest

from tests.support.browser import require_chromium, service_config
from tests.support.service import RunningService
from tests.support.site import Site
from tests.support.tabs import opened_tab


@pytest.fixture(scope="session")
def site():
    s = Site()
    yield s
    s.close()


@pytest.fixture(scope="session")
def clawd_home(tmp_path_factory):
    return tmp_path_factory.mktemp("clawd-home")


@pytest.fixture(scope="session")
def service(clawd_home):
    require_chromium()
    running = RunningService(service_config(clawd_home))
    yield running
    running.close()


@pytest.fixture(scope="session")
def client(service):
    c = service.client()
    c.start()
    yield c
    c.close()


@pytest.fixture
def tab(client, site):
    """A fresh tab on the site's index page; closed after the test."""
    with opened_tab(client, site.url("/index.html")) as opened:
        yield opened
