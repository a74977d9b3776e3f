"""Browser drivers: the registry has one for every driver a profile can name, the runtime asks
its driver instead of branching on the kind, and no driver imports the runtime."""

from __future__ import annotations

import json
import pathlib
import re
import subprocess
import sys

import pytest

from clawd import errors
from clawd.browser.drivers.base import Driver
from clawd.browser.profiles import DRIVERS as CONFIGURABLE
from clawd.browser.runtime import BrowserRuntime
from clawd.config.model import BrowserConfig, ProfileConfig, StateLayout
from clawd.server.service import DRIVERS, driver_name

ROOT = pathlib.Path(__file__).resolve().parents[2]


class Refusing(Driver):
    """A driver whose browser is never there: obtain() counts its calls and fails."""

    name = "refusing"

    def __init__(self, *args, backs_off: bool, **kw):
        super().__init__(*args, **kw)
        self.backs_off = backs_off
        self.asked = 0

    def obtain(self, headless):
        self.asked += 1
        raise errors.BrowserNotRunning("nothing answers")

    def status(self) -> dict:
        return {"refusing": {"asked": self.asked}}


def _runtime(tmp_path, **kw) -> tuple[BrowserRuntime, Refusing]:
    profile, config = ProfileConfig("p"), BrowserConfig()
    layout = StateLayout(tmp_path)
    driver = Refusing(profile, config, layout, **kw)
    return BrowserRuntime(profile, config, layout, driver), driver


def test_every_driver_a_profile_can_name_has_its_class_in_the_registry():
    for name in (*CONFIGURABLE, "attach-only", "extension"):
        assert DRIVERS[name].name == name


@pytest.mark.parametrize(
    ("profile", "config_attach_only", "expected"),
    [
        (ProfileConfig("a"), False, "managed"),
        (ProfileConfig("a"), True, "attach-only"),
        (ProfileConfig("a", attach_only=False), True, "managed"),
        (ProfileConfig("a", attach_only=True), False, "attach-only"),
        (ProfileConfig("a", cdp_url="http://127.0.0.1:9", attach_only=True), False, "remote"),
        (ProfileConfig("a", driver="existing-session"), True, "existing-session"),
        (ProfileConfig("a", driver="sandbox"), False, "sandbox"),
    ],
)
def test_attach_only_makes_only_a_managed_profile_attach_only(
    profile, config_attach_only, expected
):
    assert driver_name(profile, BrowserConfig(attach_only=config_attach_only)) == expected


def test_a_failed_start_backs_off_when_the_driver_says_so(tmp_path):
    runtime, driver = _runtime(tmp_path, backs_off=True)
    with pytest.raises(errors.BrowserNotRunning):
        runtime.ensure()
    with pytest.raises(errors.BrowserGone, match="next attempt in"):
        runtime.ensure()
    assert driver.asked == 1


def test_a_driver_that_does_not_back_off_is_asked_again_at_once(tmp_path):
    runtime, driver = _runtime(tmp_path, backs_off=False)
    for _ in range(2):
        with pytest.raises(errors.BrowserNotRunning):
            runtime.ensure()
    assert driver.asked == 2


def test_the_status_carries_the_drivers_name_and_its_own_part(tmp_path):
    runtime, _ = _runtime(tmp_path, backs_off=True)
    with pytest.raises(errors.BrowserNotRunning):
        runtime.ensure()
    status = runtime.status()
    assert (status["driver"], status["running"], status["refusing"]) == (
        "refusing",
        False,
        {"asked": 1},
    )


def test_the_runtime_names_no_driver():
    source = (ROOT / "clawd/browser/runtime.py").read_text()
    assert "kind ==" not in source and "kind !=" not in source
    named = [f'"{name}"' for name in DRIVERS if f'"{name}"' in source]
    assert named == []
    assert not re.search(r"^from clawd\.(sandbox|relay)\b", source, re.M)


def test_no_driver_imports_the_runtime_nor_a_library_only_some_routes_need():
    modules = [
        "clawd.browser.drivers.managed",
        "clawd.browser.drivers.attach",
        "clawd.browser.drivers.existing",
        "clawd.browser.drivers.remote",
        "clawd.sandbox.driver",
        "clawd.relay.driver",
    ]
    probe = f"import json, sys; import {', '.join(modules)}; print(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    loaded = set(json.loads(done.stdout))
    assert set(modules) <= loaded
    assert "clawd.browser.runtime" not in loaded
    assert loaded.isdisjoint({"docker", "websockets", "requests", "clawd.relay.server"})
