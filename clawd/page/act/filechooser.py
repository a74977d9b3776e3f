"""File uploads: the tab hook intercepts file choosers (Page.setInterceptFileChooserDialog), so a
chooser a click opens is satisfied with armed files or kept pending until files are given; files
can also be set on a file input directly. Paths are confined to $CLAWD_HOME/uploads."""

from __future__ import annotations

import threading
import time

from clawd import errors
from clawd.browser import filebridge
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session
from clawd.page.observe.capture import backend_node_of


class ChooserState:
    def __init__(self):
        self._cond = threading.Condition()
        self.armed: list[str] | None = None
        self.pending: dict | None = None  # {session, backendNodeId, mode}
        self.opened = 0
        self.satisfied: list[dict] = []  # {files, backendNodeId} of armed choosers, newest last

    def on_opened(self, session: Session, params: dict) -> None:
        chooser = {
            "session": session,
            "backendNodeId": params.get("backendNodeId"),
            "mode": params.get("mode", "selectSingle"),
        }
        with self._cond:
            self.opened += 1
            armed, self.armed = self.armed, None
            if armed is None:
                self.pending = chooser
        if armed is not None:
            error = _set_files(
                session, chooser["backendNodeId"], armed, timeout=5, raise_errors=False
            )
            with self._cond:
                self.satisfied.append({"files": armed, "error": error, "seq": self.opened})
                del self.satisfied[:-10]
        with self._cond:
            self._cond.notify_all()

    def arm(self, files: list[str]) -> None:
        with self._cond:
            self.armed = list(files)  # the last arm wins

    def take_pending(self) -> dict | None:
        with self._cond:
            pending, self.pending = self.pending, None
            return pending

    def wait_satisfied(self, after: int, deadline: float) -> dict:
        with self._cond:
            while True:
                done = next((s for s in self.satisfied if s["seq"] > after), None)
                if done is not None:
                    return done
                left = deadline - time.monotonic()
                if left <= 0:
                    self.armed = None
                    raise errors.ActTimeout("the click did not open a file chooser in time")
                self._cond.wait(left)


def _set_files(
    session: Session,
    backend_node_id,
    files: list[str],
    *,
    timeout: float,
    raise_errors: bool = True,
) -> str | None:
    try:
        files = filebridge.browser_paths(session.connection, files)  # a sandbox copies them in
        session.call(
            "DOM.setFileInputFiles",
            {"files": files, "backendNodeId": backend_node_id},
            timeout=timeout,
        )
    except errors.CdpError as exc:
        if raise_errors:
            raise errors.ActInvalidRequest(f"the files could not be set: {exc.message}") from None
        return exc.message
    return None


class FileChooserHook:
    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        chooser = state(tab)
        session.on("Page.fileChooserOpened", lambda p: chooser.on_opened(session, p))
        session.call("Page.setInterceptFileChooserDialog", {"enabled": True})

    def detach(self, tab: Tab) -> None:
        pass


CHOOSER = StateKey("filechooser", lambda tab: ChooserState())


def state(tab: Tab) -> ChooserState:
    return tab.state[CHOOSER]


def set_input_files(
    session: Session, backend_node_id: int, files: list[str], timeout: float
) -> None:
    _set_files(session, backend_node_id, files, timeout=timeout)


def file_input(tab: Tab, selector: str, timeout: float) -> int:
    """The backend node id of the `<input type=file>` CSS `selector` matches (OpenClaw's upload
    `element`): 404 SELECTOR_NOT_FOUND when nothing matches, 400 when it is another element."""
    backend = backend_node_of(tab, selector)
    node = tab.session.call("DOM.describeNode", {"backendNodeId": backend}, timeout=timeout)["node"]
    attributes = node.get("attributes") or []
    kind = dict(zip(attributes[0::2], attributes[1::2])).get("type", "").strip().lower()
    if node.get("nodeName") != "INPUT" or kind != "file":
        what = (
            f"<input type={kind or 'text'}>"
            if node.get("nodeName") == "INPUT"
            else f"<{node.get('localName') or node.get('nodeName', '?').lower()}>"
        )
        raise errors.ActInvalidRequest(
            f"element: {selector!r} matches {what}, not an <input type=file>"
        )
    return backend
