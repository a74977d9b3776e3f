"""How an action talks to the page: a guarded session (the tab, one of its sessions, the action's
deadline) whose calls give up when a dialog opens on the tab (DialogOpened) or the deadline passes
(ActTimeout), so a dialog opening mid-action ends the action promptly instead of hanging it."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace

from clawd import errors
from clawd.browser.tab import Tab
from clawd.cdp.session import Session
from clawd.page.act import effects
from clawd.page.act.dialogs import DialogOpened, DialogState, state

# A page call blocked behind a dialog is noticed within this long (its reply, when the dialog is
# answered, finds no waiter and is dropped).
DIALOG_POLL = 0.02


@dataclass(frozen=True)
class Guarded:
    """One action's way to one session of its tab."""

    tab: Tab
    session: Session
    deadline: float

    @classmethod
    def page(cls, tab: Tab, deadline: float) -> Guarded:
        """An action's way to the tab's own page session (where mouse and keyboard go)."""
        return cls(tab, tab.session, deadline)

    def on(self, session: Session) -> Guarded:
        """The same action's way to another session of the tab (a frame's, the page's)."""
        return self if session is self.session else replace(self, session=session)

    def call(self, method: str, params: dict | None = None) -> dict:
        """session.call(), given up on when a dialog opens or the deadline passes."""
        return self.calls([(method, params)])[0]

    def calls(
        self, calls: list[tuple[str, dict | None]], *, errors_as_values: bool = False
    ) -> list:
        """The replies of `calls`, all sent at once (Chrome runs one session's commands in the
        order they came): one round trip for a chain whose steps do not need each other's
        answers. Each reply is waited for as call() does; on any failure the calls not answered
        yet are dropped (their late replies find no waiter). With `errors_as_values`, a call
        Chrome refused gives its CdpError in its place instead of raising it."""
        dialogs = state(self.tab)
        if dialogs.pending:
            raise DialogOpened()
        if self.deadline - time.monotonic() <= 0:
            raise errors.ActTimeout(f"the action ran out of time before {calls[0][0]}")
        calls, keepers = effects.riding(self.tab, self.session, calls)  # the act's watch
        session = self.session
        sent = session.send_many(calls) if len(calls) > 1 else [session.send(*calls[0])]
        try:
            replies = [
                _result(dialogs, p, self.deadline, errors_as_values or i < len(keepers))
                for i, p in enumerate(sent)
            ]
            for keep, reply in zip(keepers, replies):
                keep(reply)
            return replies[len(keepers) :]
        except BaseException:
            for pending in sent:
                pending.discard()
            raise


def _result(dialogs: DialogState, pending, deadline: float, errors_as_values: bool):
    """The reply, waited for on this thread (no hand-off: it cost 0.2-0.3 ms a call) in slices of
    DIALOG_POLL, between which an opened dialog or the deadline ends the wait."""
    while not pending.wait(max(0.0, min(DIALOG_POLL, deadline - time.monotonic()))):
        if dialogs.pending:
            raise DialogOpened()
        if time.monotonic() >= deadline:
            raise errors.ActTimeout(f"{pending.method} did not answer before the action's deadline")
    try:
        return pending.result(0)
    except errors.CdpError as exc:
        if errors_as_values:
            return exc
        raise
