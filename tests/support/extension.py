"""The user's everyday Chrome in relay tests: a second Chromium started by the test with the
clawd extension loaded unpacked, and the extension's service worker driven over that Chromium's
own DevTools port (the test's way in, as a person's clicks would be)."""

from __future__ import annotations

import json
import pathlib
import subprocess
import time

import requests

from clawd.cdp.connection import Connection
from clawd.relay.package import EXTENSION_DIR, extension_id
from tests.support.browser import CHROMIUM_FLAGS, free_port, require_chromium, stop_process

WORKER_URL = f"chrome-extension://{extension_id()}/sw.js"


class ExtensionChromium:
    def __init__(
        self,
        tmp: pathlib.Path,
        *,
        extension: pathlib.Path = EXTENSION_DIR,
        extra_args: tuple[str, ...] = (),
    ):
        self.port = free_port()
        self.user_data = tmp / "users-chrome"
        args = [
            require_chromium(),
            f"--remote-debugging-port={self.port}",
            f"--user-data-dir={self.user_data}",
            f"--load-extension={extension}",
            f"--disable-extensions-except={extension}",
            *CHROMIUM_FLAGS,
            *extra_args,
            "about:blank",
        ]
        self.proc = subprocess.Popen(
            args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True
        )
        self.browser = None
        try:
            self.browser = Connection(self._wait_for("browser"), name="users-chrome")
            self.worker = Connection(self._wait_for("worker"), name="extension-worker")
            self.wait_until(
                lambda: self.evaluate("typeof toggleTab") == "function", "the worker's script ran"
            )
        except Exception:
            self.close()
            raise

    def _wait_for(self, what: str, timeout: float = 15.0) -> str:
        deadline = time.monotonic() + timeout
        seen = None
        while time.monotonic() < deadline:
            try:
                if what == "browser":
                    url = f"http://127.0.0.1:{self.port}/json/version"
                    return requests.get(url, timeout=1).json()["webSocketDebuggerUrl"]
                seen = requests.get(f"http://127.0.0.1:{self.port}/json/list", timeout=1).json()
                for target in seen:
                    if target["type"] == "service_worker" and target["url"] == WORKER_URL:
                        return target["webSocketDebuggerUrl"]
            except (requests.RequestException, ValueError, KeyError):
                pass
            if self.proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError(f"no {what} target in the extension's Chromium; targets: {seen}")

    def evaluate(self, expression: str, timeout: float = 10.0):
        """Run code in the extension's service worker (awaiting a promise) and return its value;
        an exception there raises here with its description."""
        answer = self.worker.call(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            timeout=timeout,
        )
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['result'].get('description')}")
        return answer["result"].get("value")

    @staticmethod
    def wait_until(check, what: str, timeout: float = 10.0):
        deadline = time.monotonic() + timeout
        last = None
        while time.monotonic() < deadline:
            try:
                last = check()
            except RuntimeError as exc:  # the worker's script may not have run yet
                last = exc
            if last and not isinstance(last, Exception):
                return last
            time.sleep(0.05)
        raise AssertionError(f"{what}: not within {timeout:g} s (last saw {last!r})")

    # -- what the user does ----------------------------------------------------------------------
    def pair(self, port: int, token: str) -> None:
        """What the options page stores."""
        self.evaluate(f"chrome.storage.local.set({json.dumps({'port': port, 'token': token})})")

    def pair_in_options_page(self, port: int, token: str) -> None:
        """What a person does: open the extension's options page, fill it in, save."""
        tab_id = self.open_tab(f"chrome-extension://{extension_id()}/options.html")
        try:
            self.wait_until(
                lambda: self.page_call(tab_id, "document.getElementById('port').value"),
                "the options page shows the stored port",
            )
            filled = (
                f"document.getElementById('port').value = {port};"
                f"document.getElementById('token').value = {json.dumps(token)};"
                "document.getElementById('form').requestSubmit();"
            )
            self.page_call(tab_id, filled)
            self.wait_until(
                lambda: self.page_call(tab_id, "document.getElementById('status').textContent"),
                "the options page saved",
            )
        finally:
            self.evaluate(f"chrome.tabs.remove({tab_id})")

    def open_tab(self, url: str) -> int:
        """A tab the user opened themselves (not through the extension); its chrome tab id."""
        target_id = self.browser.call("Target.createTarget", {"url": url})["targetId"]
        tab_id = self.wait_until(
            lambda: self.evaluate(
                "chrome.debugger.getTargets().then(ts => (ts.find(t => t.id === "
                f"{json.dumps(target_id)}) || {{}}).tabId)"
            ),
            f"tab of target {target_id}",
        )
        self.wait_until(
            lambda: self.evaluate(f"chrome.tabs.get({tab_id}).then(t => t.status)") == "complete",
            f"tab {tab_id} loaded",
        )
        return tab_id

    def toggle(self, tab_id: int) -> dict:
        """The toolbar button's click on a tab (the same function its listener calls)."""
        return self.evaluate(f"toggleTab({tab_id})")

    def badge(self, tab_id: int) -> str:
        return self.evaluate(f"chrome.action.getBadgeText({{tabId: {tab_id}}})")

    def page_call(self, tab_id: int, expression: str):
        """Evaluate in a page of this browser through its own DevTools port (not the relay)."""
        target = self.evaluate(
            f"chrome.debugger.getTargets().then(ts => ts.find(t => t.tabId === {tab_id}).id)"
        )
        session = self.browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})
        sid = session["sessionId"]
        try:
            answer = self.browser.call(
                "Runtime.evaluate",
                {"expression": expression, "awaitPromise": True, "returnByValue": True},
                session_id=sid,
            )
        finally:
            self.browser.call("Target.detachFromTarget", {"sessionId": sid})
        if "exceptionDetails" in answer:
            raise RuntimeError(f"{expression}: {answer['result'].get('description')}")
        return answer["result"].get("value")

    def stop_worker(self) -> None:
        """End the extension's service worker, as Chrome does to an idle one."""
        targets = self.browser.call("Target.getTargets")["targetInfos"]
        worker = next(t for t in targets if t["url"] == WORKER_URL)
        self.browser.call("Target.closeTarget", {"targetId": worker["targetId"]})
        self.worker.close()

    def reattach_worker(self) -> None:
        """The test's way into the worker Chrome started again."""
        self.worker = Connection(self._wait_for("worker"), name="extension-worker")

    def navigate_as_user(self, url_part: str, url: str) -> None:
        """Navigate the page whose URL contains `url_part` over this browser's own port."""
        targets = self.browser.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page" and url_part in t["url"])
        session = self.browser.call(
            "Target.attachToTarget", {"targetId": page["targetId"], "flatten": True}
        )["sessionId"]
        try:
            self.browser.call("Page.navigate", {"url": url}, session_id=session)
        finally:
            self.browser.call("Target.detachFromTarget", {"sessionId": session})

    def close(self) -> None:
        for connection in (getattr(self, "worker", None), self.browser):
            if connection is not None:
                connection.close()
        stop_process(self.proc)
