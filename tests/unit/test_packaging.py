"""What an installed clawd carries: every file of the package that is not Python (the config
schema, the snapshot walker, the extension, the sandbox image, the observe pages) must be named by
setup.cfg's package_data, and every folder holding them must be a package setuptools finds, or a
wheel leaves them out and the installed service fails where an editable checkout works."""

from __future__ import annotations

import configparser
import fnmatch
import pathlib

import setuptools

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "clawd"


def _setup_cfg() -> configparser.ConfigParser:
    parser = configparser.ConfigParser()
    parser.read(ROOT / "setup.cfg")
    return parser


def _data_files() -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    )


def test_every_data_file_of_the_package_is_named_by_package_data():
    globs = [g.strip() for g in _setup_cfg()["options.package_data"]["clawd"].split(",")]
    files = _data_files()
    assert files, "no data files found: the test looks in the wrong place"
    missing = [f for f in files if not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert not missing, f"not in setup.cfg [options.package_data]: {missing}"


def test_every_folder_with_data_files_is_a_package_setuptools_finds():
    options = _setup_cfg()["options"]
    assert options["packages"].strip() == "find_namespace:"  # folders without __init__.py too
    found = set(setuptools.find_namespace_packages(str(ROOT), include=["clawd", "clawd.*"]))
    folders = {"clawd." + f.rpartition("/")[0].replace("/", ".") for f in _data_files() if "/" in f}
    assert folders <= found, f"not found as packages: {sorted(folders - found)}"
