"""Real widget libraries from the npm registry for the widget zoo (tests/site/zoo/, issue 33):
pages clawd did not write, acted on as an agent would.

Installed once, version-pinned, into a cache directory outside the repository and reused:
$CLAWD_WIDGETS_DIR, else $CLAWD_CI_CACHE/widgets, else ~/.cache/clawd-test/widgets.
`python -m tests.support.widgets install` (what `make widgets` runs) installs them when they are
missing and returns at once when they are there. `serve(site)` puts the files the zoo's pages
load under /zoo/lib/ on a test site."""

from __future__ import annotations

import json
import mimetypes
import pathlib
import shutil
import subprocess
import sys

from tests.support import npm
from tests.support.site import answer

# Exact versions: a zoo page is written against one release of each library.
PACKAGES = {
    "@fortawesome/fontawesome-free": "7.3.1",  # icon-font buttons (a glyph in ::before)
    "jquery": "4.0.0",
    "jquery-ui": "1.14.2",  # datepicker (fades), slider, menu, autocomplete
    "tom-select": "2.6.2",  # a custom select
    "bootstrap": "5.3.9",  # modal and backdrop (fade), toast, dropdown (Popper), switches
    "flatpickr": "4.6.13",  # a datepicker that animates in
    "clusterize.js": "1.0.0",  # a virtualised list in a scroll box (a plain UMD script)
}
MARKER = ".clawd-installed"
PREFIX = "/zoo/lib/"

# What the zoo's pages load, relative to node_modules (served as PREFIX + path). A stylesheet's
# relative url() needs its target listed too (Font Awesome's webfonts).
ASSETS = (
    "@fortawesome/fontawesome-free/css/all.min.css",
    "@fortawesome/fontawesome-free/webfonts/fa-solid-900.woff2",
    "@fortawesome/fontawesome-free/webfonts/fa-regular-400.woff2",
    "jquery/dist/jquery.min.js",
    "jquery-ui/dist/jquery-ui.min.js",
    "jquery-ui/dist/themes/base/jquery-ui.min.css",
    "tom-select/dist/js/tom-select.complete.min.js",
    "tom-select/dist/css/tom-select.bootstrap5.min.css",
    "bootstrap/dist/js/bootstrap.bundle.min.js",
    "bootstrap/dist/css/bootstrap.min.css",
    "flatpickr/dist/flatpickr.min.js",
    "flatpickr/dist/flatpickr.min.css",
    "clusterize.js/clusterize.min.js",
    "clusterize.js/clusterize.css",
)


def cache_dir() -> pathlib.Path:
    return npm.cache_dir("widgets", "CLAWD_WIDGETS_DIR")


def _specs() -> list[str]:
    return [f"{name}@{version}" for name, version in sorted(PACKAGES.items())]


def installed(root: pathlib.Path | None = None) -> bool:
    """The pinned set is there (the marker names it) with every file the pages load."""
    root = root or cache_dir()
    try:
        marker = (root / MARKER).read_text().split()
    except OSError:
        return False
    modules = root / "node_modules"
    return marker == _specs() and all((modules / path).is_file() for path in ASSETS)


def install(root: pathlib.Path | None = None, *, log=sys.stderr) -> pathlib.Path:
    """Install the pinned libraries with npm into `root`; a no-op when they are there. Raises
    RuntimeError when npm is missing or fails, or a package lacks a file the zoo loads."""
    root = root or cache_dir()
    if installed(root):
        return root
    npm = shutil.which("npm")
    if npm is None:
        raise RuntimeError("npm is not installed (apt-get install npm)")
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "clawd-test-zoo", "private": True}))
    print(f"installing {' '.join(_specs())} into {root}", file=log)
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact", *_specs()],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm install failed ({done.returncode}):\n{done.stderr[-4000:]}")
    missing = [path for path in ASSETS if not (root / "node_modules" / path).is_file()]
    if missing:
        raise RuntimeError(f"the pinned packages lack files the zoo loads: {missing}")
    (root / MARKER).write_text("\n".join(_specs()) + "\n")
    return root


def require_widgets() -> pathlib.Path:
    """The install directory, installing first when needed (tests/support/npm.py)."""
    return npm.require("the widget zoo's libraries", cache_dir(), installed, install)


def serve(site, root: pathlib.Path | None = None) -> None:
    """Answer PREFIX + each asset on `site` (tests.support.site.Site) from the cache."""
    modules = (root or cache_dir()) / "node_modules"
    for path in ASSETS:
        site.route(PREFIX + path, _file_route(modules / path))


def _file_route(file: pathlib.Path):
    kind = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if file.suffix == ".woff2":
        kind = "font/woff2"

    def route(handler) -> None:
        answer(handler, body=file.read_bytes(), content_type=kind)

    return route


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.support.widgets install")
    try:
        print(install())
    except RuntimeError as exc:
        sys.exit(str(exc))
