"""The tab hooks every tab gets, in order: each is called while a new tab (or iframe) is still
paused before its first script, and again when the tab closes. Add a page feature's hook here."""

from __future__ import annotations

from clawd.page.act.dialogs import DialogHook
from clawd.page.act.downloads import DownloadHook
from clawd.page.act.filechooser import FileChooserHook
from clawd.page.act.settle import NetworkHook
from clawd.page.observe.console import ConsoleWatch
from clawd.page.observe.interception import NavigationGuard
from clawd.page.observe.network import NetworkWatch
from clawd.page.snapshot.inject import WorldsHook
from clawd.page.state.emulation import Emulation
from clawd.page.state.navigation import PageLifecycle
from clawd.page.webmcp.registry import WebmcpHook


def tab_hooks(guard: NavigationGuard, layout=None) -> list:
    hooks: list = [PageLifecycle(), guard]
    # -- acting: dialogs, downloads, file choosers, popups (issue 4) --
    # popups need no hook: they attach as tabs of their own (Browser), reported by opener
    hooks += [DialogHook(), FileChooserHook(), NetworkHook()]
    if layout is not None:
        hooks.append(DownloadHook(layout.downloads))
    # -- watching and shaping: console, errors, network, emulation (issue 5); the worlds before
    # Runtime is enabled (ConsoleWatch), so that each one is known (snapshots, act effects) --
    hooks += [WorldsHook(), ConsoleWatch(), NetworkWatch(), Emulation(guard)]
    # -- the tools pages offer agents: WebMCP (issue 37) --
    hooks.append(WebmcpHook())
    return hooks
