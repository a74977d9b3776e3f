"""The scratch tab: a tab of clawd's own that stands at any origin, to read or write its
localStorage, while no request it makes leaves the machine. State files (portable.py) and the
restore of a pool's session (browser/continuity.py) use it; what they store is theirs."""

from __future__ import annotations

import base64
import logging
import time

from clawd import errors
from clawd.cdp.connection import Connection
from clawd.cdp.session import Session

log = logging.getLogger("clawd.state")

CALL_TIMEOUT = 10.0
CLOSE_WAIT = 2.0  # for the tab to be gone after closeTarget (measured: about 40 ms)
# what the tab's every request is answered with: the origin's document, made by clawd; its icon
# is inline, else Chromium fetches /favicon.ico from the site itself (measured: outside the
# Fetch domain and the offline emulation, once another client is attached to the tab: a
# profile's own tab hooks, a second profile on the same Chromium)
BLANK_PAGE = base64.b64encode(
    b'<!doctype html><link rel="icon" href="data:,"><title></title>'
).decode()
OFFLINE = {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1}


class ScratchTab:
    """A tab whose every request clawd answers itself (Fetch.fulfillRequest), offline besides.
    `browser`: the Browser set up on `connection`, whose navigation guard attaches the new tab
    too and is silenced on it; None on a bare connection (before Browser.setup())."""

    def __init__(self, connection: Connection, browser=None, *, timeout: float = CALL_TIMEOUT):
        self.timeout = timeout
        self.failure = ""  # why the last visit() failed
        self.root = Session(connection)
        self.session: Session | None = None
        made = self.root.call("Target.createTarget", {"url": "about:blank"}, timeout=timeout)
        self.target_id = made["targetId"]
        try:
            if browser is not None:
                self._silence_guard(browser)
            attached = self.root.call(
                "Target.attachToTarget",
                {"targetId": self.target_id, "flatten": True},
                timeout=timeout,
            )
            self.session = Session(connection, attached["sessionId"], self.target_id)
            self._answer_everything()
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> ScratchTab:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _silence_guard(self, browser) -> None:
        """The browser attaches the new tab itself, and its navigation guard pauses the tab's
        documents there too: its continue could beat our fulfil (measured: the site saw the
        request in 1 load of 3 under load). Fetch off on that session, once it is set up."""
        tab = browser.wait_for_tab(self.target_id, self.timeout)
        if not tab.instrumented.wait(self.timeout):
            raise errors.CdpTimeout(f"the scratch tab was not set up within {self.timeout:g} s")
        tab.session.call("Fetch.disable", timeout=self.timeout)

    def _answer_everything(self) -> None:
        """Fetch answers every request; and offline: a client we cannot silence (a second
        profile on the same Chromium) may continue a request before we fulfil it: it fails."""
        self.session.on("Fetch.requestPaused", self._answer)
        calls = [
            ("Fetch.enable", {"patterns": [{"urlPattern": "*"}]}),
            ("Network.enable", None),
            ("Network.emulateNetworkConditions", OFFLINE),
        ]
        for reply in self.session.send_many(calls):  # in order, one round trip
            reply.result(self.timeout)

    def _answer(self, params: dict) -> None:
        self.session.send(
            "Fetch.fulfillRequest",
            {
                "requestId": params["requestId"],
                "responseCode": 200,
                "responseHeaders": [{"name": "Content-Type", "value": "text/html"}],
                "body": BLANK_PAGE,
            },
        ).discard()

    def visit(self, origin: str, attempts: int = 3) -> bool:
        """Stand at `origin`; False when the tab did not get there in `attempts` tries (a try
        fails when another client's continue beat our fulfil: offline, the request failed), the
        last try's reason in `failure`."""
        return any(self._visit(origin) for _ in range(attempts))

    def _visit(self, origin: str, wait: float = 5.0) -> bool:
        went = self.session.call("Page.navigate", {"url": origin + "/"}, timeout=self.timeout)
        if went.get("errorText"):  # the navigation failed: no document to wait for
            self.failure = f"navigating failed: {went['errorText']}"
            return False
        self.failure = f"the tab was not at {origin} within {wait:g} s"
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            try:
                got = self.session.call(
                    "Runtime.evaluate",
                    {"expression": "location.origin", "returnByValue": True},
                    timeout=self.timeout,
                )
            except errors.RelayUnsupported:
                raise
            except errors.CdpError:  # "Inspected target navigated or closed": the next try
                got = {}
            if got.get("result", {}).get("value") == origin:
                return True
            time.sleep(0.02)  # navigate answers at commit; the old document can still answer
        return False

    def write_local(self, origin: str, items: list[tuple[str, str]]) -> None:
        """Set `items` in the localStorage of `origin`, where the tab stands (visit() first).
        All sent at once: one round trip to a remote browser, not one per item."""
        storage_id = {"securityOrigin": origin, "isLocalStorage": True}
        pending = self.session.send_many(
            [
                ("DOMStorage.setDOMStorageItem", {"storageId": storage_id, "key": k, "value": v})
                for k, v in items
            ]
        )
        failed = None
        for reply in pending:  # every reply collected, so none is left in the pending table
            try:
                reply.result(self.timeout)
            except errors.ClawdError as exc:
                failed = failed or exc
        if failed is not None:
            raise failed

    def close(self) -> None:
        """Close the tab and wait until it is gone: a caller that sets up a Browser next must
        not find it (it would be taken for the agent's tab, and restored later)."""
        gone = None
        if self.session is not None:
            mine = self.session.session_id
            gone = self.root.expect(
                "Target.detachedFromTarget", lambda p: p.get("sessionId") == mine
            )
        try:
            self.root.call("Target.closeTarget", {"targetId": self.target_id}, timeout=self.timeout)
        except errors.ClawdError as exc:  # the tab or the browser already gone: nothing to close
            log.debug("closing the scratch tab: %s", exc)
            if gone is not None:
                gone.unsubscribe()
            gone = None
        if gone is not None and gone.wait(CLOSE_WAIT) is None:
            log.warning("the scratch tab did not close within %g s", CLOSE_WAIT)
