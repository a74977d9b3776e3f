"""find_executable with an injected which/is_file/platform: no real filesystem lookups."""

from __future__ import annotations

import os
import pathlib

import pytest

from clawd import errors
from clawd.browser.executables import LINUX_NAMES, candidates, find_executable


def which_from(table):
    return lambda name: table.get(name)


def files(*paths):
    present = set(paths)
    return lambda path: path in present


def no_which(name):
    return None


def test_an_explicit_path_that_exists_wins():
    assert (
        find_executable(
            "/opt/chrome/chrome",
            which=which_from({"chromium": "/usr/bin/chromium"}),
            is_file=files("/opt/chrome/chrome", "/usr/bin/chromium"),
        )
        == "/opt/chrome/chrome"
    )


def test_an_explicit_path_with_a_tilde_is_expanded():
    expected = os.path.expanduser("~/bin/chrome")
    assert find_executable("~/bin/chrome", is_file=files(expected)) == expected


def test_an_explicit_path_that_does_not_exist_fails_pointing_at_the_key():
    with pytest.raises(errors.BrowserLaunchFailed) as raised:
        find_executable(
            "/nope/chrome",
            which=which_from({"chromium": "/usr/bin/chromium"}),
            is_file=files("/usr/bin/chromium"),
        )
    assert "/nope/chrome" in str(raised.value)
    assert raised.value.details["hint"] == "browser.executablePath"


def test_linux_takes_the_first_known_name_in_order():
    found = find_executable(
        platform="linux",
        which=no_which,
        is_file=files("/usr/bin/chromium", "/snap/bin/brave-browser"),
    )
    assert found == "/snap/bin/brave-browser"  # brave-browser comes before chromium in the list


def test_path_lookup_comes_before_the_fixed_dirs_for_the_same_name():
    found = find_executable(
        platform="linux",
        which=which_from({"chromium": "/usr/local/bin/chromium"}),
        is_file=files("/usr/local/bin/chromium", "/usr/bin/chromium"),
    )
    assert found == "/usr/local/bin/chromium"


def test_google_chrome_beats_chromium():
    found = find_executable(
        platform="linux",
        which=which_from(
            {"chromium": "/usr/bin/chromium", "google-chrome": "/usr/bin/google-chrome"}
        ),
        is_file=files("/usr/bin/chromium", "/usr/bin/google-chrome"),
    )
    assert found == "/usr/bin/google-chrome"


def test_a_which_hit_that_is_not_a_file_is_skipped():
    found = find_executable(
        platform="linux",
        which=which_from({"google-chrome": "/usr/bin/google-chrome"}),
        is_file=files("/usr/bin/chromium-browser"),
    )
    assert found == "/usr/bin/chromium-browser"


def test_linux_candidates_cover_every_name_in_usr_bin_and_snap_bin():
    listed = candidates(platform="linux", which=no_which)
    for name in LINUX_NAMES:
        assert f"/usr/bin/{name}" in listed and f"/snap/bin/{name}" in listed
    assert [c.rsplit("/", 1)[1] for c in listed[::2]] == list(LINUX_NAMES)


def test_macos_looks_in_applications_then_the_home_applications():
    home_chrome = str(
        pathlib.Path.home() / "Applications" / "Google Chrome.app/Contents/MacOS/Google Chrome"
    )
    assert (
        find_executable(platform="darwin", which=no_which, is_file=files(home_chrome))
        == home_chrome
    )
    listed = candidates(platform="darwin", which=no_which)
    assert listed[0] == "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome"
    assert listed[1] == home_chrome
    assert all(".app/Contents/MacOS/" in c for c in listed)


def test_macos_never_asks_which():
    def which(name):
        raise AssertionError("no PATH lookup on macOS")

    candidates(platform="darwin", which=which)


@pytest.mark.parametrize("platform", ["linux", "darwin"])
def test_nothing_found_fails_with_a_fix(platform):
    with pytest.raises(errors.BrowserLaunchFailed) as raised:
        find_executable(platform=platform, which=no_which, is_file=files())
    message = str(raised.value)
    assert "no Chromium-family browser found" in message and "browser.executablePath" in message
    assert raised.value.details["hint"] == "browser.executablePath"
    assert ("chromium" in message) if platform == "linux" else ("Google Chrome.app" in message)
