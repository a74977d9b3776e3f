"""JavaScript dialogs (alert, confirm, prompt, beforeunload) as per-tab modal state: the tab hook
records each opened dialog as pending with a `dialogId` (or answers it at once when an answer was
armed), and `answer()` closes one. An action's calls watch this state through guard.py, so a
dialog opening mid-action ends the action promptly instead of hanging it."""

from __future__ import annotations

import itertools
import threading
import time

from clawd import errors
from clawd.browser.tab import StateKey, Tab
from clawd.cdp.session import Session

HISTORY = 20
_ids = itertools.count(1)


class DialogOpened(Exception):
    """Internal: a dialog opened while an action was talking to the page."""


class DialogState:
    def __init__(self):
        self._lock = threading.Lock()
        self.pending: list[dict] = []  # {dialogId, type, message, ...} + "_session"
        self.handled: list[dict] = []  # recently answered dialogs, newest last
        self.armed: dict | None = None  # {accept, promptText} for the next dialog
        self.opened_count = 0

    # -- the event side (dispatcher thread) -------------------------------------------------
    def on_opening(self, session: Session, params: dict) -> None:
        dialog = {
            "dialogId": f"d{next(_ids)}",
            "type": params.get("type", "alert"),
            "message": params.get("message", ""),
            "url": params.get("url", ""),
            "_session": session,
            "_opened": time.monotonic(),
        }
        if params.get("type") == "prompt":
            dialog["defaultPrompt"] = params.get("defaultPrompt", "")
        with self._lock:
            self.opened_count += 1
            armed, self.armed = self.armed, None
            if armed is None:
                self.pending.append(dialog)
        if armed is not None:
            # one quick browser-side call; the dialog never becomes pending
            session.try_call("Page.handleJavaScriptDialog", _answer_params(armed), timeout=5)
            self._remember(dialog, armed)

    def on_closed(self, session: Session, params: dict) -> None:
        """Closed by us, by the page going away, or by someone else: no longer pending."""
        with self._lock:
            for dialog in self.pending:
                if dialog["_session"] is session:
                    self.pending.remove(dialog)
                    break

    # -- the request side -------------------------------------------------------------------
    def public_pending(self) -> list[dict]:
        with self._lock:
            return [public(d) for d in self.pending]

    def find(self, dialog_id: str | None) -> dict | None:
        with self._lock:
            if dialog_id is None:
                return self.pending[0] if self.pending else None
            for dialog in self.pending:
                if dialog["dialogId"] == dialog_id:
                    return dialog
        raise errors.DialogNotFound(f"no pending dialog {dialog_id!r}")

    def arm(self, accept: bool, prompt_text: str | None) -> dict:
        with self._lock:
            self.armed = {"accept": accept, "promptText": prompt_text}
            return dict(self.armed)

    def answer(self, dialog: dict, accept: bool, prompt_text: str | None, timeout: float) -> dict:
        answer = {"accept": accept, "promptText": prompt_text}
        try:
            dialog["_session"].call(
                "Page.handleJavaScriptDialog", _answer_params(answer), timeout=timeout
            )
        except errors.CdpError as exc:  # it closed meanwhile (navigation, tab closed)
            self._drop(dialog)
            raise errors.DialogNotFound(
                f"dialog {dialog['dialogId']} is no longer open: {exc.message}"
            ) from None
        self._drop(dialog)
        return self._remember(dialog, answer)

    def handled_since(self, count: int) -> list[dict]:
        """Dialogs answered by an armed answer among the last ones opened (for act responses)."""
        with self._lock:
            return [d for d in self.handled if d["_seq"] > count]

    def _drop(self, dialog: dict) -> None:
        with self._lock:
            if dialog in self.pending:
                self.pending.remove(dialog)

    def _remember(self, dialog: dict, answer: dict) -> dict:
        done = {**public(dialog), "accepted": bool(answer["accept"])}
        if answer.get("promptText") is not None and dialog["type"] == "prompt":
            done["promptText"] = answer["promptText"]
        with self._lock:
            self.handled.append({**done, "_seq": self.opened_count})
            del self.handled[:-HISTORY]
        return done


def public(dialog: dict) -> dict:
    return {k: v for k, v in dialog.items() if not k.startswith("_")}


def _answer_params(answer: dict) -> dict:
    params = {"accept": bool(answer["accept"])}
    if answer.get("promptText") is not None:
        params["promptText"] = str(answer["promptText"])
    return params


class DialogHook:
    """Tab hook: every page and iframe session reports its dialogs into the tab's DialogState."""

    def attach(self, tab: Tab, session: Session, *, child: bool) -> None:
        dialogs = state(tab)
        session.on("Page.javascriptDialogOpening", lambda p: dialogs.on_opening(session, p))
        session.on("Page.javascriptDialogClosed", lambda p: dialogs.on_closed(session, p))

    def detach(self, tab: Tab) -> None:
        pass


DIALOGS = StateKey("dialogs", lambda tab: DialogState())


def state(tab: Tab) -> DialogState:
    return tab.state[DIALOGS]


def check_not_blocked(tab: Tab) -> None:
    pending = state(tab).public_pending()
    if pending:
        first = pending[0]
        raise errors.ActBlockedByDialog(
            f"tab {tab.tab_id} is blocked by a {first['type']} dialog "
            f"({first['message'][:120]!r}); "
            "answer it with POST /hooks/dialog {accept, promptText?, dialogId?}",
            dialog=first,
            pending=pending,
        )
