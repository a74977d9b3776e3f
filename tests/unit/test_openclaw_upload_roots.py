"""browser.uploadRoots (issue 36): files outside $CLAWD_HOME/uploads that pages may be given, as
OpenClaw's users keep them in /tmp/openclaw/uploads; still no '..', no symlink, and no root that
another account could swap or fill."""

from __future__ import annotations

import os
import types

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import StateLayout
from clawd.server.api import uploads


def service(home, roots):
    config = config_from_data(
        {"browser": {"uploadRoots": [str(r) for r in roots]}}, env={"CLAWD_HOME": str(home)}
    )
    return types.SimpleNamespace(config=config, layout=StateLayout(home))


@pytest.fixture
def root(tmp_path):
    made = tmp_path / "openclaw" / "uploads"
    made.mkdir(parents=True, mode=0o700)
    (made / "file.pdf").write_bytes(b"%PDF-1.4\n")
    return made


def test_a_file_under_a_configured_root_is_given_to_the_page(tmp_path, root):
    home = tmp_path / "home"
    (home / "uploads").mkdir(parents=True)
    (home / "uploads" / "own.txt").write_text("x")
    paths = uploads.confined_paths(service(home, [root]), [str(root / "file.pdf"), "own.txt"])
    assert paths == [str(root / "file.pdf"), str(home / "uploads" / "own.txt")]


@pytest.mark.parametrize(
    "escape",
    ["{root}/../../../etc/passwd", "/etc/passwd", "{root}/../uploads/file.pdf", "../file.pdf"],
)
def test_traversal_or_a_path_outside_every_root_is_refused(tmp_path, root, escape):
    with pytest.raises(errors.InvalidPath) as refused:
        uploads.confined_paths(service(tmp_path / "home", [root]), [escape.format(root=root)])
    assert "browser.uploadRoots" in refused.value.message or "'..'" in refused.value.message


def test_a_symlink_below_a_root_is_refused(tmp_path, root):
    secret = tmp_path / "secret.txt"
    secret.write_text("not for pages")
    (root / "link.txt").symlink_to(secret)
    with pytest.raises(errors.InvalidPath, match="symlink"):
        uploads.confined_paths(service(tmp_path / "home", [root]), [str(root / "link.txt")])


def test_a_root_that_is_a_symlink_is_not_used(tmp_path, root, caplog):
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    with pytest.raises(errors.InvalidPath, match="outside the upload roots"):
        uploads.confined_paths(service(tmp_path / "home", [alias]), [str(alias / "file.pdf")])
    assert "not a directory (or a symlink)" in caplog.text


@pytest.mark.parametrize("where", ["root", "parent"])
def test_a_root_others_can_write_to_is_not_used(tmp_path, root, where, caplog):
    shared = root if where == "root" else root.parent
    shared.chmod(0o777)  # no sticky bit: anyone could rename the root or plant files
    with pytest.raises(errors.InvalidPath, match="outside the upload roots"):
        uploads.confined_paths(service(tmp_path / "home", [root]), [str(root / "file.pdf")])
    assert "others can write to" in caplog.text


@pytest.mark.skipif(os.getuid() != 0, reason="handing a directory to another user needs root")
def test_a_root_owned_by_another_user_is_not_used(tmp_path, root, caplog):
    os.chown(root.parent, 65534, 65534)
    with pytest.raises(errors.InvalidPath, match="outside the upload roots"):
        uploads.confined_paths(service(tmp_path / "home", [root]), [str(root / "file.pdf")])
    assert "owned by another user" in caplog.text


def test_a_relative_root_is_refused_by_the_config():
    with pytest.raises(errors.ConfigError, match="uploadRoots"):
        config_from_data({"browser": {"uploadRoots": ["openclaw/uploads"]}}, env={})
