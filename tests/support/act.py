"""Helpers of the act tests: open a fixture page, take its snapshot, find a ref by role and name,
read a value out of the page."""

from __future__ import annotations

from clawd import errors


class Page:
    """One tab opened on a fixture page, with its latest snapshot's refs."""

    def __init__(self, client, tab: dict):
        self.client = client
        self.tab = tab
        self.id = tab["tabId"]
        self.refs: dict = {}

    def snapshot(self) -> str:
        snap = self.client.snapshot(target_id=self.id)
        self.refs = snap["refs"]
        return snap["snapshot"]

    def ref(self, role: str, name: str) -> str:
        if not self.refs:
            self.snapshot()
        for ref, info in self.refs.items():
            if info["role"] == role and info["name"] == name:
                return ref
        raise AssertionError(f"no {role} {name!r} in the snapshot: {self.refs}")

    def act(self, kind: str, **fields) -> dict:
        return self.client.act(kind, target_id=self.id, **fields)

    def value(self, expression: str):
        return self.client.evaluate(f"() => ({expression})", target_id=self.id)["result"]

    def text(self, element_id: str) -> str:
        return self.value(f"document.getElementById({element_id!r}).textContent")

    def close(self) -> None:
        try:
            self.client.close_tab(self.id)
        except errors.ClawdError:
            pass


def opened_pages(client, site, *, answer_dialogs: bool = False):
    """The body of a `page` fixture: yields open(path) -> Page, then closes every page opened.
    answer_dialogs: accept a pending dialog first, so a beforeunload cannot keep a page open."""
    opened = []

    def open_page(path: str) -> Page:
        page = Page(client, client.open(site.url(path)))
        opened.append(page)
        return page

    yield open_page
    for page in opened:
        if answer_dialogs:
            try:
                client.dialog(True, target_id=page.id)
            except errors.ClawdError:
                pass
        page.close()
