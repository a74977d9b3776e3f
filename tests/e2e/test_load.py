"""Concurrent mixed load on the service as a subprocess (bounded): 8 client threads x 25 requests
(tabs, snapshot, evaluate, screenshot) over 4 tabs of one profile, every answer a 200. The full
run with figures and memory is bench/load.py."""

from __future__ import annotations

import pytest

from tests.e2e.daemon_process import ServeProcess
from tests.support.browser import require_chromium, service_config
from tests.support.load import KINDS, open_tabs, rss_mb, run_load
from tests.support.site import Site

pytestmark = pytest.mark.timeout(90)


@pytest.fixture
def serve(tmp_path):
    require_chromium()
    process = ServeProcess(
        tmp_path, service_config(tmp_path / "home"), extra_args=("--log-level", "warning")
    )
    yield process
    process.close()


@pytest.fixture
def own_site():
    site = Site()
    yield site
    site.close()


def test_eight_threads_of_mixed_requests_get_no_errors(serve, own_site):
    client = serve.client()
    client.start()
    tabs = open_tabs(client, own_site)
    count = client.status()["tabCount"]
    token = (serve.home / "auth-token").read_text().strip()
    rss_before = rss_mb(serve.proc.pid)
    result = run_load(serve.url, token, tabs, threads=8, per_thread=25, timeout=30)
    assert result.errors == []
    assert {k: len(v) for k, v in result.timings.items()} == {k: 50 for k in KINDS}
    assert result.seconds < 45
    assert (
        rss_mb(serve.proc.pid) < rss_before * 1.5 + 20
    )  # coarse: the bench measures growth properly
    assert client.status()["tabCount"] == count  # no tab lost or leaked
