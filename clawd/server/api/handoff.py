"""POST /handoff and /handoff/done: a tab handed to a person and given back (clawd/page/handoff.py).
The hand-off's answer carries a one-time live-view link (GET /sandbox/observe's) to give them."""

from __future__ import annotations

import datetime

from clawd.page import handoff
from clawd.server.answers import tab_answer
from clawd.server.routing import Request


def hand_off(req: Request) -> dict:
    """The tab becomes the person's until POST /handoff/done or the live view's control."""
    tab = req.tab()  # 409 HANDOFF_ACTIVE already when it is the person's
    held = handoff.begin(tab, req.args["reason"])
    req.browser().use(tab)  # the live view shows the tab used last
    runtime = req.runtime()
    link = req.service.observe_tokens.issue(runtime.profile.name, "screencast")
    return tab_answer(
        tab,
        handoff={"reason": held["reason"], "since": _iso(held["since"])},
        liveView={
            "url": f"http://{req.reached_at()}/observe/{link.token}/",
            "expiresAt": _iso(link.expires_at),
        },
    )


def give_back(req: Request) -> dict:
    """The tab is the agent's again; the answer says what the person changed."""
    tab = req.tab()
    return tab_answer(tab, changed=handoff.end(tab))


def _iso(seconds: float) -> str:
    moment = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return moment.isoformat(timespec="seconds").replace("+00:00", "Z")
