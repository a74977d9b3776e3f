"""README.rst points newcomers at files: every path in its "Where do I go to change X" table and
in its architecture sketch exists in the tree."""

from __future__ import annotations

import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = (ROOT / "README.rst").read_text()

_LITERAL = re.compile(r"``([^`]+)``")
_FILE = re.compile(r"\.(py|js|json|yaml|txt)$")
_SKETCH_DIR = re.compile(r"^    ([a-z]+)/ ")
_SKETCH_FILE = re.compile(r"[\w<>/]+\.py\b")


def _section(title: str) -> str:
    """The text under an RST section title, up to the next title."""
    start = README.index(f"\n{title}\n") + len(title) + 2
    following = re.search(r"\n[^\n]+\n-{3,}\n", README[start:])
    return README[start : start + following.start()] if following else README[start:]


def _is_path(literal: str) -> bool:
    return "/" in literal or bool(_FILE.search(literal))


def _row_paths(row: str) -> list[str]:
    """The paths of one table row; a bare file name (``render.py``) is in the directory of the
    path before it (``clawd/agent/tool.py`` (+ ``render.py``))."""
    paths, base = [], ""
    for literal in filter(_is_path, _LITERAL.findall(row)):
        path = literal if "/" in literal else base + literal
        base = path if path.endswith("/") else path.rsplit("/", 1)[0] + "/"
        paths.append(path)
    return paths


def table_paths() -> list[str]:
    table = _section("Where do I go to change X")
    return [path for row in table.splitlines() for path in _row_paths(row)]


def sketch_paths() -> list[str]:
    """Module files in the architecture sketch, under the clawd/ directory their line names
    (``server/  handler.py`` is clawd/server/handler.py); lines that follow stay in it."""
    sketch = _section("Architecture").split("\nImports point one way")[0]
    paths, directory = [], None
    for line in sketch.splitlines():
        named = _SKETCH_DIR.match(line)
        directory = f"clawd/{named.group(1)}/" if named else directory
        if directory:
            paths += [directory + name for name in _SKETCH_FILE.findall(line)]
    return paths


def missing(paths: list[str]) -> list[str]:
    """Paths with no match in the tree; `<resource>` stands for any name."""
    return [p for p in paths if not list(ROOT.glob(re.sub(r"<[^>]+>", "*", p.rstrip("/"))))]


def test_every_path_in_the_where_to_change_table_exists():
    paths = table_paths()
    assert len(paths) > 25, paths  # the table was found and read
    assert missing(paths) == []


def test_every_module_path_in_the_architecture_sketch_exists():
    paths = sketch_paths()
    assert {"clawd/server/handler.py", "clawd/cdp/connection.py"} <= set(paths), paths
    assert missing(paths) == []


def test_a_bare_file_name_in_a_row_is_read_in_the_directory_of_the_path_before_it():
    row = "``clawd/agent/tool.py`` (+ ``render.py``); ``clawd/page/act/`` (``forms.py``, ``Kind``)"
    assert _row_paths(row) == [
        "clawd/agent/tool.py",
        "clawd/agent/render.py",
        "clawd/page/act/",
        "clawd/page/act/forms.py",
    ]
    assert missing(["clawd/server/api/<resource>.py"]) == []
    assert missing(["clawd/page/nowhere.py"]) == ["clawd/page/nowhere.py"]
