"""The pool fixture (tests/support/browserless.py): without npm it skips locally and fails under
CI; the install is found in the cache directory the environment names."""

from __future__ import annotations

import pytest

from tests.support import browserless


def _no_install(monkeypatch, tmp_path, ci: bool):
    monkeypatch.setenv("CLAWD_BROWSERLESS_DIR", str(tmp_path / "none"))
    monkeypatch.setattr(browserless.shutil, "which", lambda name: None)
    if ci:
        monkeypatch.setenv("CI", "1")
    else:
        monkeypatch.delenv("CI", raising=False)


def test_without_npm_it_skips_locally(monkeypatch, tmp_path):
    _no_install(monkeypatch, tmp_path, ci=False)
    with pytest.raises(pytest.skip.Exception, match="npm"):
        browserless.require_browserless()


def test_without_npm_it_fails_under_ci(monkeypatch, tmp_path):
    _no_install(monkeypatch, tmp_path, ci=True)
    with pytest.raises(pytest.fail.Exception, match="CI"):
        browserless.require_browserless()


def test_the_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.delenv("CLAWD_BROWSERLESS_DIR", raising=False)
    monkeypatch.setenv("CLAWD_CI_CACHE", str(tmp_path))
    assert browserless.cache_dir() == tmp_path / "browserless"
    assert not browserless.installed(tmp_path / "browserless")
