"""A download given a name the caller chose (`download REF report.txt`, issue 36) replaces a file
of that name in one rename, as OpenClaw's does, and the answer says so; what sits at the name is
replaced itself, never written through."""

from __future__ import annotations

import pytest

from clawd import errors
from clawd.page.act.downloads import DownloadManager


@pytest.fixture
def landed(tmp_path):
    """A finished download as the manager keeps it: under its own free name."""
    manager = DownloadManager(None, tmp_path)
    path = tmp_path / "report (1).txt"
    path.write_text("new")
    item = {"guid": "g1", "url": "http://127.0.0.1/report.txt", "path": str(path)}
    manager._items.append(dict(item))
    return manager, item, path


def test_an_explicit_name_replaces_the_file_there_and_says_so(tmp_path, landed):
    manager, item, source = landed
    (tmp_path / "report.txt").write_text("old")
    renamed = manager.rename(item, "report.txt")
    assert renamed["path"] == str(tmp_path / "report.txt") and renamed["replaced"] is True
    assert (tmp_path / "report.txt").read_text() == "new" and not source.exists()
    assert manager._items[0]["path"] == renamed["path"]


def test_a_new_name_replaces_nothing(tmp_path, landed):
    manager, item, _ = landed
    renamed = manager.rename(item, "fresh.txt")
    assert renamed["replaced"] is False and (tmp_path / "fresh.txt").read_text() == "new"


def test_a_symlink_at_the_name_is_replaced_not_written_through(tmp_path, landed):
    manager, item, _ = landed
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("keep me")
    (tmp_path / "report.txt").symlink_to(outside)
    manager.rename(item, "report.txt")
    assert outside.read_text() == "keep me"
    assert not (tmp_path / "report.txt").is_symlink()
    assert (tmp_path / "report.txt").read_text() == "new"


def test_a_directory_at_the_name_is_refused_and_the_download_kept(tmp_path, landed):
    manager, item, source = landed
    (tmp_path / "report.txt").mkdir()
    with pytest.raises(errors.InvalidPath, match="directory"):
        manager.rename(item, "report.txt")
    assert source.read_text() == "new"
