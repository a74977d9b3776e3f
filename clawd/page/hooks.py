"""The tab hooks every tab gets, in order: each is called while a new tab (or iframe) is still
paused before its first script, and again when the tab closes. Add a page feature's hook here."""
from __future__ import annotations

from clawd.page.interception import NavigationGuard
from clawd.page.navigation import PageLifecycle


def tab_hooks(guard: NavigationGuard) -> list:
    hooks: list = [PageLifecycle(), guard]
    # -- acting: dialogs, downloads, file choosers, popups (issue 4) --
    # -- watching and shaping: console, errors, network, emulation (issue 5) --
    return hooks
