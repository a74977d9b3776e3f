"""Downloads: one DownloadManager per browser connection puts every download in
$CLAWD_HOME/downloads under a sanitized unique name (Browser.setDownloadBehavior allowAndName into
a staging directory, moved when complete, so a reported file is always whole). Each download is
reported once: in the response of the action that caused it, or by the next wait. Through the
extension relay only the tab's Page.downloadWillBegin comes: the download is named, not saved."""

from __future__ import annotations

import itertools
import logging
import os
import pathlib
import threading
import time
import weakref

from clawd import errors
from clawd.browser import filebridge
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.security.paths import confine, safe_filename, unique_path

log = logging.getLogger("clawd.page")

STAGING = ".incoming"
_managers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_managers_lock = threading.Lock()


class DownloadManager:
    def __init__(self, root: Session, directory: pathlib.Path):
        self.root = root
        self.directory = pathlib.Path(directory)
        self.staging = self.directory / STAGING
        self._cond = threading.Condition()
        self._items: list[dict] = []
        self._by_guid: dict[str, dict] = {}
        self._seq = itertools.count(1)
        self.seq = 0
        # which tab a download came from: raw targetId (the frameId of its main frame) -> Tab;
        # registered on attach, forgotten on detach, read on the event thread
        self._tabs: dict[str, Tab] = {}
        self.unsupported: errors.RelayUnsupported | None = None

    def start(self) -> None:
        self.staging.mkdir(parents=True, exist_ok=True, mode=0o700)
        events = self.root.connection.events
        events.subscribe("Browser.downloadWillBegin", self._on_begin, None)
        events.subscribe("Browser.downloadProgress", self._on_progress, None)
        bridge = filebridge.bridge_for(self.root.connection)  # a sandbox writes in its container
        where = bridge.download_dir if bridge is not None else str(self.staging)
        try:
            self.root.call(
                "Browser.setDownloadBehavior",
                {"behavior": "allowAndName", "eventsEnabled": True, "downloadPath": where},
            )
        except errors.RelayUnsupported as exc:  # the extension relay: waits would never end
            self.unsupported = exc
            raise

    def register(self, tab: Tab) -> None:
        with self._cond:
            self._tabs[tab.target_id] = tab

    def forget(self, tab: Tab) -> None:
        with self._cond:
            if self._tabs.get(tab.target_id) is tab:
                del self._tabs[tab.target_id]

    # -- events (dispatcher thread) ---------------------------------------------------------
    def begun_in_page(self, params: dict) -> None:
        """A tab's Page.downloadWillBegin: the only word of a download where there is no browser
        session (the extension relay); elsewhere Browser.downloadWillBegin already told it."""
        if self.unsupported is not None:
            self._on_begin(params)

    def progress_in_page(self, params: dict) -> None:
        """A tab's Page.downloadProgress, where it is the only word: the user's Chrome saved the
        file (or not) in its own folder, so a finished one has a state but no path."""
        if self.unsupported is None or params.get("state") == "inProgress":
            return
        with self._cond:
            item = self._by_guid.pop(params.get("guid", ""), None)
            if item is not None:
                item["state"] = params.get("state", "completed")
            self._cond.notify_all()

    def _on_begin(self, params: dict) -> None:
        with self._cond:
            if params.get("guid") in self._by_guid:
                return
            tab = self._tabs.get(params.get("frameId", ""))
            self.seq = next(self._seq)
            item = {
                "guid": params["guid"],
                "url": params.get("url", ""),
                "suggestedFilename": params.get("suggestedFilename", ""),
                "state": "inProgress",
                "_seq": self.seq,
                "_claimed": False,
                "_started": time.monotonic(),
            }
            if tab is not None:
                item["tabId"] = tab.tab_id
            self._items.append(item)
            self._by_guid[item["guid"]] = item
            del self._items[:-200]
            self._cond.notify_all()

    def _on_progress(self, params: dict) -> None:
        item = self._by_guid.get(params.get("guid", ""))
        if item is None or params.get("state") == "inProgress":
            return
        if params["state"] == "completed":
            try:
                bridge = filebridge.bridge_for(self.root.connection)
                if bridge is not None:
                    bridge.fetch(
                        f"{bridge.download_dir}/{item['guid']}", self.staging / item["guid"]
                    )
                path, _ = self._move(item, self.staging / item["guid"], None)
                item.update(path=str(path), bytes=path.stat().st_size, state="completed")
            except OSError as exc:
                log.warning("download %s could not be saved: %s", item["url"], exc)
                item.update(state="failed", error=str(exc))
        else:
            item["state"] = params["state"]  # canceled
        with self._cond:
            self._by_guid.pop(item["guid"], None)
            self._cond.notify_all()

    def _move(
        self, item: dict, source: pathlib.Path, name: str | None
    ) -> tuple[pathlib.Path, bool]:
        """Link under a free name (never overwriting: link fails on an existing name), drop the
        old. A name the caller gave replaces a file of that name instead. The path, and whether
        a file was replaced."""
        wanted = safe_filename(name or item["suggestedFilename"] or item["url"].rsplit("/", 1)[-1])
        directory = self.directory
        if name and os.sep in name.strip(os.sep):
            directory = confine(self.directory, os.path.dirname(name), must_exist=True, kind="dir")
        if _same_file(directory / wanted, source):  # renamed to the name it already has
            return source, False
        if name:
            return _replace(source, directory / wanted)
        for _ in range(100):
            target = unique_path(directory, wanted)
            try:
                os.link(source, target)
            except FileExistsError:
                continue
            os.unlink(source)
            return target, False
        raise OSError("no free file name")

    # -- requests ---------------------------------------------------------------------------
    def since(self, seq: int) -> list[dict]:
        """Downloads begun after `seq`; the finished ones count as reported."""
        with self._cond:
            found = [i for i in self._items if i["_seq"] > seq]
            for item in found:
                if item["state"] != "inProgress":
                    item["_claimed"] = True
            return [public(i) for i in found]

    def wait_begun(self, seq: int, deadline: float) -> bool:
        """Until a download begun after `seq` is known, or `deadline`."""
        with self._cond:
            return self._cond.wait_for(
                lambda: self.seq > seq, timeout=max(0.0, deadline - time.monotonic())
            )

    def wait(self, deadline: float, *, after: int | None = None) -> dict:
        """The oldest unreported download (begun after `after` when given), once it is finished."""
        with self._cond:
            while True:
                # with `after`, the download the caller caused, even if an act response showed it
                item = next(
                    (
                        i
                        for i in self._items
                        if (i["_seq"] > after if after is not None else not i["_claimed"])
                    ),
                    None,
                )
                if item is not None and item["state"] != "inProgress":
                    item["_claimed"] = True
                    if item["state"] != "completed":
                        raise errors.ClawdError(
                            f"download of {item['url']} {item['state']}", download=public(item)
                        )
                    return public(item)
                left = deadline - time.monotonic()
                if left <= 0:
                    what = "finish" if item is not None else "start"
                    raise errors.DownloadTimeout(f"no download did {what} in time")
                self._cond.wait(left)

    def rename(self, item: dict, name: str) -> dict:
        """Give a finished download the caller's file name (under the downloads directory),
        replacing a file of that name; the answer says whether one was there."""
        target, replaced = self._move(item, pathlib.Path(item["path"]), name)
        with self._cond:
            for stored in self._items:
                if stored["guid"] == item["guid"]:
                    stored["path"] = str(target)
        return {**item, "path": str(target), "replaced": replaced}


def _replace(source: pathlib.Path, target: pathlib.Path) -> tuple[pathlib.Path, bool]:
    """Put source at target in one rename: a reader sees the old file or the new one, never a
    part. A symlink there is replaced itself, never followed; a directory there is refused."""
    if target.is_dir() and not target.is_symlink():
        raise errors.InvalidPath(f"{target} is a directory: give a file name")
    existed = os.path.lexists(target)
    os.replace(source, target)
    return target, existed


def _same_file(a: pathlib.Path, b: pathlib.Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def public(item: dict) -> dict:
    return {k: v for k, v in item.items() if not k.startswith("_")}


def manager_for(connection) -> DownloadManager | None:
    with _managers_lock:
        return _managers.get(connection)


class DownloadHook:
    """Tab hook: the first tab of a connection starts its DownloadManager; tabs register so
    downloads are attributed to them."""

    def __init__(self, directory: pathlib.Path):
        self.directory = pathlib.Path(directory)

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        if child:
            return
        connection = session.connection
        with _managers_lock:
            manager = _managers.get(connection)
            fresh = manager is None
            if fresh:
                manager = _managers[connection] = DownloadManager(
                    Session(connection), self.directory
                )
        manager.register(tab)
        session.on("Page.downloadWillBegin", manager.begun_in_page)
        session.on("Page.downloadProgress", manager.progress_in_page)
        if fresh:
            manager.start()

    def detach(self, tab: Tab) -> None:
        manager = manager_for(tab.session.connection)
        if manager is not None:
            manager.forget(tab)


def _manager(browser) -> DownloadManager | None:
    return manager_for(browser.connection)


def mark(browser) -> int:
    manager = _manager(browser)
    return manager.seq if manager is not None else 0


def since(browser, seq: int) -> list[dict]:
    manager = _manager(browser)
    return manager.since(seq) if manager is not None else []


def wait_begun(browser, seq: int, deadline: float) -> bool:
    """Until a download begun after `seq` is known (a click on <a download>), or `deadline`."""
    manager = _manager(browser)
    if manager is None:
        return False
    return manager.wait_begun(seq, deadline)


def wait_next(browser, deadline: float, *, after: int | None = None) -> dict:
    manager = _manager(browser)
    if manager is None:
        raise errors.ClawdError("downloads are not set up for this browser")
    if manager.unsupported is not None:
        raise manager.unsupported
    return manager.wait(deadline, after=after)


def rename(browser, item: dict, name: str) -> dict:
    return _manager(browser).rename(item, name)
