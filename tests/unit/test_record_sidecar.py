"""A recording that outlives a renderer swap, ends with a reason that says why (browserGone,
shutdown), and keeps its sidecar current while it runs. Fake clock, tab and encoder."""

from __future__ import annotations

import json

from clawd.browser.tab import TabState
from clawd.page.observe import recording
from tests.unit.test_record_timing import Clock, FakeEncoder, FakeTab, paint


def started(tmp_path):
    clock, encoder, tab = Clock(), FakeEncoder(), FakeTab()
    limits = recording.Limits(fps=10, max_seconds=60, max_bytes=1 << 20)
    rec = recording.Recorder(tab, tmp_path / "r.webm", limits, encoder=encoder, clock=clock)
    rec.start()
    paint(rec, clock, 0.0, b"A")
    return rec, clock, tab


def sidecar(rec) -> dict:
    return json.loads(rec.sidecar.read_text())


def test_a_detach_under_a_tab_the_browser_keeps_restarts_the_screencast_and_goes_on(tmp_path):
    rec, clock, tab = started(tmp_path)
    tab.session.handlers["Target.detachedFromTarget"]({"sessionId": "S1"})
    assert tab.session.sent.count("Page.startScreencast") == 2
    clock.now = 100.5
    assert not rec.done.is_set() and rec.stop()["stoppedBy"] == "stop"


def test_a_new_url_restarts_the_screencast_and_another_target_does_not(tmp_path):
    rec, _, tab = started(tmp_path)
    changed = tab.session.handlers["Target.targetInfoChanged"]
    changed({"targetInfo": {"targetId": "T1", "url": "http://b.test/"}})
    changed({"targetInfo": {"targetId": "T1", "url": "http://b.test/"}})  # the title, say
    changed({"targetInfo": {"targetId": "T2", "url": "http://c.test/"}})
    assert tab.session.sent.count("Page.startScreencast") == 2
    rec.stop()


def test_the_sidecar_is_current_while_recording_and_sealed_at_the_end(tmp_path):
    rec, clock, _ = started(tmp_path)
    assert sidecar(rec)["stoppedBy"] is None and sidecar(rec)["acts"] == []
    rec.note_act("click", 100.1, 100.2, ref="e1", ok=True)
    assert [a["kind"] for a in sidecar(rec)["acts"]] == ["click"]
    assert sidecar(rec)["stoppedBy"] is None
    clock.now = 101.0
    rec.stop()
    rec._write_sidecar(None)  # a rewrite that lost the race with the end changes nothing
    assert sidecar(rec)["stoppedBy"] == "stop" and sidecar(rec)["frames"] == 10
    assert not list(tmp_path.glob(".*.tmp"))


def test_a_closed_connection_ends_the_recording_as_browser_gone(tmp_path):
    rec, _, tab = started(tmp_path)
    tab.session.closed = True
    tab.closed.set()
    assert rec.done.wait(10)
    assert rec.result["stoppedBy"] == "browserGone"
    assert sidecar(rec)["stoppedBy"] == "browserGone"


class SlotTab(FakeTab):
    def __init__(self):
        super().__init__()
        self.state = TabState(self)


def test_end_all_ends_each_running_recording_with_the_reason_and_waits(tmp_path):
    tabs, recs = [SlotTab(), SlotTab()], []
    for i, tab in enumerate(tabs):
        limits = recording.Limits(fps=10, max_seconds=60, max_bytes=1 << 20)
        rec = recording.Recorder(tab, tmp_path / f"r{i}.webm", limits, encoder=FakeEncoder())
        tab.state[recording.RECORDING].begin(rec)
        rec.start()
        rec._on_frame({"sessionId": 1, "data": "QQ=="})
        recs.append(rec)
    assert recording.end_all(tabs, "shutdown", 10) == 2
    assert [r.result["stoppedBy"] for r in recs] == ["shutdown", "shutdown"]
    assert recording.end_all(tabs, "shutdown", 10) == 0  # ended ones are left alone
