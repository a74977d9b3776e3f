"""Getting the snapshot walker into a frame: the script (page/snapshot/js/*.js), clawd's isolated
world in each frame (found from Runtime's events, else made), which contexts hold the script and
its preload into a snapshotted tab's new documents. Walking it is aria.py's."""

from __future__ import annotations

import importlib.resources
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable

from clawd import errors
from clawd.cdp.session import Session

WORLD = "clawd"
MAIN = "main"  # Worlds' key of a frame's own world: (MAIN, frame_id)

_SCRIPT: str | None = None


def script() -> str:
    global _SCRIPT
    if _SCRIPT is None:
        files = importlib.resources.files("clawd.page.snapshot") / "js"
        parts = [
            (files / name).read_text(encoding="utf-8")
            for name in (
                "walker.js",
                "render.js",
                "snapshot.js",
                "names.js",
                "content.js",
                "quickname.js",
            )
        ]
        _SCRIPT = "(() => {\n" + "\n".join(parts) + "\n})();"
    return _SCRIPT


def injector() -> str:
    """The script and a document's first build as one function of the build's options. Its text
    never changes, so V8 compiles it once a renderer and takes it from its compilation cache for
    every later document, inner functions compiled too (the script with each build's options
    appended was compiled anew each time: 8-10 ms more a cold snapshot and an iframe, measured
    on the corpus pages)."""
    return "function (options) {\n" + script() + "\nreturn __clawd.build(options);\n}"


class Injected:
    """The execution contexts of each session that clawd's script was injected into (the last
    KEEP of them), and the sessions whose new documents get it from Chrome (preload). A context
    not listed, in a session not preloaded, is a new document's: it gets the script and its
    first build in one round trip, without being asked first whether the script is there (a
    cold snapshot's round trip, and one per iframe). Any other is asked, and injected if its
    script is not there."""

    KEEP = 256

    def __init__(self):
        self._lock = threading.Lock()
        self._contexts: weakref.WeakKeyDictionary[Session, OrderedDict] = (
            weakref.WeakKeyDictionary()
        )
        self._preloaded: weakref.WeakSet[Session] = weakref.WeakSet()

    def known(self, session: Session, context: int) -> bool:
        """Whether the context may hold the script already: ask it before injecting."""
        with self._lock:
            return context in self._contexts.get(session, ()) or session in self._preloaded

    def first_preload(self, session: Session) -> bool:
        """Whether `session` is not preloaded yet; it is from now on."""
        with self._lock:
            if session in self._preloaded:
                return False
            self._preloaded.add(session)
            return True

    def add(self, session: Session, context: int) -> None:
        with self._lock:
            contexts = self._contexts.setdefault(session, OrderedDict())
            contexts[context] = True
            contexts.move_to_end(context)
            while len(contexts) > self.KEEP:
                contexts.popitem(last=False)


INJECTED = Injected()


def preload(session: Session) -> None:
    """Have Chrome run the script in clawd's world of every document the session's target makes
    from now on, iframes too, as the document starts (Page.addScriptToEvaluateOnNewDocument; once
    a session, the reply not waited for). Chrome takes a CDP message in at about 70 us a KB, so
    sending the script (then 135 KB, 105 KB now) cost 8-10 ms every cold snapshot and every
    iframe walked; this way it is sent once a tab, after the tab's first snapshot (a tab never
    snapshotted pays nothing). The world is the one Page.createIsolatedWorld hands back by name:
    no universal access either (tests/integration/test_snapshot_preload.py)."""
    if INJECTED.first_preload(session):
        session.send_and_forget(
            "Page.addScriptToEvaluateOnNewDocument", {"source": script(), "worldName": WORLD}
        )


class Worlds:
    """clawd's world in each frame of a session, as Runtime's events tell (Runtime is on in
    every tab: page/observe/console.py): a frame whose world Chrome reported (made by the
    preload as its document started, or by an earlier Page.createIsolatedWorld) is not asked
    for it again, a round trip of 1-5 ms on a page just loaded. Only the events fill it and
    empty it, so a world is forgotten when its context is destroyed; a session is watched from
    its start (WorldsHook), or else from its first snapshot on. The pages' own worlds are
    known the same way (an act's watch, page/act/effects.py)."""

    def __init__(self):
        self._lock = threading.Lock()
        # per session: {frame_id: context} of clawd's worlds, and {(MAIN, frame_id): context} of
        # the pages' own
        self._frames: weakref.WeakKeyDictionary[Session, dict] = weakref.WeakKeyDictionary()

    def get(self, session: Session, frame_id: str, timeout: float) -> int | None:
        """The frame's world as the events handled so far tell, or None."""
        return self._known(session, frame_id, timeout)

    def main(self, session: Session, frame_id: str, timeout: float) -> int | None:
        """The frame's own (main) world as the events handled so far tell, or None."""
        return self._known(session, (MAIN, frame_id), timeout)

    def watch(self, session: Session) -> None:
        """Follow `session`'s worlds from now on (before Runtime is enabled: from its first)."""
        self._followed(session)

    def _followed(self, session: Session) -> dict | None:
        """The session's worlds; None when it was not followed until now (it is from now on)."""
        with self._lock:
            frames = self._frames.get(session)
            if frames is None:
                self._frames[session] = {}
                self._watch(session, self._frames[session])
            return frames

    def _known(self, session: Session, key, timeout: float) -> int | None:
        frames = self._followed(session)
        if frames is None:
            return None
        session.connection.events.flush(max(0.05, min(1.0, timeout)))  # what came is handled
        with self._lock:
            return frames.get(key)

    def _watch(self, session: Session, frames: dict) -> None:
        lock = self._lock

        def created(params: dict) -> None:
            context = params.get("context") or {}
            aux = context.get("auxData") or {}
            frame_id = aux.get("frameId")
            if not frame_id:
                return
            key = frame_id if context.get("name") == WORLD else (MAIN, frame_id)
            if key == frame_id or aux.get("isDefault"):
                with lock:
                    frames[key] = context["id"]

        def destroyed(params: dict) -> None:
            with lock:
                for frame_id, context in list(frames.items()):
                    if context == params.get("executionContextId"):
                        del frames[frame_id]

        def cleared(params: dict) -> None:
            with lock:
                frames.clear()

        session.on("Runtime.executionContextCreated", created)
        session.on("Runtime.executionContextDestroyed", destroyed)
        session.on("Runtime.executionContextsCleared", cleared)


WORLDS = Worlds()


class WorldsHook:
    """The tab hook: each session's worlds followed from its start, so even the page's own world,
    made before any snapshot, is known."""

    def attach(self, tab, session: Session, *, child: bool) -> None:
        WORLDS.watch(session.unwrapped)  # hooks get a stand-in while the target is paused

    def detach(self, tab) -> None:
        pass


def world(session: Session, frame_id: str, timeout: float) -> int:
    """The execution context of clawd's isolated world in `frame_id` (created on first use;
    Chrome hands back the same world for the same name while the document lives)."""
    known = WORLDS.get(session, frame_id, timeout)
    if known is not None:
        return known
    reply = session.call(
        "Page.createIsolatedWorld",
        {"frameId": frame_id, "worldName": WORLD, "grantUniveralAccess": False},
        timeout=timeout,
    )
    return reply["executionContextId"]


def worlds(frames: list[tuple[Session, str]], remaining: Callable[[], float]) -> list[int | None]:
    """world() of several frames, those not known asked for together and waited for while
    `remaining()` (the walk's seconds left) allows; None for a frame whose world could not be
    made (its walk asks again and fails with the reason)."""
    params = {"worldName": WORLD, "grantUniveralAccess": False}
    known = [WORLDS.get(session, frame_id, remaining()) for session, frame_id in frames]
    sent = [
        None
        if context is not None
        else session.send("Page.createIsolatedWorld", {"frameId": frame_id, **params})
        for (session, frame_id), context in zip(frames, known)
    ]
    out: list[int | None] = []
    try:
        for context, pending in zip(known, sent):
            try:
                out.append(
                    context
                    if pending is None
                    else pending.result(remaining())["executionContextId"]
                )
            except errors.CdpError:
                out.append(None)
    finally:
        for pending in sent[len(out) :]:  # out of time: nobody waits for the rest
            if pending is not None:
                pending.discard()
    return out
