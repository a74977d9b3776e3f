"""The extension as package data: `extension path` and `extension pack`, its fixed id, the
manifest the relay's Origin check depends on, and the doctor's relay check."""

from __future__ import annotations

import json
import zipfile

from clawd.config.loader import config_from_data
from clawd.relay import package
from clawd.security import doctor
from tests.support.cli import run_cli


def test_manifest_asks_for_debugger_tabs_storage_and_nothing_more():
    manifest = package.manifest()
    assert manifest["manifest_version"] == 3
    assert sorted(manifest["permissions"]) == ["debugger", "storage", "tabs"]
    assert "host_permissions" not in manifest
    for name in (manifest["background"]["service_worker"], manifest["options_ui"]["page"]):
        assert (package.EXTENSION_DIR / name).is_file(), name


def test_the_key_fixes_the_extension_id_and_so_the_origin_the_relay_allows():
    # the id Chromium 156 gave the unpacked extension (measured; test_relay.py loads it)
    assert package.extension_id() == "njkjeonneccehbinageenjibmgalefgi"
    assert package.origin() == "chrome-extension://njkjeonneccehbinageenjibmgalefgi"


def test_extension_path_prints_the_folder():
    ran = run_cli("extension", "path")
    assert ran.status == 0
    assert ran.out.strip() == str(package.EXTENSION_DIR)
    ran = run_cli("--json", "extension", "path")
    assert json.loads(ran.out)["id"] == package.extension_id()


def test_extension_pack_writes_a_zip_of_every_file_and_will_not_overwrite(tmp_path):
    out = tmp_path / "ext.zip"
    ran = run_cli("extension", "pack", "--out", str(out))
    assert ran.status == 0, ran.status
    with zipfile.ZipFile(out) as archive:
        names = sorted(archive.namelist())
        assert json.loads(archive.read("manifest.json")) == package.manifest()
    assert names == sorted(p.name for p in package.files())
    again = run_cli("extension", "pack", "--out", str(out))
    assert again.status == 2 and "--force" in again.err, again.status
    assert run_cli("extension", "pack", "--out", str(out), "--force").status == 0


def _relay_config(**relay):
    return config_from_data({"relay": {"enabled": True, **relay}}, env={})


def test_doctor_says_whether_the_extension_is_connected_and_how_many_tabs():
    probes = doctor.Probes(port_in_use=lambda port: False)
    config = _relay_config(port=18792)
    shipped = package.manifest()["version"]
    status = {"port": 18792, "connected": True, "extensionVersion": shipped, "sharedTabs": 2}
    check = doctor.check_relay(config, status, probes)
    assert (check.level, "2 tab(s) shared" in check.detail) == (doctor.OK, True), check
    check = doctor.check_relay(config, {**status, "connected": False}, probes)
    assert check.level == doctor.WARN and "extension path" in check.detail, check


def test_doctor_warns_of_an_extension_older_than_the_one_clawd_ships():
    # 1.0.0 reports no window a shared tab opens: an act waited its whole settle for one
    probes = doctor.Probes(port_in_use=lambda port: False)
    status = {"port": 18792, "connected": True, "extensionVersion": "1.0.0", "sharedTabs": 1}
    check = doctor.check_relay(_relay_config(port=18792), status, probes)
    assert check.level == doctor.WARN and "reload it" in check.detail, check
    assert package.manifest()["version"] in check.detail


def test_doctor_before_a_start_flags_a_taken_relay_port():
    taken = doctor.Probes(port_in_use=lambda port: port == 18792)
    check = doctor.check_relay(_relay_config(port=18792), None, taken)
    assert check.level == doctor.ERROR and "18792" in check.detail, check
    off = doctor.check_relay(config_from_data({}, env={}), None, taken)
    assert off.level == doctor.OK and "false" in off.detail
