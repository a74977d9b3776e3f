"""A tab a test opens and always closes, whatever state the test left it in."""

from __future__ import annotations

import contextlib

from clawd import errors


@contextlib.contextmanager
def opened_tab(client, url: str):
    tab = client.open(url)
    try:
        yield tab
    finally:
        try:
            client.close_tab(tab["tabId"])
        except errors.ClawdError:
            pass
