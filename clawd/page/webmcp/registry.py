"""One tab's WebMCP tools, kept current from `WebMCP.toolsAdded`/`toolsRemoved` and the frames'
navigations (a new document's tools replace the old one's: Chromium sends no toolsRemoved for a
document that went away), and the invocations in flight with what happened to them meanwhile."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session

EARLY_KEPT = 32  # responses that came before their invokeTool's reply, kept until claimed


@dataclass(frozen=True)
class PageTool:
    """One registered tool: what the page declared, where it lives, the session to call it on."""

    name: str
    description: str
    input_schema: dict
    annotations: dict
    frame_id: str
    backend_node_id: int | None
    session: Session = field(compare=False, repr=False)

    @property
    def declarative(self) -> bool:
        """Made from a `<form toolname=...>` (its form is a node of the page)."""
        return self.backend_node_id is not None

    @property
    def key(self) -> tuple[str, str]:
        return self.frame_id, self.name

    def public(self, main_frame: str, ref: str | None = None) -> dict:
        """The tool as GET /webmcp/tools lists it; `ref`: its form's, when a snapshot named it."""
        listed = {
            "name": self.name,
            "description": self.description,
            "inputSchema": self.input_schema,
            "annotations": self.annotations,
            "frame": self.frame_id,
            "mainFrame": self.frame_id == main_frame,
            "declarative": self.declarative,
        }
        return {**listed, "ref": ref} if ref else listed


@dataclass
class Invocation:
    """A call in flight: the tool's answer once it came, and whether the tool was removed or its
    document went away before that."""

    invocation_id: str
    tool: PageTool
    started: float = field(default_factory=time.monotonic)
    response: dict | None = None
    removed: bool = False
    navigated: bool = False


def _tool(session: Session, raw: dict) -> PageTool:
    schema = raw.get("inputSchema")
    return PageTool(
        name=str(raw.get("name", "")),
        description=str(raw.get("description") or ""),
        input_schema=schema if isinstance(schema, dict) else {},
        annotations=dict(raw.get("annotations") or {}),
        frame_id=str(raw.get("frameId", "")),
        backend_node_id=raw.get("backendNodeId"),
        session=session,
    )


class Registry:
    """The tab's tools by (frameId, name) and its invocations by id. Events change it on the
    dispatcher thread while requests read and wait: one condition guards all of it."""

    def __init__(self):
        self._changed = threading.Condition()
        self._tools: dict[tuple[str, str], PageTool] = {}
        self._calls: dict[str, Invocation] = {}
        self._early: dict[str, dict] = {}
        self.version = 0  # bumped whenever the set of tools changes

    # -- the event side (dispatcher thread) ---------------------------------------------------
    def on_added(self, session: Session, params: dict) -> None:
        with self._changed:
            for raw in params.get("tools") or []:
                tool = _tool(session, raw)
                key = (tool.frame_id, tool.name)
                if self._tools.get(key) != tool:
                    self._tools[key] = tool
                    self.version += 1
            self._changed.notify_all()

    def on_removed(self, params: dict) -> None:
        raw = params.get("tools") or []
        gone = {(str(t.get("frameId", "")), str(t.get("name", ""))) for t in raw}
        with self._changed:
            self._drop(lambda key, tool: key in gone, removed=True)

    def on_navigated(self, session: Session, params: dict) -> None:
        """A frame has a new document: its tools went with the old one; a top frame's new
        document also replaced every same-process frame below it."""
        frame = params.get("frame") or {}
        frame_id, top = frame.get("id"), not frame.get("parentId")
        with self._changed:
            self._drop(
                lambda key, tool: key[0] == frame_id or (top and tool.session is session),
                navigated=True,
            )

    def on_detached(self, params: dict) -> None:
        frame_id = params.get("frameId")
        with self._changed:
            self._drop(lambda key, tool: key[0] == frame_id, navigated=True)

    def on_responded(self, params: dict) -> None:
        invocation_id = params.get("invocationId")
        with self._changed:
            call = self._calls.get(invocation_id)
            if call is not None:
                call.response = params
            else:  # its invokeTool reply has not reached the caller yet
                self._early[invocation_id] = params
                while len(self._early) > EARLY_KEPT:
                    self._early.pop(next(iter(self._early)))
            self._changed.notify_all()

    def _drop(self, doomed, *, removed: bool = False, navigated: bool = False) -> None:
        keys = [key for key, tool in self._tools.items() if doomed(key, tool)]
        for key in keys:
            del self._tools[key]
        for call in self._calls.values():
            if (call.tool.frame_id, call.tool.name) in keys:
                call.removed = call.removed or removed
                call.navigated = call.navigated or navigated
        if keys:
            self.version += 1
        self._changed.notify_all()

    # -- the request side ---------------------------------------------------------------------
    def tools(self) -> list[PageTool]:
        with self._changed:
            return list(self._tools.values())

    def find(self, name: str, frame: str | None, main_frame: str) -> PageTool:
        """The tool `name` (of `frame` when given; else the main frame's, else the only one)."""
        with self._changed:
            found = [t for t in self._tools.values() if t.name == name]
        if frame is not None:
            found = [t for t in found if t.frame_id == frame]
        if not found:
            where = f" in frame {frame}" if frame is not None else ""
            raise errors.WebmcpToolNotFound(
                f"the page offers no tool {name!r}{where}; GET /webmcp/tools lists them",
                tool=name,
            )
        main = [t for t in found if t.frame_id == main_frame]
        if main or len(found) == 1:
            return (main or found)[0]
        raise errors.WebmcpToolAmbiguous(
            f"{len(found)} frames offer a tool {name!r}: say which with frame",
            frames=[t.frame_id for t in found],
        )

    def begin(self, tool: PageTool, invocation_id: str) -> Invocation:
        with self._changed:
            call = Invocation(invocation_id, tool)
            call.response = self._early.pop(invocation_id, None)
            call.removed = (tool.frame_id, tool.name) not in self._tools
            self._calls[invocation_id] = call
            return call

    def end(self, call: Invocation) -> None:
        with self._changed:
            self._calls.pop(call.invocation_id, None)

    def wait(self, call: Invocation, timeout: float) -> None:
        """Until the call's state changed or `timeout` passed."""
        with self._changed:
            if call.response is None:
                self._changed.wait(max(0.0, timeout))

    def wait_changed(self, since: int, timeout: float) -> int:
        """The version once it differs from `since`, or after `timeout` (a long poll)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self.version == since and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)
            return self.version

    def close(self) -> None:
        """The tab closed: wake every waiter (their next check finds the tab gone)."""
        with self._changed:
            self._tools.clear()
            self.version += 1
            self._changed.notify_all()


WEBMCP = StateKey("webmcp", lambda tab: Registry())


def registry(tab: Tab) -> Registry:
    return tab.state[WEBMCP]


class WebmcpHook:
    """The tab hook: every page and iframe session reports its tools into the tab's Registry.
    `WebMCP.enable` goes out unanswered: a browser without the domain is found out when asked
    (invoke.check_available), not with a warning for every tab."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        tools = registry(tab)
        session.on("WebMCP.toolsAdded", lambda p: tools.on_added(session, p))
        session.on("WebMCP.toolsRemoved", tools.on_removed)
        session.on("WebMCP.toolResponded", tools.on_responded)
        session.on("Page.frameNavigated", lambda p: tools.on_navigated(session, p))
        session.on("Page.frameDetached", tools.on_detached)
        try:
            session.send_and_forget("WebMCP.enable")
        except errors.RelayUnsupported:
            pass  # the relay cannot: GET /webmcp/tools says so when asked

    def detach(self, tab: Tab) -> None:
        tools = tab.state.peek(WEBMCP)
        if tools is not None:
            tools.close()
