"""Confined paths (uploads, downloads, traces) and download file names, on a real tmp_path."""

from __future__ import annotations

import os
import pathlib

import pytest

from clawd import errors
from clawd.security.paths import confine, safe_filename, unique_path


@pytest.fixture
def root(tmp_path: pathlib.Path) -> pathlib.Path:
    root = tmp_path / "uploads"
    (root / "sub").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    (root / "sub" / "b.txt").write_text("b")
    (tmp_path / "secret.txt").write_text("secret")
    return root


# -- accepted -------------------------------------------------------------------------------------
def test_relative_path_is_taken_under_root(root):
    assert confine(root, "a.txt") == (root / "a.txt").resolve()
    assert confine(root, "sub/b.txt") == (root / "sub" / "b.txt").resolve()
    assert confine(root, "./sub/./b.txt") == (root / "sub" / "b.txt").resolve()


def test_absolute_path_under_root_is_accepted(root):
    assert confine(root, str(root / "sub" / "b.txt")) == (root / "sub" / "b.txt").resolve()
    assert confine(root, root / "a.txt") == (root / "a.txt").resolve()


def test_root_reached_through_a_symlink_is_fine(tmp_path, root):
    # the root itself may be a symlink (~/.clawd on another disk); only links below it are refused
    alias = tmp_path / "alias"
    alias.symlink_to(root)
    assert confine(alias, "a.txt") == (root / "a.txt").resolve()
    assert confine(alias, str(alias / "a.txt")) == (root / "a.txt").resolve()


def test_missing_path_is_accepted_when_it_need_not_exist(root):
    assert confine(root, "new/out.pdf", must_exist=False) == root.resolve() / "new" / "out.pdf"


def test_directory_kind(root):
    assert confine(root, "sub", kind="dir") == (root / "sub").resolve()
    assert confine(root, "sub", kind="any") == (root / "sub").resolve()


# -- refused --------------------------------------------------------------------------------------
def refused(root, path, **kwargs) -> str:
    with pytest.raises(errors.InvalidPath) as caught:
        confine(root, path, **kwargs)
    assert caught.value.code == "INVALID_PATH" and caught.value.http_status == 400
    assert str(root) in caught.value.message, "the message names the root"
    return caught.value.message


def test_dotdot_traversal_is_refused(root):
    refused(root, "../secret.txt")
    refused(root, "sub/../../secret.txt")
    refused(root, "sub/../a.txt")  # even when it would land inside
    refused(root, str(root / ".." / "secret.txt"))


def test_absolute_path_outside_root_is_refused(root, tmp_path):
    assert "outside" in refused(root, str(tmp_path / "secret.txt"))
    refused(root, "/etc/passwd")


def test_symlink_inside_root_pointing_outside_is_refused(root, tmp_path):
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    assert "symlink" in refused(root, "link.txt")


def test_symlink_inside_root_pointing_inside_is_refused_too(root):
    (root / "alias.txt").symlink_to(root / "a.txt")
    refused(root, "alias.txt")


def test_symlinked_directory_in_the_middle_is_refused(root, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.txt").write_text("x")
    (root / "dir-link").symlink_to(outside, target_is_directory=True)
    refused(root, "dir-link/x.txt")
    refused(root, "dir-link/new.txt", must_exist=False)


def test_dangling_symlink_is_refused_even_when_it_need_not_exist(root, tmp_path):
    (root / "dangling").symlink_to(tmp_path / "nowhere")
    refused(root, "dangling", must_exist=False)


def test_directory_is_not_a_regular_file(root):
    assert "regular file" in refused(root, "sub")


def test_fifo_is_not_a_regular_file(root):
    os.mkfifo(root / "pipe")
    refused(root, "pipe")
    refused(root, "pipe", must_exist=False)  # never write into a fifo either
    refused(root, "pipe", kind="any")


def test_nul_byte_is_refused(root):
    assert "NUL" in refused(root, "a.txt\0.png")


def test_missing_file_is_refused_when_it_must_exist(root):
    assert "does not exist" in refused(root, "nope.txt")


def test_empty_path_is_refused(root):
    refused(root, "")


def test_a_file_where_a_directory_is_wanted_is_refused(root):
    refused(root, "a.txt", kind="dir")


# -- safe_filename --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name,expected",
    [
        ("report.pdf", "report.pdf"),
        ("../../etc/passwd", "passwd"),
        ("..\\..\\windows\\evil.exe", "evil.exe"),
        ("/abs/path/file.txt", "file.txt"),
        (".bashrc", "bashrc"),
        ("...hidden", "hidden"),
        (". . .x", "x"),
        ("..", "download"),
        (".", "download"),
        ("", "download"),
        (None, "download"),
        ("   ", "download"),
        ("dir/", "download"),
        ("a\x00b\x1fc\x7fd.txt", "abcd.txt"),
        ("line\nbreak\r.txt", "linebreak.txt"),
        ("invoice\u202etxt.exe", "invoicetxt.exe"),
        ("zero\u200bwidth.txt", "zerowidth.txt"),
        ('what?*:"<>|.txt', "what_______.txt"),
        ("trailing. . ", "trailing"),
        ("résumé.pdf", "résumé.pdf"),
        ("e\u0301.txt", "é.txt"),
        ("日本語のファイル.txt", "日本語のファイル.txt"),
        ("spaces in name.txt", "spaces in name.txt"),
    ],
)
def test_safe_filename(name, expected):
    assert safe_filename(name) == expected


def test_safe_filename_bounds_length_and_keeps_the_extension():
    name = safe_filename("x" * 1000 + ".pdf")
    assert len(name) == 200 and name.endswith(".pdf")
    assert len(safe_filename("abcdef.txt", max_len=8)) == 8
    assert safe_filename("abcdef.txt", max_len=8).endswith(".txt")


def test_safe_filename_fits_a_file_system_component_in_bytes():
    name = safe_filename("日" * 190 + ".txt")
    assert len(name.encode("utf-8")) <= 255 and name.endswith(".txt")


def test_safe_filename_never_returns_empty_or_hidden():
    for name in ["", ".", "..", "/", "\\", "\x00", "\u200b", ". .", "." * 300, "/." * 50]:
        result = safe_filename(name, max_len=5)
        assert result and not result.startswith(".") and "/" not in result and len(result) <= 5


def test_safe_filename_with_tiny_max_len():
    assert safe_filename("abc.txt", max_len=1) == "a"


# -- unique_path ----------------------------------------------------------------------------------
def test_unique_path_returns_the_name_when_free(tmp_path):
    assert unique_path(tmp_path, "a.pdf") == tmp_path / "a.pdf"


def test_unique_path_counts_up(tmp_path):
    (tmp_path / "a.pdf").write_text("")
    assert unique_path(tmp_path, "a.pdf") == tmp_path / "a (1).pdf"
    (tmp_path / "a (1).pdf").write_text("")
    (tmp_path / "a (2).pdf").write_text("")
    assert unique_path(tmp_path, "a.pdf") == tmp_path / "a (3).pdf"


def test_unique_path_without_extension_and_with_compound_one(tmp_path):
    (tmp_path / "README").write_text("")
    (tmp_path / "data.tar.gz").write_text("")
    assert unique_path(tmp_path, "README") == tmp_path / "README (1)"
    assert unique_path(tmp_path, "data.tar.gz") == tmp_path / "data (1).tar.gz"


def test_unique_path_treats_a_dangling_symlink_as_taken(tmp_path):
    (tmp_path / "a.pdf").symlink_to(tmp_path / "nowhere")
    assert unique_path(tmp_path, "a.pdf") == tmp_path / "a (1).pdf"
