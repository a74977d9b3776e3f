"""GET /recordings' listing (recording.on_disk): every recording under the folder, the last started
first, each with what its sidecar says; a video without a sidecar, a sidecar without a video (no
frame yet), a broken sidecar and a symlink planted in the folder."""

from __future__ import annotations

import json

from clawd.page.observe import recording


def _sidecar(root, stem: str, **doc) -> None:
    (root / f"{stem}.json").write_text(json.dumps({"video": f"{stem}.webm", **doc}))


def test_recordings_are_listed_last_started_first_with_their_sidecars(tmp_path):
    _sidecar(tmp_path, "recording-a", startedAt=100.0, tabId="t1", stoppedBy="stop", acts=[{}, {}])
    (tmp_path / "recording-a.webm").write_bytes(b"x" * 10)
    _sidecar(tmp_path, "recording-b", startedAt=200.0, tabId="t2", stoppedBy=None, acts=[])
    listed = recording.on_disk(tmp_path)
    assert [r["name"] for r in listed] == ["recording-b.webm", "recording-a.webm"]
    running, stopped = listed
    assert running["stoppedBy"] is None and running["bytes"] == 0 and "mediaUrl" not in running
    assert stopped == {
        "name": "recording-a.webm",
        "bytes": 10,
        "mediaUrl": "/recordings/recording-a.webm",
        "sidecarUrl": "/recordings/recording-a.json",
        "tabId": "t1",
        "startedAt": 100.0,
        "stoppedBy": "stop",
        "acts": 2,
    }


def test_a_video_without_a_sidecar_and_a_broken_sidecar_are_still_listed(tmp_path):
    (tmp_path / "recording-c.webm").write_bytes(b"vid")
    (tmp_path / "recording-d.webm").write_bytes(b"vid")
    (tmp_path / "recording-d.json").write_text("{not json")
    listed = {r["name"]: r for r in recording.on_disk(tmp_path)}
    assert set(listed) == {"recording-c.webm", "recording-d.webm"}
    assert all("sidecarUrl" not in r and r["bytes"] == 3 for r in listed.values())


def test_a_symlink_and_other_files_are_not_listed(tmp_path):
    outside = tmp_path / "outside.webm"
    outside.write_bytes(b"secret")
    root = tmp_path / "recordings"
    root.mkdir()
    (root / "recording-e.webm").symlink_to(outside)
    (root / "notes.json").write_text("{}")
    assert recording.on_disk(root) == []
    assert recording.on_disk(tmp_path / "missing") == []
