"""POST /act: validation, every element kind on real input events, waits, evaluate, batches,
the settle after an action and its timeout."""

from __future__ import annotations

import concurrent.futures
import re
import time

import pytest

from clawd import errors
from tests.support.act import Page, opened_pages
from tests.support.browser import service_config
from tests.support.page_eval import wait_until
from tests.support.service import RunningService
from tests.support.site import answer


@pytest.fixture
def page(client, site):
    yield from opened_pages(client, site)


@pytest.fixture
def forms(page) -> Page:
    return page("/act/forms.html")


def raw_act(service, body: dict, query: str = "") -> tuple[int, dict]:
    import requests

    r = requests.post(
        f"{service.url}/act{query}",
        json=body,
        timeout=30,
        headers={"Authorization": f"Bearer {service.token}"},
    )
    return r.status_code, r.json()


# -- validation -----------------------------------------------------------------------------------
def test_missing_kind_is_400_act_kind_required(service, tab):
    status, body = raw_act(service, {"ref": "e1"})
    assert (status, body["code"]) == (400, "ACT_KIND_REQUIRED")


@pytest.mark.parametrize(
    "body, field",
    [
        ({"kind": "click"}, "ref"),
        ({"kind": "click", "ref": "e1", "bogus": 1}, "bogus"),
        ({"kind": "click", "ref": "e1", "delayMs": 6000}, "delayMs"),
        ({"kind": "click", "ref": "e1", "button": "huge"}, "button"),
        ({"kind": "click", "ref": "e1", "modifiers": ["Hyper"]}, "modifiers"),
        ({"kind": "resize", "width": 0, "height": 10}, "width"),
        ({"kind": "wait", "timeMs": 40000}, "timeMs"),
        ({"kind": "wait"}, "wait needs"),
        ({"kind": "press", "key": "Control+Bogus"}, "key"),
        ({"kind": "fill", "fields": [{"ref": "e1"}]}, "fields[0].value"),
        ({"kind": "jump"}, "kind"),
    ],
)
def test_invalid_fields_are_400_naming_the_field(service, tab, body, field):
    status, answer_ = raw_act(service, body)
    assert (status, answer_["code"]) == (400, "ACT_INVALID_REQUEST")
    assert field in answer_["error"]


def test_batch_limits_are_enforced(service, tab):
    too_many = {"kind": "batch", "actions": [{"kind": "wait", "timeMs": 0}] * 101}
    status, body = raw_act(service, too_many)
    assert (status, body["code"]) == (400, "ACT_INVALID_REQUEST") and "101" in body["error"]
    nested = {"kind": "wait", "timeMs": 0}
    for _ in range(6):
        nested = {"kind": "batch", "actions": [nested]}
    status, body = raw_act(service, nested)
    assert (status, body["code"]) == (400, "ACT_INVALID_REQUEST") and "nest" in body["error"]


@pytest.mark.parametrize(
    "body",
    [
        {"kind": "click", "selector": "#go"},
        {"kind": "click", "ref": "button.primary"},
        {"kind": "type", "ref": "#name", "text": "x"},
    ],
)
def test_css_selectors_are_refused_for_actions(service, tab, body):
    status, answer_ = raw_act(service, body)
    assert (status, answer_["code"]) == (400, "ACT_SELECTOR_UNSUPPORTED")


def test_strings_for_booleans_and_numbers_are_accepted(forms):
    forms.act("click", ref=forms.ref("button", "Double me"), double_click="true", delay_ms="25")
    assert forms.text("dbl") == "double clicked"


def test_batched_target_id_of_another_tab_is_403(service, forms, page):
    other = page("/index.html")
    status, body = raw_act(
        service,
        {
            "kind": "batch",
            "targetId": forms.id,
            "actions": [{"kind": "wait", "timeMs": 0, "targetId": other.id}],
        },
    )
    assert (status, body["code"]) == (403, "ACT_TARGET_ID_MISMATCH")
    status, body = raw_act(
        service, {"kind": "wait", "timeMs": 0, "targetId": other.id}, query=f"?targetId={forms.id}"
    )
    assert (status, body["code"]) == (403, "ACT_TARGET_ID_MISMATCH")


def test_evaluate_disabled_is_403_for_evaluate_and_wait_fn(tmp_path):
    running = RunningService(
        service_config(tmp_path, extra={"browser": {"evaluateEnabled": False}})
    )
    try:
        client = running.client()
        for call in (
            lambda: client.evaluate("() => 1"),
            lambda: client.wait(fn="() => true"),
            lambda: client.act("batch", actions=[{"kind": "evaluate", "fn": "() => 1"}]),
        ):
            with pytest.raises(errors.ActEvaluateDisabled) as caught:
                call()
            assert caught.value.code == "ACT_EVALUATE_DISABLED" and caught.value.http_status == 403
    finally:
        running.close()


# -- clicks ---------------------------------------------------------------------------------------
def test_click_by_ref_answers_with_the_page_state(forms):
    result = forms.act("click", ref=forms.ref("button", "Count"))
    assert result["ok"] is True and result["tabId"] == forms.id
    assert result["targetId"] == forms.tab["targetId"]
    assert result["url"].endswith("/act/forms.html") and result["title"] == "Forms"
    assert result["dialogs"] == {"pending": []}
    assert "blockedByDialog" not in result and "openedTabs" not in result
    assert forms.text("clicks") == "clicks: 1"


def test_click_accepts_every_ref_spelling(forms):
    ref = forms.ref("button", "Count")
    for spelling in (ref, "@" + ref, "ref=" + ref):
        forms.act("click", ref=spelling)
    assert forms.text("clicks") == "clicks: 3"


def test_right_double_and_modified_clicks_are_real_events(forms):
    forms.act("click", ref=forms.ref("button", "Right me"), button="right")
    forms.act("click", ref=forms.ref("button", "Double me"), double_click=True)
    forms.act("click", ref=forms.ref("button", "Modifier me"), modifiers=["Shift", "Alt"])
    assert forms.text("ctx") == "right clicked"
    assert forms.text("dbl") == "double clicked"
    assert forms.text("mods") == "mods shiftKey,altKey"


def test_click_scrolls_a_far_element_into_view_first(forms):
    forms.act("click", ref=forms.ref("button", "Far away"))
    assert forms.text("far") == "far clicked"
    assert forms.value("window.scrollY") > 500


def test_click_coords_clicks_at_the_point(forms):
    box = forms.value(
        "(() => { const r = document.getElementById('counter').getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    forms.act("clickCoords", x=box[0], y=box[1])
    assert forms.text("clicks") == "clicks: 1"


def test_covered_element_is_409_naming_what_covers_it(page):
    p = page("/act/covered.html")
    with pytest.raises(errors.ActElementCovered) as caught:
        p.act("click", ref=p.ref("button", "Buy now"))
    assert caught.value.http_status == 409
    assert caught.value.details["covering"]["role"] == "dialog"
    assert caught.value.details["covering"]["name"] == "Cookie banner"
    assert "dialog 'Cookie banner'" in caught.value.message
    assert p.text("under") == "Buy now"  # nothing was clicked
    p.act("click", ref=p.ref("button", "Accept cookies"))
    p.act("click", ref=p.ref("button", "Buy now"))
    assert p.text("under") == "clicked under"


def test_disabled_hidden_and_zero_size_elements_fail_fast(forms):
    # each waits its short grace (actionability.STATE_GRACE), never the act's 8 s deadline: the
    # error says how long it waited (the service's own clock, not this busy host's wall clock)
    waited = []
    with pytest.raises(errors.ActElementDisabled) as caught:
        forms.act("click", ref=forms.ref("button", "Off"))
    waited.append(_waited(caught.value))
    count = forms.ref("button", "Count")
    forms.value("document.getElementById('counter').style.visibility = 'hidden'")
    with pytest.raises(errors.ActElementHidden) as caught:
        forms.act("click", ref=count)
    waited.append(_waited(caught.value))
    forms.value(
        "(() => { const b = document.getElementById('counter'); b.style.visibility = '';"
        " b.style.cssText = 'width:0;height:0;padding:0;border:0;overflow:hidden'; })()"
    )
    with pytest.raises(errors.ActElementHidden) as caught:
        forms.act("click", ref=count)
    assert caught.value.details.get("reason") == "zero-size"
    waited.append(_waited(caught.value))
    assert all(w < 2.0 for w in waited), waited


def _waited(exc: errors.ClawdError) -> float:
    found = re.search(r"\(waited ([0-9.]+) s\)", str(exc))
    assert found, str(exc)
    return float(found.group(1))


def test_removed_element_answers_ref_stale(forms):
    count = forms.ref("button", "Count")
    forms.value("document.getElementById('counter').remove()")
    with pytest.raises(errors.RefStale):
        forms.act("click", ref=count)


def test_unknown_ref_is_404(forms):
    forms.snapshot()
    with pytest.raises(errors.RefUnknown):
        forms.act("click", ref="e9999")


def test_hover_moves_the_mouse_over_the_element(forms):
    forms.act("hover", ref=forms.ref("button", "Hover target"))
    assert forms.text("hoverme") == "hovered"


def test_scroll_into_view_brings_the_element_into_the_viewport(forms):
    forms.act("scrollIntoView", ref=forms.ref("button", "Far away"))
    assert forms.value(
        "(() => { const r = document.getElementById('far').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; })()"
    )


# -- keyboard and text ----------------------------------------------------------------------------
def test_type_replaces_the_text_and_submit_presses_enter(forms):
    name = forms.ref("textbox", "Name")
    forms.act("type", ref=name, text="first")
    forms.act("type", ref=name, text="Ada Lovelace", submit=True)
    assert forms.value("document.getElementById('name').value") == "Ada Lovelace"
    assert forms.text("submitted") == "submitted Ada Lovelace"


def test_type_slowly_sends_a_key_per_character(forms):
    forms.act("type", ref=forms.ref("textbox", "Key log"), text="aB!", slowly=True)
    assert forms.text("keys") == "keys: a Shift+B Shift+!"
    assert forms.value("document.getElementById('keylog').value") == "aB!"


def test_type_into_textarea_and_contenteditable(forms):
    forms.act("type", ref=forms.ref("textbox", "Bio"), text="line one")
    forms.act("type", ref=forms.ref("textbox", "Editor"), text="new text")
    assert forms.value("document.getElementById('bio').value") == "line one"
    assert forms.text("editor") == "new text"


def test_type_into_disabled_or_readonly_field_fails(forms):
    with pytest.raises(errors.ActElementDisabled):
        forms.act("type", ref=forms.ref("textbox", "Locked"), text="x")
    with pytest.raises(errors.ActElementDisabled):
        forms.act("type", ref=forms.ref("textbox", "Readonly"), text="x")


def test_controlled_input_keeps_typed_text_in_its_state(page):
    p = page("/act/react.html")
    p.act("type", ref=p.ref("textbox", "Controlled name"), text="Grace")
    p.act("click", ref=p.ref("button", "Save"))  # re-renders from state
    assert p.text("echo") == "state: Grace"
    assert p.text("saved") == "saved Grace"
    assert p.value("document.getElementById('ctl').value") == "Grace"
    p.act("type", ref=p.ref("textbox", "Controlled name"), text="Hopper", slowly=True)
    assert p.text("echo") == "state: Hopper"


def test_press_named_keys_and_chords(forms):
    log = forms.ref("textbox", "Key log")
    forms.act("type", ref=log, text="abc")
    for key in ("Control+A", "Backspace", "ArrowDown", "Escape", "Enter"):
        forms.act("press", key=key)
    assert forms.value("document.getElementById('keylog').value") == ""
    assert forms.text("keys") == "keys: Ctrl+Control Ctrl+a Backspace ArrowDown Escape Enter"


def test_shift_tab_moves_focus_backwards(forms):
    forms.act("type", ref=forms.ref("textbox", "Bio"), text="x")
    forms.act("press", key="Shift+Tab")
    assert forms.value("document.activeElement.id") == "name"
    forms.act("press", key="Tab")
    assert forms.value("document.activeElement.id") == "bio"


# -- forms ----------------------------------------------------------------------------------------
def test_select_by_label_value_and_several(forms):
    result = forms.act("select", ref=forms.ref("combobox", "Fruit"), values=["Banana"])
    assert result["selected"] == ["b"]
    forms.act("select", ref=forms.ref("combobox", "Fruit"), values=["a"])
    assert forms.value("document.getElementById('fruit').value") == "a"
    forms.act("select", ref=forms.ref("listbox", "Tags"), values=["x", "Zulu"])
    assert forms.value(
        "Array.from(document.getElementById('tags').selectedOptions).map(o => o.value)"
    ) == ["x", "z"]


def test_select_missing_or_disabled_option_fails(forms):
    with pytest.raises(errors.ActInvalidRequest) as caught:
        forms.act("select", ref=forms.ref("combobox", "Fruit"), values=["Durian"])
    assert "Durian" in caught.value.message and "Apple" in caught.value.message
    with pytest.raises(errors.ActElementDisabled):
        forms.act("select", ref=forms.ref("combobox", "Fruit"), values=["Cherry"])
    with pytest.raises(errors.ActInvalidRequest):
        forms.act("select", ref=forms.ref("combobox", "Fruit"), values=["a", "b"])


def test_fill_sets_text_checkbox_radio_select_and_contenteditable(forms):
    forms.act(
        "fill",
        fields=[
            {"ref": forms.ref("textbox", "Name"), "type": "textbox", "value": "Linus"},
            {"ref": forms.ref("checkbox", "Agree"), "type": "checkbox", "value": True},
            {"ref": forms.ref("radio", "Blue"), "type": "radio", "value": "true"},
            {"ref": forms.ref("combobox", "Fruit"), "value": "Banana"},
            {"ref": forms.ref("textbox", "Editor"), "value": "edited"},
        ],
    )
    values = (
        "['name', 'agree', 'blue', 'fruit', 'editor'].map(id => document.getElementById(id))"
        ".map(el => el.type === 'checkbox' || el.type === 'radio'"
        " ? el.checked : el.value ?? el.textContent)"
    )
    assert forms.value(values) == ["Linus", True, True, "b", "edited"]
    forms.act("fill", fields=[{"ref": forms.ref("checkbox", "Agree"), "value": False}])
    assert forms.value("document.getElementById('agree').checked") is False


def test_resize_sets_the_viewport(forms):
    forms.act("resize", width=640, height="480")
    assert forms.value("[innerWidth, innerHeight]") == [640, 480]


def test_drag_drops_an_html5_draggable_on_the_target(page):
    p = page("/act/drag.html")
    p.act("drag", start_ref=p.ref("button", "Card"), end_ref=p.ref("region", "Drop zone"))
    assert p.text("target") == "dropped card-1"


def test_drag_moves_the_mouse_with_the_button_held(page):
    p = page("/act/drag.html")
    p.act("drag", start_ref=p.ref("slider", "Knob"), end_ref=p.ref("region", "Drop zone"))
    assert int(p.text("moved").split()[1]) < -50  # the drop zone is left of the knob


# -- waits ----------------------------------------------------------------------------------------
def test_wait_conditions_run_in_order(page):
    p = page("/act/delayed.html")
    p.act("click", ref=p.ref("button", "Later"))
    result = p.act(
        "wait",
        text="Late content",
        text_gone="Loading...",
        selector="#late",
        url="**/delayed.html#done",
        load_state="networkidle",
        fn="() => document.readyState",
    )
    assert list(result["waited"]) == ["text", "textGone", "selector", "url", "loadState", "fn"]
    assert result["url"].endswith("#done")


def test_wait_time_ms_waits_that_long(forms):
    started = time.monotonic()
    forms.act("wait", time_ms=300)
    assert time.monotonic() - started >= 0.3


def test_wait_that_never_comes_is_408_within_its_timeout(forms):
    started = time.monotonic()
    with pytest.raises(errors.ActTimeout) as caught:
        forms.act("wait", text="never there", timeout_ms=600)
    assert caught.value.http_status == 408
    assert time.monotonic() - started < 3


def test_wait_with_invalid_selector_is_400(forms):
    with pytest.raises(errors.ActInvalidRequest):
        forms.act("wait", selector="a[[", timeout_ms=600)


# -- evaluate -------------------------------------------------------------------------------------
def test_evaluate_returns_values_by_value_and_awaits_promises(forms):
    assert forms.act("evaluate", fn="() => ({a: [1, 'two']})")["result"] == {"a": [1, "two"]}
    assert (
        forms.act(
            "evaluate", fn="async () => { await new Promise(r => setTimeout(r, 20)); return 7; }"
        )["result"]
        == 7
    )
    assert forms.act("evaluate", fn="() => 0 / 0")["result"] == "NaN"
    assert forms.act("evaluate", fn="() => undefined")["result"] is None
    assert forms.act("evaluate", fn="document.title")["result"] == "Forms"


def test_evaluate_on_a_settled_page_is_one_cdp_command_with_the_page_state(
    page, service, monkeypatch
):
    """Issue 16: an evaluate costs one CDP round trip; the url and title its answer carries come
    back with the value, not from calls made after it (a page that starts no request once
    loaded: a request during the act is waited for, and the state read again)."""
    quiet = page("/act/quiet.html")
    quiet.act("evaluate", fn="() => { document.title = 'Evaluated'; return 1; }")
    tab = service.live_tab(quiet.id)
    connection = tab.session.connection
    sent = []
    send, send_many = connection.send, connection.send_many

    def record(method, params=None, *, session_id=None):
        sent.append((method, session_id, params))
        return send(method, params, session_id=session_id)

    def record_many(calls, *, session_id=None):
        sent.extend((method, session_id, params) for method, params in calls)
        return send_many(calls, session_id=session_id)

    monkeypatch.setattr(connection, "send", record)
    monkeypatch.setattr(connection, "send_many", record_many)
    answer = quiet.act("evaluate", fn="() => 2 + 2")
    monkeypatch.undo()
    ours = [method for method, session_id, _ in sent if session_id == tab.session.session_id]
    assert ours == ["Runtime.evaluate"], sent
    assert (answer["result"], answer["title"]) == (4, "Evaluated"), answer
    assert answer["url"].endswith("/act/quiet.html"), answer


def test_evaluate_with_ref_gets_the_element_as_first_argument(forms):
    result = forms.act(
        "evaluate", fn="(el) => el.tagName + ':' + el.textContent", ref=forms.ref("button", "Count")
    )
    assert result["result"] == "BUTTON:Count"


def test_evaluate_with_ref_runs_in_the_page_world_with_its_globals_and_expandos(forms):
    # the act holds the element in clawd's world; a page function gets the page's own element
    forms.value("(window.pageGlobal = 'g', document.getElementById('counter').expando = 'x')")
    result = forms.act(
        "evaluate", fn="(el) => pageGlobal + el.expando", ref=forms.ref("button", "Count")
    )
    assert result["result"] == "gx"


def test_a_page_that_patches_element_prototypes_cannot_mislead_the_click(forms):
    # the checks run in clawd's world, whose prototypes the page cannot reach
    count = forms.ref("button", "Count")
    forms.value(
        "(Element.prototype.checkVisibility = () => false,"
        " Element.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0),"
        " Document.prototype.elementFromPoint = () => document.body)"
    )
    forms.act("click", ref=count)
    assert forms.value("window.count") == 1


def test_an_act_that_ends_frees_nothing_another_act_on_the_tab_still_holds(service, page):
    # the first act waits, covered, holding its element; the second lifts the cover and ends,
    # releasing its own elements (an object group of its own), and the first then clicks
    two = page("/act/two-acts.html")
    target, lift = two.ref("button", "Target"), two.ref("button", "Lift cover")
    other = service.client()
    other.start()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(other.act, "click", target_id=two.id, ref=target, timeoutMs=15000)
        wait_until(lambda: two.value("window.scrolled === true"), message="the first act's scroll")
        assert not waiting.done()
        two.act("click", ref=lift)
        waiting.result(timeout=30)
    other.close()
    assert two.value("window.clicked === true")


def test_evaluate_exception_is_400_with_the_page_message(forms):
    with pytest.raises(errors.ActEvaluateFailed) as caught:
        forms.act("evaluate", fn="() => { throw new Error('kaboom 42'); }")
    assert caught.value.http_status == 400 and "kaboom 42" in caught.value.message
    with pytest.raises(errors.ActEvaluateFailed) as caught:
        forms.act("evaluate", fn="async () => Promise.reject(new TypeError('nope'))")
    assert "TypeError: nope" in caught.value.message


def test_evaluate_that_never_settles_ends_at_its_timeout(forms):
    started = time.monotonic()
    with pytest.raises(errors.ActTimeout):
        forms.act("evaluate", fn="() => new Promise(() => {})", timeout_ms=500)
    assert time.monotonic() - started < 2.5
    assert forms.act("evaluate", fn="() => 2")["result"] == 2


def test_evaluate_whose_document_goes_away_is_409_tab_loading_not_a_cdp_error(forms):
    """The page navigates while the function runs (here the function itself leaves, then waits
    forever): Chrome answers that the context went away; the agent hears the tab is loading a new
    document (retry there), not a 502 from the DevTools layer (suite loop: an evaluate polling
    location.pathname met a beforeunload's navigation)."""
    leave = "() => new Promise(() => { location.href = '/act/dialogs.html'; })"
    with pytest.raises(errors.TabLoading) as caught:
        forms.act("evaluate", fn=leave, timeout_ms=5000)
    assert caught.value.http_status == 409 and "navigated" in caught.value.message
    forms.act("wait", url="**/act/dialogs.html", timeout_ms=5000)
    assert forms.act("evaluate", fn="() => location.pathname")["result"] == "/act/dialogs.html"


# -- settle, timeouts, closed tabs ----------------------------------------------------------------
def test_action_waits_for_the_requests_it_started(page, site):
    def slow_api(handler):
        time.sleep(0.4)
        answer(handler, body="api answered", content_type="text/plain")

    site.route("/act/slow-api", slow_api)
    p = page("/act/delayed.html")
    started = time.monotonic()
    p.act("click", ref=p.ref("button", "Fetch"))
    assert time.monotonic() - started >= 0.4
    assert p.text("status") == "api answered"


def test_click_on_a_settled_page_adds_no_fixed_wait(forms):
    count = forms.ref("button", "Count")
    forms.act("click", ref=count)
    times = []
    for _ in range(9):
        started = time.perf_counter()
        forms.act("click", ref=count)
        times.append(time.perf_counter() - started)
    assert (
        sorted(times)[4] < 0.09
    )  # the median; QUIET (0.1 s) is never paid when nothing is in flight


def test_action_on_a_hung_page_ends_at_its_timeout(page):
    p = page("/act/forms.html")
    ref = p.ref("button", "Count")
    p.act("evaluate", fn="() => { setTimeout(() => { for (;;) {} }, 0); }")
    started = time.monotonic()
    with pytest.raises(errors.ActTimeout):
        p.act("click", ref=ref, timeout_ms=800)
    assert time.monotonic() - started < 8  # resolving the ref has its own 5 s bound


def test_action_on_a_closed_or_crashed_tab_fails_fast(service, page):
    p = page("/act/forms.html")
    p.close()
    with pytest.raises(errors.TabNotFound):
        p.act("click", ref="e1")
    q = page("/act/forms.html")
    ref = q.ref("button", "Count")
    browser = service.service.runtime(None).browser
    raw = next(t for t in browser.tabs() if t.tab_id == q.id)
    try:
        raw.session.call("Page.crash", timeout=2)
    except errors.ClawdError:
        pass  # the crash takes the reply with it
    deadline = time.monotonic() + 5
    while not raw.crashed and time.monotonic() < deadline:
        time.sleep(0.05)
    started = time.monotonic()
    with pytest.raises((errors.TabCrashed, errors.TabNotFound)):
        q.act("click", ref=ref, timeout_ms=1000)
    assert time.monotonic() - started < 2


def test_close_kind_closes_the_tab(client, page):
    p = page("/index.html")
    result = p.act("close")
    assert result["closed"] is True and result["tabId"] == p.id
    assert p.id not in [t["tabId"] for t in client.tabs()["tabs"]]


# -- batch ----------------------------------------------------------------------------------------
def test_batch_runs_actions_in_order(forms):
    count = forms.ref("button", "Count")
    result = forms.act(
        "batch",
        actions=[
            {"kind": "click", "ref": count},
            {"kind": "click", "ref": count},
            {"kind": "type", "ref": forms.ref("textbox", "Name"), "text": "batched"},
            {"kind": "batch", "actions": [{"kind": "evaluate", "fn": "() => window.count"}]},
        ],
    )
    assert result["ok"] is True
    assert [r["kind"] for r in result["results"]] == ["click", "click", "type", "batch"]
    assert result["results"][3]["results"][0]["result"] == 2
    assert forms.value("document.getElementById('name').value") == "batched"


def test_batch_stops_on_error_unless_told_not_to(forms):
    count = forms.ref("button", "Count")
    steps = [{"kind": "click", "ref": forms.ref("button", "Off")}, {"kind": "click", "ref": count}]
    stopped = forms.act("batch", actions=steps)
    assert stopped["ok"] is False and len(stopped["results"]) == 1
    assert stopped["results"][0]["code"] == "ACT_ELEMENT_DISABLED"
    went_on = forms.act("batch", actions=steps, stop_on_error="false")
    assert went_on["ok"] is False and [r["ok"] for r in went_on["results"]] == [False, True]
    assert forms.text("clicks") == "clicks: 1"


def test_highlight_outlines_the_element(client, forms):
    result = client.highlight(forms.ref("button", "Count"), target_id=forms.id)
    assert result["box"]["width"] > 0
    assert forms.value("document.querySelectorAll('[data-clawd-highlight]').length") == 1
