"""Hand-off to a person (POST /handoff, /handoff/done; DESIGN §21): while the tab is theirs, every
request that changes its page answers 409 HANDOFF_ACTIVE and reads still work; the live view,
opened in a second headless Chromium, shows the reason and its give-back control returns the tab;
the next act's answer says what the person changed, once."""

from __future__ import annotations

import json

import pytest
import requests

from clawd import errors
from tests.support.cli import cli_of as cli
from tests.support.page_eval import wait_until
from tests.support.site import answer
from tests.support.viewer import Viewer

REASON = "solve the CAPTCHA, then give the tab back"
# the card field fills the top half of the viewport: the person clicks at (0.5, 0.25) of the view;
# their Enter submits, which moves to another URL (same document), retitles and thanks them
FORM = """<!doctype html><title>checkout</title><h1>Pay</h1>
<form onsubmit="history.pushState({}, '', '/handoff/done-by-person'); document.title = 'Paid';
  document.body.insertAdjacentHTML('beforeend', '<p>Thank you for your order</p>'); return false">
<input id=card aria-label=Card style="position:fixed;left:0;top:0;width:100%;height:50%"></form>"""
CARD_VALUE = "document.getElementById('card').value"


@pytest.fixture
def page_tab(client, site):
    site.route("/handoff/form", lambda h: answer(h, 200, FORM))
    tab = client.open(site.url("/handoff/form"))
    yield tab
    try:
        client.give_back(target_id=tab["tabId"])
    except errors.ClawdError:
        pass
    client.close_tab(tab["tabId"])


@pytest.fixture
def viewer(tmp_path):
    v = Viewer(tmp_path)
    yield v
    v.close()


def _viewer_call(viewer, method: str, params: dict) -> dict:
    """A CDP command on the viewer's page: real input, as a person's mouse and keyboard give."""
    call_id = next(viewer._ids)
    viewer.ws.send(json.dumps({"id": call_id, "method": method, "params": params}))
    while True:
        reply = json.loads(viewer.ws.recv())
        if reply.get("id") == call_id:
            assert "error" not in reply, reply
            return reply["result"]


def _person_clicks(viewer, element_id: str, down: float) -> None:
    """A real left click on the live view's element, at its middle and `down` of its height."""
    box = viewer.evaluate(
        f"(() => {{ const r = document.getElementById({element_id!r}).getBoundingClientRect();"
        f" return [r.left + r.width / 2, r.top + r.height * {down}]; }})()"
    )
    for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
        where = {"x": box[0], "y": box[1], "button": "left", "clickCount": 1}
        _viewer_call(viewer, "Input.dispatchMouseEvent", {"type": kind, **where})


def _person_types(viewer, keys: list[tuple[str, str, int]]) -> None:
    for key, text, code in keys:
        down = {"type": "keyDown", "key": key, "windowsVirtualKeyCode": code}
        _viewer_call(viewer, "Input.dispatchKeyEvent", {**down, "text": text} if text else down)
        _viewer_call(viewer, "Input.dispatchKeyEvent", {**down, "type": "keyUp"})


def _in_tab(service, tab_id: str, expression: str):
    """What the handed-off tab shows, read behind the API (a test's eyes, not the agent's)."""
    session = service.live_tab(tab_id).session
    answer = session.call("Runtime.evaluate", {"expression": expression, "returnByValue": True})
    return answer["result"].get("value")


def close_by_index(client, tab_id: str) -> dict:
    """OpenClaw's /tabs/action body closing the tab by its place in the list."""
    ids = [tab["tabId"] for tab in client.tabs()["tabs"]]
    return {"action": "close", "index": ids.index(tab_id)}


def test_handed_off_tab_refuses_every_page_change_with_409(client, site, page_tab):
    key = page_tab["tabId"]
    client.hand_off(REASON, target_id=key)
    refused = [
        lambda: client.evaluate("() => 1", target_id=key),
        lambda: client.navigate(site.url("/index.html"), target_id=key),
        lambda: client.set_storage("local", "k", "v", target_id=key),
        lambda: client.close_tab(key),
        lambda: client.request("POST", "/tabs/action", json=close_by_index(client, key)),
        lambda: client.hand_off("again", target_id=key),
    ]
    for call in refused:
        with pytest.raises(errors.HandoffActive) as caught:
            call()
        assert REASON in str(caught.value)
    # reads go on: the agent may watch what the person does
    assert "Pay" in client.request("GET", "/snapshot", params={"targetId": key})["snapshot"]
    assert client.screenshot(target_id=key)["ok"] is True
    # other tabs stay the agent's
    other = client.open("about:blank")
    try:
        assert client.evaluate("() => 2", target_id=other["tabId"])["result"] == 2
    finally:
        client.close_tab(other["tabId"])


def test_live_view_shows_the_reason_and_its_control_gives_the_tab_back(
    client, service, page_tab, viewer
):
    key = page_tab["tabId"]
    handed = client.hand_off(REASON, target_id=key)
    assert handed["handoff"]["reason"] == REASON
    viewer.open(handed["liveView"]["url"])
    shown = viewer.wait_for(
        "window.clawdHandoff && document.getElementById('handoff').offsetHeight > 0"
        " && document.getElementById('reason').textContent",
        what="the live view's hand-off banner",
    )
    assert shown == REASON
    viewer.wait_for("window.clawdFrames > 0", what="frames of the handed-off tab")
    _person_clicks(viewer, "frame", 0.25)  # on the card field, in the image of the tab
    viewer.wait_for("window.clawdSent >= 1", what="the person's click passed on")
    _person_types(viewer, [("4", "4", 52), ("2", "2", 50), ("4", "4", 52), ("2", "2", 50)])
    viewer.wait_for("window.clawdSent >= 5", what="the person's keys passed on")
    assert _in_tab(service, key, CARD_VALUE) == "4242"
    with pytest.raises(errors.HandoffActive):
        client.evaluate("() => 1", target_id=key)
    _person_types(viewer, [("Enter", "\r", 13)])
    viewer.wait_for("window.clawdSent >= 6", what="the person's Enter passed on")
    wait_until(lambda: _in_tab(service, key, "document.title") == "Paid", message="submitted")
    _person_clicks(viewer, "giveback", 0.5)
    given = viewer.wait_for("window.clawdGivenBack", what="the give-back answer")
    assert given["tabId"] == key
    first = client.evaluate("() => document.title", target_id=key)
    changed = first["handedBack"]
    assert changed["url"]["before"].endswith("/handoff/form")
    assert changed["url"]["after"].endswith("/handoff/done-by-person")
    assert changed["title"] == {"before": "checkout", "after": "Paid"}
    assert changed["navigated"] is True and changed["linesAdded"] >= 1
    assert first["result"] == "Paid"
    assert "handedBack" not in client.evaluate("() => 1", target_id=key)  # told once
    assert not viewer.evaluate("document.getElementById('handoff').offsetHeight")


def test_handoff_done_over_the_api_returns_the_tab(client, page_tab):
    key = page_tab["tabId"]
    with pytest.raises(errors.HandoffNotActive):
        client.give_back(target_id=key)
    client.hand_off(REASON, target_id=key)
    done = client.give_back(target_id=key)
    assert done["changed"]["navigated"] is False and done["changed"]["linesAdded"] == 0
    assert client.evaluate("() => 3", target_id=key)["result"] == 3


def test_give_back_needs_the_live_views_cookie(client, page_tab):
    handed = client.hand_off(REASON, target_id=page_tab["tabId"])
    url = handed["liveView"]["url"]
    assert requests.post(url + "giveback", timeout=10).status_code == 403
    with pytest.raises(errors.HandoffActive):
        client.evaluate("() => 1", target_id=page_tab["tabId"])


def test_handoff_needs_a_reason(client, page_tab):
    with pytest.raises(errors.InvalidRequest):
        client.request("POST", "/handoff", json={"targetId": page_tab["tabId"]})


def test_handoff_and_giveback_on_the_cli(service, client, page_tab):
    key = page_tab["tabId"]
    status, out, _ = cli(service, "handoff", "log in as yourself", "--target", key)
    assert status == 0 and "/observe/" in out and "log in as yourself" in out
    status, _, err = cli(service, "press", "Enter", "--target", key)
    assert status != 0 and "HANDOFF_ACTIVE" in err
    status, out, _ = cli(service, "giveback", "--target", key)
    assert status == 0 and "changed.navigated: no" in out


def test_live_view_input_reaches_the_tab_only_while_it_is_the_persons(client, page_tab):
    key = page_tab["tabId"]
    url = client.hand_off(REASON, target_id=key)["liveView"]["url"]
    with requests.Session() as person:
        assert person.get(url, timeout=10).status_code == 200  # spends the link, sets the cookie
        click = json.dumps({"type": "click", "x": 0.5, "y": 0.25})
        assert person.post(url + "input", data=click, timeout=10).status_code == 200
        refused = person.post(
            url + "input", data=click, headers={"Sec-Fetch-Site": "cross-site"}, timeout=10
        )
        assert refused.status_code == 403
        bad = person.post(url + "input", data='{"type": "key", "key": "F5"}', timeout=10)
        assert bad.status_code == 400
        client.give_back(target_id=key)
        assert person.post(url + "input", data=click, timeout=10).status_code == 409
