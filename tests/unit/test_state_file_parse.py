"""A storage state file read without a browser (clawd/page/state/state_file.py): Playwright's shape
becomes Storage.setCookies parameters, every bad field is named before anything is applied, and
sealed files round-trip under the key in $CLAWD_HOME and nothing else."""

from __future__ import annotations

import json
import os
import stat

import pytest

from clawd import errors
from clawd.page.state import state_file as portable

PLAYWRIGHT_COOKIE = {
    "name": "sid",
    "value": "abc",
    "domain": "127.0.0.1",
    "path": "/",
    "expires": -1,
    "httpOnly": True,
    "secure": False,
    "sameSite": "Lax",
}
DOCUMENT = {
    "cookies": [PLAYWRIGHT_COOKIE],
    "origins": [
        {
            "origin": "http://127.0.0.1:8000",
            "localStorage": [{"name": "k", "value": "v"}],
            "sessionStorage": [{"name": "s", "value": "t"}],
        }
    ],
}


def test_playwright_session_cookie_becomes_a_setcookies_parameter_without_expiry():
    state = portable.parse(DOCUMENT)
    assert state.cookies == [
        {
            "name": "sid",
            "value": "abc",
            "domain": "127.0.0.1",
            "path": "/",
            "httpOnly": True,
            "secure": False,
            "sameSite": "Lax",
        }
    ]
    origin = state.origins[0]
    assert (origin.origin, origin.local, origin.session) == (
        "http://127.0.0.1:8000",
        [("k", "v")],
        [("s", "t")],
    )


@pytest.mark.parametrize(
    ("document", "named"),
    [
        ({"cookies": [{**PLAYWRIGHT_COOKIE, "sameSite": "None"}]}, "cookies[0]"),
        ({"cookies": [{**PLAYWRIGHT_COOKIE, "expires": "soon"}]}, "cookies[0]"),
        ({"cookies": [], "origins": [{"origin": "http://a.test/x"}]}, "origins[0].origin"),
        ({"cookies": [], "origins": [{"origin": "javascript:1"}]}, "origins[0].origin"),
        (
            {"cookies": [], "origins": [{"origin": "http://a.test", "localStorage": {}}]},
            "origins[0].localStorage",
        ),
        ([], "storage state"),
    ],
)
def test_a_bad_field_is_named(document, named):
    with pytest.raises(errors.InvalidStateFile) as caught:
        portable.parse(document)
    assert named in str(caught.value)


def test_sealed_file_round_trips_and_is_private(tmp_path):
    root, key = tmp_path / "state", tmp_path / portable.KEY_FILE
    written = portable.write(root, "s.bin", DOCUMENT, key)
    assert written["encrypted"] is True
    assert b"abc" not in (root / "s.bin").read_bytes()
    for path in (root / "s.bin", key):
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    state, sealed = portable.read(root, "s.bin", key)
    assert sealed is True and state.cookies[0]["value"] == "abc"


def test_a_sealed_file_is_refused_under_another_key_or_tampered(tmp_path):
    root = tmp_path / "state"
    portable.write(root, "s.bin", DOCUMENT, tmp_path / "one.key")
    with pytest.raises(errors.InvalidStateFile):
        portable.read(root, "s.bin", tmp_path / "missing.key")
    portable.write(root, "other.bin", DOCUMENT, tmp_path / "two.key")
    with pytest.raises(errors.InvalidStateFile):
        portable.read(root, "s.bin", tmp_path / "two.key")
    data = bytearray((root / "s.bin").read_bytes())
    data[40] ^= 1
    (root / "s.bin").write_bytes(bytes(data))
    with pytest.raises(errors.InvalidStateFile):
        portable.read(root, "s.bin", tmp_path / "one.key")


def test_a_save_replaces_the_file_and_never_follows_a_symlink(tmp_path):
    root = tmp_path / "state"
    portable.write(root, "a.json", {"cookies": [], "origins": []}, None)
    portable.write(root, "a.json", DOCUMENT, None)
    assert json.loads((root / "a.json").read_text()) == DOCUMENT
    outside = tmp_path / "outside"
    outside.write_text("mine")
    (root / "link.json").symlink_to(outside)
    with pytest.raises(errors.InvalidPath):
        portable.write(root, "link.json", DOCUMENT, None)
    assert outside.read_text() == "mine"
    assert [p.name for p in root.iterdir() if p.name.endswith(".tmp")] == []
