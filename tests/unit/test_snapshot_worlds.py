"""clawd's world in each frame as Runtime's events tell (page/snapshot/inject.py Worlds): a world
Chrome reported is known without asking, forgotten with its context, all of a session's
forgotten when Chrome clears them, and the events handled before an answer is given."""

from __future__ import annotations

from types import SimpleNamespace

from clawd.page.snapshot.inject import WORLD, Worlds


class FakeSession:
    """A cdp Session's event side: handlers by event name, and an event bus to flush."""

    def __init__(self):
        self.handlers: dict[str, list] = {}
        self.flushed = 0
        self.connection = SimpleNamespace(events=SimpleNamespace(flush=self._flush))

    def on(self, event, handler):
        self.handlers.setdefault(event, []).append(handler)
        return lambda: None

    def emit(self, event, params):
        for handler in self.handlers.get(event, []):
            handler(params)

    def _flush(self, timeout):
        self.flushed += 1
        return True


def created(session, context_id, frame_id, name=WORLD):
    context = {"id": context_id, "name": name, "auxData": {"frameId": frame_id}}
    session.emit("Runtime.executionContextCreated", {"context": context})


def test_a_world_is_known_once_chrome_reports_it_and_only_clawds():
    worlds, session = Worlds(), FakeSession()
    assert worlds.get(session, "F", 1) is None  # the first look starts the watch
    created(session, 7, "F")
    created(session, 8, "G", name="")  # the page's own world
    created(session, 9, "G", name="__playwright_utility_world__")
    assert worlds.get(session, "F", 1) == 7
    assert worlds.get(session, "G", 1) is None
    assert session.flushed == 2  # every answer after the events that came were handled


def test_a_world_is_forgotten_with_its_context_and_all_when_chrome_clears_them():
    worlds, session = Worlds(), FakeSession()
    worlds.get(session, "F", 1)
    created(session, 7, "F")
    created(session, 8, "G")
    session.emit("Runtime.executionContextDestroyed", {"executionContextId": 7})
    assert worlds.get(session, "F", 1) is None and worlds.get(session, "G", 1) == 8
    created(session, 11, "F")  # the frame's next document
    assert worlds.get(session, "F", 1) == 11
    session.emit("Runtime.executionContextsCleared", {})
    assert worlds.get(session, "F", 1) is None and worlds.get(session, "G", 1) is None


def test_sessions_are_apart_and_watched_once():
    worlds, one, other = Worlds(), FakeSession(), FakeSession()
    worlds.get(one, "F", 1)
    worlds.get(one, "F", 1)
    worlds.get(other, "F", 1)
    created(one, 7, "F")
    assert worlds.get(one, "F", 1) == 7 and worlds.get(other, "F", 1) is None
    assert len(one.handlers["Runtime.executionContextCreated"]) == 1
