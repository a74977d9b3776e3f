"""Finding the user's own browser for the built-in `user` profile: the user data directory of each
Chromium-family browser on each OS, and the DevToolsActivePort that says remote debugging is on."""

from __future__ import annotations

import pathlib

import pytest

from clawd import errors
from clawd.browser import user_chrome


def test_linux_directories_honour_xdg_config_home():
    found = dict(user_chrome.candidates(platform="linux", home=pathlib.Path("/home/ada"), env={}))
    assert found["Google Chrome"] == pathlib.Path("/home/ada/.config/google-chrome")
    assert found["Brave"] == pathlib.Path("/home/ada/.config/BraveSoftware/Brave-Browser")
    moved = dict(
        user_chrome.candidates(
            platform="linux", home=pathlib.Path("/home/ada"), env={"XDG_CONFIG_HOME": "/cfg"}
        )
    )
    assert moved["Chromium"] == pathlib.Path("/cfg/chromium")


def test_macos_and_windows_directories():
    mac = dict(user_chrome.candidates(platform="darwin", home=pathlib.Path("/Users/ada"), env={}))
    assert mac["Microsoft Edge"] == pathlib.Path(
        "/Users/ada/Library/Application Support/Microsoft Edge"
    )
    win = dict(
        user_chrome.candidates(
            platform="win32",
            home=pathlib.Path("C:/Users/ada"),
            env={"LOCALAPPDATA": "C:/Users/ada/AppData/Local"},
        )
    )
    assert win["Google Chrome"] == pathlib.Path(
        "C:/Users/ada/AppData/Local/Google/Chrome/User Data"
    )


def test_the_first_browser_with_remote_debugging_on_is_found(tmp_path):
    chrome, brave = tmp_path / "chrome", tmp_path / "brave"
    chrome.mkdir()
    brave.mkdir()
    (brave / "DevToolsActivePort").write_text("9333\n/devtools/browser/x\n")
    assert user_chrome.find([("Google Chrome", chrome), ("Brave", brave)]) == brave


def test_a_browser_without_remote_debugging_gets_an_error_naming_what_to_switch_on(tmp_path):
    (tmp_path / "chrome").mkdir()
    with pytest.raises(errors.BrowserNotRunning) as caught:
        user_chrome.find(
            [("Chromium", tmp_path / "missing"), ("Google Chrome", tmp_path / "chrome")]
        )
    assert (
        "Google Chrome" in caught.value.message
        and "chrome://inspect/#remote-debugging" in caught.value.message
    )


def test_no_browser_at_all_says_where_it_looked(tmp_path):
    with pytest.raises(errors.BrowserNotRunning) as caught:
        user_chrome.find([("Chromium", tmp_path / "missing")])
    assert (
        str(tmp_path / "missing") in caught.value.message and "userDataDir" in caught.value.message
    )
