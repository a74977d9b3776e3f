"""OpenClaw's own published client (clawdbot 2026.1.24-3, tests/support/openclaw_client.py),
unmodified, against clawd (issue 36): the seeds' `browser` CLI forms and the agent tool's calls,
each checked on what the client prints, its exit status, and the page or the files after it."""

from __future__ import annotations

import json
import pathlib
import re

import pytest

from tests.support.browser import require_chromium, service_config
from tests.support.openclaw_client import OpenClawClient, require_client
from tests.support.page_eval import evaluate, wait_until
from tests.support.service import RunningService
from tests.support.site import answer

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><title>oc form</title></head>
<body>
<h1>OpenClaw forms</h1>
<p id="status">Working...</p>
<button id="btn" onclick="document.getElementById('out').textContent = 'clicked '
  + (++window.clicks) + (event.shiftKey ? ' shift' : '')"
  ondblclick="document.getElementById('out').textContent = 'double'">Press me</button>
<p id="out"></p>
<form id="f" onsubmit="event.preventDefault();
  document.getElementById('out').textContent = 'submitted ' + this.q.value">
<label>Query <input id="q" name="q"></label>
<label>Name <input id="name" name="name"></label>
<label>Agree <input id="agree" type="checkbox"></label>
<label>Choice <select id="choice" multiple>
  <option>OptionA</option><option>OptionB</option><option>OptionC</option></select></label>
<button type="submit">Send</button>
</form>
<label>Document <input id="file" type="file" onchange="document.getElementById('chosen')
  .textContent = 'chosen ' + Array.from(this.files).map(f => f.name).join(',')"></label>
<button id="pick" onclick="document.getElementById('file').click()">Choose file</button>
<p id="chosen"></p>
<button onclick="document.getElementById('answer').textContent = String(prompt('Name?'))"
  >Ask name</button>
<button onclick="document.getElementById('answer').textContent = String(confirm('Sure?'))"
  >Confirm it</button>
<p id="answer"></p>
<a href="/oc/report.txt" download="report.txt">Get report</a>
<div class="my-class" onclick="this.textContent = 'my-class clicked'">my class</div>
<p id="hov" onmouseover="this.textContent = 'hovered'">Hover target</p>
<div draggable="true" ondragstart="event.dataTransfer.setData('text', 'x')">Drag source</div>
<div id="drop" ondragover="event.preventDefault()"
  ondrop="event.preventDefault(); this.textContent = 'dropped'">Drop target</div>
<iframe id="inner" srcdoc="<button>Inner button</button>"></iframe>
<div style="height: 3000px"></div>
<button onclick="this.textContent = 'far clicked'">Far button</button>
<script>
window.clicks = 0;
setTimeout(() => {
  document.getElementById('status').textContent = 'Done'; window.ready = true;
}, 300);
console.error('oc console error');
</script>
</body></html>"""
REPORT = b"report body\n"


@pytest.fixture(scope="module")
def oc(site, tmp_path_factory):
    """One service for the module and the client pointed at it through its config file."""
    require_chromium()
    root = require_client()
    site.route("/oc/page.html", lambda h: answer(h, 200, PAGE))
    site.route("/oc/api/data", lambda h: answer(h, 200, '{"n": 7}', "application/json"))
    site.route("/oc/report.txt", lambda h: answer(h, 200, REPORT, "text/plain"))
    home = tmp_path_factory.mktemp("openclaw-client")
    uploads = home / "openclaw" / "uploads"  # as OpenClaw's users keep them: an upload root
    uploads.mkdir(parents=True, mode=0o700)
    extra = {"browser": {"uploadRoots": [str(uploads)]}}
    running = RunningService(service_config(home / "clawd", extra=extra))
    client = OpenClawClient(running.url, running.token, home / "user", root=root)
    try:
        yield Session(running, client, site)
    finally:
        client.close()
        running.close()


class Session:
    def __init__(self, running, client, site):
        self.running, self.client, self.site = running, client, site
        self.own = running.client()  # clawd's own client, to look at the page

    def ok(self, *argv: str) -> str:
        """`clawdbot browser ARGV`, which must exit 0 and print no `undefined`; its output."""
        ran = self.client.browser(*argv)
        assert ran.code == 0, (argv, ran)
        assert "undefined" not in ran.out and "[object Object]" not in ran.out, ran.out
        return ran.out

    def page(self, expression: str, tab: str):
        return evaluate(self.running, self.own, tab, expression)

    def shown(self, tab: str, css: str) -> str:
        return self.page(f"document.querySelector({css!r}).textContent", tab)


def opened(oc) -> tuple[str, str, dict]:
    """The form page opened by the client (its current tab): tab id, target id, refs by name."""
    shown = oc.ok("open", oc.site.url("/oc/page.html"))
    target = re.search(r"id: (\w+)", shown).group(1)
    tab = next(t["tabId"] for t in oc.own.tabs()["tabs"] if t["targetId"] == target)
    wait_until(lambda: oc.page("window.ready === true", tab), message="the page's timer")
    return tab, target, refs_by_name(oc.ok("snapshot"))


@pytest.fixture
def page(oc):
    """A fresh form page for forms that change it; (tab id, refs by name)."""
    tab, target, refs = opened(oc)
    yield tab, refs
    oc.client.browser("close", target)


@pytest.fixture(scope="module")
def still_page(oc):
    tab, target, refs = opened(oc)
    yield tab, target, refs
    oc.client.browser("close", target)


@pytest.fixture
def still(oc, still_page):
    """One form page, focused again, for forms that only read it; (tab id, refs by name)."""
    tab, target, refs = still_page
    oc.ok("focus", target)
    return tab, refs


def refs_by_name(snapshot: str) -> dict[str, str]:
    """Each element's ref by its accessible name, else its text (`- paragraph [ref=e3]: Done`)."""
    refs = {}
    for line in snapshot.splitlines():
        found = re.match(r'\s*- \w+(?: "([^"]*)")?.*?\[ref=(e\d+)\][^:]*:?(?: (.+))?$', line)
        if found:
            refs.setdefault(found.group(1) or found.group(3) or "", found.group(2))
    return refs


# -- status and profiles --------------------------------------------------------------------------
@pytest.mark.parametrize("form", [["status"], ["--json", "status"], ["--url", "{url}", "status"]])
def test_status_prints_where_the_service_and_its_browser_are(oc, form):
    out = oc.ok(*[arg.format(url=oc.running.url) for arg in form])
    status = oc.own.status()
    port = status["cdpPort"]
    if "--json" in form:
        shown = json.loads(out)
        assert shown["controlUrl"] == oc.running.url
        assert shown["cdpUrl"] == f"http://127.0.0.1:{port}"
        return
    assert f"controlUrl: {oc.running.url}" in out and f"cdpUrl: http://127.0.0.1:{port}" in out
    assert f"cdpPort: {port}" in out and "profile: clawd" in out


def test_create_profile_prints_the_name_port_and_color_and_delete_profile_the_name(oc):
    made = oc.ok("create-profile", "--name", "work")
    port = next(p["cdpPort"] for p in oc.own.profiles()["profiles"] if p["name"] == "work")
    assert 'Created profile "work"' in made and f"port: {port}" in made
    colored = oc.ok("create-profile", "--name", "work2", "--color", "#0066CC")
    assert 'Created profile "work2"' in colored and "color: #0066CC" in colored
    remote = oc.ok("create-profile", "--name", "remote", "--cdp-url", "http://127.0.0.1:9")
    assert 'Created profile "remote"' in remote
    assert "profile: work" in oc.ok("--browser-profile", "work", "status")
    assert "No tabs" in oc.ok("--browser-profile", "work", "tabs")
    assert re.search(r"^work2: stopped", oc.ok("profiles"), re.M)
    for name in ("work", "work2", "remote"):
        assert f'Deleted profile "{name}"' in oc.ok("delete-profile", "--name", name)
    assert {"work", "work2", "remote"}.isdisjoint(p["name"] for p in oc.own.profiles()["profiles"])


# -- tabs -----------------------------------------------------------------------------------------
def test_tab_forms_open_select_focus_and_close_tabs(oc, page):
    tab, _ = page
    before = {t["targetId"] for t in oc.own.tabs()["tabs"]}
    assert "oc form" in oc.ok("tabs") and "oc form" in oc.ok("tab")
    assert "opened new tab" in oc.ok("tab", "new")
    fresh = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["targetId"] not in before)
    listed = oc.ok("tab")
    index = re.search(rf"(\d+)\. .*\n.*\n\s+id: {fresh}", listed).group(1)
    assert f"selected tab {index}" in oc.ok("tab", "select", index)
    target = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["tabId"] == tab)
    oc.ok("focus", target[:8])
    assert "closed tab" in oc.ok("tab", "close", index)
    assert fresh not in {t["targetId"] for t in oc.own.tabs()["tabs"]}
    oc.ok("tab", "new")
    other = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["targetId"] not in before)
    assert "closed tab" in oc.ok("close", other)
    assert other not in {t["targetId"] for t in oc.own.tabs()["tabs"]}
    oc.ok("focus", target[:8])  # navigate acts on the tab focused last
    navigated = oc.ok("navigate", oc.site.url("/index.html"))
    assert "/index.html" in navigated
    assert oc.page("location.pathname", tab) == "/index.html"


# -- snapshot and screenshot ----------------------------------------------------------------------
SNAPSHOTS = [
    (["snapshot"], 'button "Press me"'),
    (["snapshot", "--format", "aria", "--limit", "200"], "RootWebArea"),
    (["snapshot", "--format", "aria", "--limit", "5"], "OpenClaw forms"),
    (["snapshot", "--interactive", "--compact", "--depth", "6"], 'textbox "Query"'),
    (["snapshot", "--efficient"], 'button "Press me"'),
    (["snapshot", "--mode", "efficient"], 'button "Press me"'),
    (["snapshot", "--limit", "5"], "OpenClaw forms"),
    (["snapshot", "--labels"], 'button "Press me"'),
    (["snapshot", "--selector", "#f", "--interactive"], 'textbox "Query"'),
    (["snapshot", "--frame", "iframe#inner", "--interactive"], 'button "Inner button"'),
]


@pytest.mark.parametrize("form, shown", SNAPSHOTS, ids=[" ".join(f) for f, _ in SNAPSHOTS])
def test_snapshot_forms_print_the_page(oc, still, form, shown):
    out = oc.ok(*form)
    assert shown in out
    if "--selector" in form or "--frame" in form:
        assert "Press me" not in out  # only the part asked for
    if "aria" in form and "5" in form:
        assert len(out.strip().splitlines()) <= 5


def test_snapshot_out_and_json_forms(oc, still, tmp_path):
    out = tmp_path / "snap.txt"
    assert str(out) in oc.ok("snapshot", "--out", str(out))
    assert 'button "Press me"' in out.read_text()
    shown = json.loads(oc.ok("--json", "snapshot", "--interactive"))
    assert 'button "Press me"' in shown["snapshot"]
    aria = json.loads(oc.ok("--json", "snapshot", "--format", "aria", "--limit", "3"))
    assert len(aria["nodes"]) <= 3


SCREENSHOTS = [
    ["screenshot"],
    ["screenshot", "--full-page"],
    ["screenshot", "--ref", "{button}"],
    ["screenshot", "--ref", "{number}"],
    ["screenshot", "--element", "#btn"],
    ["screenshot", "--type", "jpeg"],
    ["screenshot", "{target}"],
    ["--json", "screenshot"],
]


@pytest.mark.parametrize("form", SCREENSHOTS, ids=[" ".join(f) for f in SCREENSHOTS])
def test_screenshot_forms_write_an_image_the_client_names(oc, still, form):
    tab, refs = still
    button = refs["Press me"]
    target = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["tabId"] == tab)
    argv = [a.format(button=button, number=button[1:], target=target) for a in form]
    out = oc.ok(*argv)
    path = json.loads(out)["path"] if "--json" in form else out.strip().removeprefix("MEDIA:")
    data = pathlib.Path(path).read_bytes()
    magic = b"\xff\xd8" if "jpeg" in form else b"\x89PNG"
    assert data.startswith(magic)


# -- acting on the page ---------------------------------------------------------------------------
ACTS = [
    (["click", "{btn}"], "#out", "clicked 1"),
    (["click", "{btn_number}"], "#out", "clicked 1"),
    (["click", "{btn}", "--double"], "#out", "double"),
    (["click", "{btn}", "--button", "left", "--modifiers", "Shift"], "#out", "clicked 1 shift"),
    (["type", "{query}", "hello", "--submit"], "#out", "submitted hello"),
    (["hover", "{hover}"], "#hov", "hovered"),
    (["scrollintoview", "{far}"], None, None),
    (["highlight", "{btn}"], None, None),
    (["drag", "{source}", "{drop}"], "#drop", "dropped"),
]


@pytest.mark.parametrize("form, where, shows", ACTS, ids=[" ".join(f) for f, _, _ in ACTS])
def test_act_forms_change_the_page(oc, page, form, where, shows):
    tab, refs = page
    names = {
        "btn": refs["Press me"],
        "btn_number": refs["Press me"][1:],
        "query": refs["Query"],
        "hover": refs["Hover target"],
        "far": refs["Far button"],
        "source": refs["Drag source"],
        "drop": refs["Drop target"],
    }
    oc.ok(*[a.format(**names) for a in form])
    if where is not None:
        wait_until(lambda: oc.shown(tab, where) == shows)
    elif form[0] == "scrollintoview":
        assert oc.page("window.scrollY", tab) > 1000


def test_type_slowly_press_select_and_fill_set_the_fields(oc, page):
    tab, refs = page
    oc.ok("type", refs["Name"], "Ada", "--slowly")
    assert oc.page("document.getElementById('name').value", tab) == "Ada"
    oc.ok("type", refs["Query"], "via enter")
    oc.ok("press", "Enter")
    wait_until(lambda: oc.shown(tab, "#out") == "submitted via enter")
    assert "OptionA, OptionB" in oc.ok("select", refs["Choice"], "OptionA", "OptionB")
    chosen = "Array.from(document.getElementById('choice').selectedOptions).map(o => o.text)"
    assert oc.page(chosen, tab) == ["OptionA", "OptionB"]
    name, agree = refs["Name"], refs["Agree"]
    fields = [
        {"ref": name, "type": "text", "value": "Grace"},
        {"ref": agree, "type": "checkbox", "value": True},
    ]
    oc.ok("fill", "--fields", json.dumps(fields))
    assert oc.page("[document.getElementById('name').value, agree.checked]", tab) == [
        "Grace",
        True,
    ]
    oc.ok("fill", "--fields", json.dumps([{"ref": name[1:], "type": "text", "value": "Ada"}]))
    assert oc.page("document.getElementById('name').value", tab) == "Ada"


# -- uploads, dialogs, downloads ------------------------------------------------------------------
@pytest.mark.parametrize("how", ["arm-then-click", "--ref", "--input-ref", "--element"])
def test_upload_forms_give_the_page_a_file_from_the_uploads_folder(oc, page, how):
    tab, refs = page
    uploads = oc.running.service.layout.uploads
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / "upload.txt").write_text("to upload")
    path = str(uploads / "upload.txt")
    if how == "arm-then-click":
        assert "upload armed" in oc.ok("upload", path)
        oc.ok("click", refs["Choose file"])
    elif how == "--ref":
        oc.ok("upload", path, "--ref", refs["Choose file"])
    elif how == "--input-ref":
        oc.ok("upload", path, "--input-ref", refs["Document"])
    else:
        oc.ok("upload", path, "--element", "#file")
    chosen = "document.getElementById('chosen').textContent"
    wait_until(lambda: oc.page(chosen, tab) == "chosen upload.txt")


def test_upload_gives_the_page_a_file_from_a_configured_upload_root(oc, page):
    tab, refs = page
    root = oc.running.config.browser.upload_roots[0]
    path = f"{root}/file.pdf"
    with open(path, "wb") as out:
        out.write(b"%PDF-1.4\n")
    oc.ok("upload", path, "--ref", refs["Choose file"])
    wait_until(lambda: oc.shown(tab, "#chosen") == "chosen file.pdf")


@pytest.mark.parametrize(
    "form, button, shows",
    [
        (["dialog", "--accept"], "Confirm it", "true"),
        (["dialog", "--dismiss"], "Confirm it", "false"),
        (["dialog", "--accept", "--prompt", "Bob"], "Ask name", "Bob"),
    ],
)
def test_dialog_forms_answer_the_next_dialog(oc, page, form, button, shows):
    tab, refs = page
    assert "dialog armed" in oc.ok(*form)
    oc.ok("click", refs[button])
    wait_until(lambda: oc.page("document.getElementById('answer').textContent", tab) == shows)


def test_download_replaces_a_file_of_the_name_asked_for(oc, page):
    _, refs = page
    downloads = oc.running.service.layout.downloads
    link = refs["Get report"]
    for _ in range(2):  # the second time the file is there: replaced, not "report (1).txt"
        out = oc.ok("download", link, "report.txt")
        assert out.strip() == f"downloaded: {downloads / 'report.txt'}"
    assert (downloads / "report.txt").read_bytes() == REPORT
    assert not list(downloads.glob("report (*"))


def test_waitfordownload_saves_the_next_download_under_the_name(oc, page):
    tab, _ = page
    downloads = oc.running.service.layout.downloads
    oc.page("setTimeout(() => document.querySelector('a[download]').click(), 300) && 1", tab)
    out = oc.ok("waitfordownload", "report2.txt")
    assert out.strip() == f"downloaded: {downloads / 'report2.txt'}"
    assert (downloads / "report2.txt").read_bytes() == REPORT


# -- waiting and reading --------------------------------------------------------------------------
WAITS = [
    ["wait", "--text", "Done"],
    ["wait", "--text-gone", "Working..."],
    ["wait", "#btn"],
    ["wait", "--time", "300"],
    ["wait", "--fn", "window.ready===true"],
    ["wait", "--load", "networkidle"],
]


@pytest.mark.parametrize("form", WAITS, ids=[" ".join(f) for f in WAITS])
def test_wait_forms_end_when_the_page_is_ready(oc, still, form):
    assert "wait complete" in oc.ok(*form)


def test_a_wait_that_times_out_exits_1_with_the_reason(oc, still):
    ran = oc.client.browser("wait", "--text", "NeverAppears", "--timeout-ms", "1000")
    assert ran.code == 1 and "ACT_TIMEOUT" in ran.err


def test_evaluate_forms_print_the_value(oc, page):
    tab, refs = page
    fn = "(el) => el.textContent"
    assert oc.ok("evaluate", "--fn", fn, "--ref", refs["Press me"]).strip() == '"Press me"'
    oc.ok("evaluate", "--fn", "document.querySelector('.my-class').click()")
    assert oc.page("document.querySelector('.my-class').textContent", tab) == "my-class clicked"
    shown = json.loads(oc.ok("evaluate", "--fn", "() => ({href: location.href, n: 1 + 1})"))
    assert shown == {"href": oc.site.url("/oc/page.html"), "n": 2}
    assert json.loads(oc.ok("--json", "evaluate", "--fn", "() => 42"))["result"] == 42


def test_console_errors_and_requests_forms_print_what_the_page_did(oc, page):
    tab, _ = page
    assert "oc console error" in oc.ok("console", "--level", "error")
    assert "oc console error" in oc.ok("console")
    oc.page("setTimeout(() => { throw new Error('oc page error') }, 0) && 1", tab)
    wait_until(lambda: "oc page error" in oc.ok("errors"))
    oc.ok("errors", "--clear")
    assert "oc page error" not in oc.ok("errors")
    oc.page("fetch('/oc/api/data?event=1').then(r => r.status)", tab)
    assert "/oc/api/data?event=1" in oc.ok("requests", "--filter", "event")
    oc.ok("requests", "--clear")
    assert "/oc/api/data?event=1" not in oc.ok("requests")


def test_responsebody_prints_the_body_of_the_next_matching_response(oc, page):
    tab, _ = page
    # the page reads each body: clawd's wait ends at loadingFinished, which Chromium sends for
    # a fetch only once its body is read (OpenClaw's server, on Playwright, at the headers)
    poll = "setInterval(() => fetch('/oc/api/data').then(r => r.text()), 200)"
    oc.page(f"(window.poll = {poll}) && 1", tab)
    out = oc.ok("responsebody", "**/api/data", "--max-chars", "200")
    oc.page("clearInterval(window.poll) || 1", tab)
    assert '{"n": 7}' in out


def test_pdf_and_trace_forms_write_files_the_client_names(oc, still):
    pdf = oc.ok("pdf").strip().removeprefix("PDF:").strip()
    assert pathlib.Path(pdf).read_bytes().startswith(b"%PDF")
    assert "trace started" in oc.ok("trace", "start")
    trace = oc.ok("trace", "stop").strip().removeprefix("TRACE:")
    assert pathlib.Path(trace).is_file()


# -- state and settings ---------------------------------------------------------------------------
def test_cookie_and_storage_forms_read_and_write_the_page_state(oc, page):
    tab, _ = page
    assert oc.ok("cookies").strip() == "[]"
    assert json.loads(oc.ok("--json", "cookies"))["cookies"] == []
    oc.page("(document.cookie = 'session=abc123; path=/') && 1", tab)
    assert "abc123" in oc.ok("cookies")
    oc.ok("cookies", "clear")
    assert oc.page("document.cookie", tab) == ""
    oc.ok("storage", "local", "set", "theme", "dark")
    assert oc.page("localStorage.getItem('theme')", tab) == "dark"
    assert json.loads(oc.ok("storage", "local", "get")) == {"theme": "dark"}
    assert json.loads(oc.ok("storage", "local", "get", "theme")) == {"theme": "dark"}
    oc.ok("storage", "local", "clear")
    assert oc.page("localStorage.length", tab) == 0
    oc.ok("storage", "session", "set", "k", "v")
    assert json.loads(oc.ok("storage", "session", "get")) == {"k": "v"}
    oc.ok("storage", "session", "clear")
    assert oc.page("sessionStorage.length", tab) == 0


SETTINGS = [
    (["set", "offline", "on"], "navigator.onLine", False),
    (["set", "offline", "off"], "navigator.onLine", True),
    (["set", "media", "dark"], "matchMedia('(prefers-color-scheme: dark)').matches", True),
    (["set", "media", "light"], "matchMedia('(prefers-color-scheme: light)').matches", True),
    (["set", "media", "none"], "matchMedia('(prefers-color-scheme: dark)').matches", False),
    (
        ["set", "timezone", "America/New_York"],
        "Intl.DateTimeFormat().resolvedOptions().timeZone",
        "America/New_York",
    ),  # noqa: E501
    (["set", "locale", "de-DE"], "navigator.language", "de-DE"),
    (["set", "locale", "en-US"], "navigator.language", "en-US"),
    (["set", "viewport", "1024", "700"], "[innerWidth, innerHeight]", [1024, 700]),
    (["set", "device", "iPhone 14"], "navigator.userAgent.includes('iPhone')", True),
    (["resize", "1280", "720"], "[innerWidth, innerHeight]", [1280, 720]),
    (["set", "credentials", "user", "pass"], None, None),
    (["set", "credentials", "--clear"], None, None),
    (["set", "geo", "37.7749", "-122.4194", "--origin", "{origin}"], None, None),
    (["set", "geo", "--clear"], None, None),
]


@pytest.mark.parametrize(
    "form, expression, value", SETTINGS, ids=[" ".join(f) for f, _, _ in SETTINGS]
)
def test_set_forms_change_what_the_page_sees(oc, page, form, expression, value):
    tab, _ = page
    oc.ok(*[a.format(origin=oc.site.url("").rstrip("/")) for a in form])
    if expression is not None:
        wait_until(lambda: oc.page(expression, tab) == value, message=lambda: form)


# -- forms the client itself cannot send ----------------------------------------------------------
@pytest.mark.parametrize(
    "form, said",
    [
        # its `browser --url` (the control URL) takes these `--url`s, and `--json` the headers
        (["cookies", "set", "session", "abc123", "--url", "{site}"], "required option '--url"),
        (["set", "headers", "--json", '{"X-Debug":"1"}'], "required option '--json"),
        (["wait", "#btn", "--url", "**/page.html", "--timeout-ms", "15000"], "Failed to parse"),
        (["fill", "--fields", '[{"ref": "8", "value": "Ada"}]'], "must include ref and type"),
    ],
)
def test_forms_the_client_refuses_itself_never_reach_the_service(oc, form, said):
    ran = oc.client.browser(*[a.replace("{site}", oc.site.url("/")) for a in form])
    assert ran.code == 1 and said in ran.err, ran


# -- the agent tool -------------------------------------------------------------------------------
def test_agent_tool_calls_reach_clawd_and_change_the_page(oc):
    assert oc.client.tool(action="status").details["controlUrl"] == oc.running.url
    assert oc.client.tool(action="start").details["running"] is True
    names = {p["name"] for p in oc.client.tool(action="profiles").details["profiles"]}
    assert "clawd" in names
    opened = oc.client.tool(action="open", targetUrl=oc.site.url("/oc/page.html")).details
    target = opened["targetId"]
    tab = opened["tabId"]
    try:
        assert target in {t["targetId"] for t in oc.client.tool(action="tabs").details["tabs"]}
        oc.client.tool(action="focus", targetId=target)
        wait_until(lambda: oc.page("window.ready === true", tab))
        shot = oc.client.tool(action="snapshot", targetId=target, interactive=True)
        ref = re.search(r'button "Press me" \[ref=(e\d+)\]', shot.text).group(1)
        oc.client.tool(action="act", targetId=target, request={"kind": "click", "ref": ref})
        assert oc.page("document.getElementById('out').textContent", tab) == "clicked 1"
        query = re.search(r'textbox "Query" \[ref=(e\d+)\]', shot.text).group(1)
        oc.client.tool(
            action="act",
            targetId=target,
            request={"kind": "type", "ref": query, "text": "agent", "submit": True},
        )
        wait_until(lambda: oc.shown(tab, "#out") == "submitted agent")
        image = oc.client.tool(action="screenshot", targetId=target)
        assert any(c.get("type") == "image" for c in image.result["content"])
        messages = oc.client.tool(action="console", targetId=target).details
        assert "oc console error" in json.dumps(messages)
        pdf = oc.client.tool(action="pdf", targetId=target)
        assert pathlib.Path(pdf.details["path"]).read_bytes().startswith(b"%PDF")
        navigated = oc.client.tool(
            action="navigate", targetId=target, targetUrl=oc.site.url("/index.html")
        )
        assert navigated.code == 0 and oc.page("location.pathname", tab) == "/index.html"
    finally:
        oc.client.tool(action="close", targetId=target)
    assert target not in {t["targetId"] for t in oc.own.tabs()["tabs"]}


AGENT_ACTS = [
    ({"kind": "click", "ref": "Press me", "doubleClick": True}, "#out", "double"),
    ({"kind": "hover", "ref": "Hover target"}, "#hov", "hovered"),
    ({"kind": "press", "key": "Enter", "ref": "Query"}, "#out", "submitted "),
    ({"kind": "select", "ref": "Choice", "values": ["OptionB"]}, "#choice", None),
    ({"kind": "fill", "fields": [{"ref": "Name", "type": "text", "value": "Lin"}]}, "#name", None),
    ({"kind": "evaluate", "fn": "() => { document.title = 'agent' }"}, "title", "agent"),
    ({"kind": "wait", "text": "Done"}, "#status", "Done"),
    ({"kind": "resize", "width": 900, "height": 600}, None, None),
]


@pytest.mark.parametrize(
    "request_, where, shows", AGENT_ACTS, ids=[a["kind"] for a, _, _ in AGENT_ACTS]
)
def test_agent_tool_act_kinds_change_the_page(oc, page, request_, where, shows):
    tab, refs = page
    target = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["tabId"] == tab)
    asked = dict(request_)
    if "ref" in asked:
        asked["ref"] = refs[asked["ref"]]
    if "fields" in asked:
        asked["fields"] = [{**f, "ref": refs[f["ref"]]} for f in asked["fields"]]
    done = oc.client.tool(action="act", targetId=target, request=asked)
    assert done.code == 0, done
    if asked["kind"] == "select":
        assert (
            oc.page("document.getElementById('choice').selectedOptions[0].text", tab) == "OptionB"
        )
    elif asked["kind"] == "fill":
        assert oc.page("document.getElementById('name').value", tab) == "Lin"
    elif asked["kind"] == "resize":
        assert oc.page("[innerWidth, innerHeight]", tab) == [900, 600]
    else:
        wait_until(lambda: oc.shown(tab, where) == shows)


def test_agent_tool_upload_and_dialog_calls(oc, page):
    tab, refs = page
    target = next(t["targetId"] for t in oc.own.tabs()["tabs"] if t["tabId"] == tab)
    uploads = oc.running.service.layout.uploads
    uploads.mkdir(parents=True, exist_ok=True)
    (uploads / "agent.txt").write_text("from the agent")
    armed = oc.client.tool(
        action="upload",
        targetId=target,
        paths=[str(uploads / "agent.txt")],
        ref=refs["Choose file"],
    )
    assert armed.code == 0, armed
    wait_until(lambda: oc.shown(tab, "#chosen") == "chosen agent.txt")
    answered = oc.client.tool(action="dialog", targetId=target, accept=True, promptText="Ann")
    assert answered.code == 0, answered
    oc.client.tool(
        action="act", targetId=target, request={"kind": "click", "ref": refs["Ask name"]}
    )
    wait_until(lambda: oc.shown(tab, "#answer") == "Ann")


# -- last: stopping and resetting the browser -----------------------------------------------------
def test_stop_start_and_reset_profile_forms(oc):
    assert "running: false" in oc.ok("stop")
    assert oc.own.status()["running"] is False
    oc.ok("start")
    assert oc.own.status()["running"] is True
    user_data = oc.running.service.runtime("clawd").user_data_dir
    reset = oc.ok("reset-profile")
    assert "moved to Trash" in reset and not user_data.exists()
