"""Portable storage state (POST /state/save, /state/load; DESIGN §21): saved from one profile,
loaded into a fresh one whose page then sees the login cookie, localStorage and sessionStorage;
files move both ways between clawd and Playwright; a corrupt, foreign or wrongly sealed file is
a 400 that changes nothing; files are 0600 and stay under $CLAWD_HOME/state; an origin the policy
blocks is never opened."""

from __future__ import annotations

import json
import os
import stat
import uuid

import pytest

from clawd import errors
from tests.support.cli import cli_of as cli
from tests.support.page_eval import evaluate
from tests.support.site import Site, answer

LOGIN_PAGE = """<!doctype html><title>login</title><p>signed in</p><script>
localStorage.setItem('token', 'tok-42');
sessionStorage.setItem('step', 'two-factor');
</script>"""
# what a page of the site sees: the cookie the server got, and its two storages
SEEN = (
    "({cookie: document.getElementById('cookie').textContent, "
    "token: localStorage.getItem('token'), step: sessionStorage.getItem('step')})"
)


def _whoami(handler) -> None:
    cookie = handler.headers.get("Cookie", "")
    answer(handler, 200, f"<!doctype html><title>whoami</title><p id=cookie>{cookie}</p>")


@pytest.fixture
def site_login(site):
    site.route(
        "/state/login",
        lambda h: answer(
            h, 200, LOGIN_PAGE, headers={"Set-Cookie": "sid=s3cret; Path=/; HttpOnly"}
        ),
    )
    site.route("/state/whoami", _whoami)
    return site


@pytest.fixture
def fresh(client):
    """A managed profile made for the test (its own Chromium, its own empty user data)."""
    name = "fresh-" + uuid.uuid4().hex[:8]
    client.create_profile(name)
    yield name
    try:
        client.delete_profile(name, purge=True)
    except errors.ClawdError:
        pass


@pytest.fixture(scope="module")
def untouched(client):
    """A managed profile no test loads anything into: the 400s must leave it empty."""
    name = "untouched-" + uuid.uuid4().hex[:8]
    client.create_profile(name)
    yield name
    try:
        client.delete_profile(name, purge=True)
    except errors.ClawdError:
        pass


@pytest.fixture
def logged_in(client, site_login):
    """A tab of the default profile that went through the login page."""
    client.clear_cookies()
    tab = client.open(site_login.url("/state/login"))
    yield tab
    client.clear_storage("local", target_id=tab["tabId"])  # the shared profile, as found
    client.close_tab(tab["tabId"])
    client.clear_cookies()


def _seen(service, client, site, profile: str | None = None) -> dict:
    tab = client.open(site.url("/state/whoami"), profile=profile)
    try:
        if profile is None:
            return evaluate(service, client, tab["tabId"], SEEN)
        return client.evaluate(f"() => {SEEN}", target_id=tab["tabId"], profile=profile)["result"]
    finally:
        client.close_tab(tab["tabId"], profile=profile)


def test_state_saved_from_one_profile_loads_into_a_fresh_one(
    client, service, site_login, logged_in, fresh, clawd_home
):
    saved = client.save_state("login.json", target_id=logged_in["tabId"])
    path = clawd_home / "state" / "login.json"
    assert saved["path"] == str(path) and saved["cookies"] >= 1
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    document = json.loads(path.read_text())
    origin = site_login.url("").rstrip("/")
    entry = next(o for o in document["origins"] if o["origin"] == origin)
    assert {"name": "token", "value": "tok-42"} in entry["localStorage"]
    assert {"name": "step", "value": "two-factor"} in entry["sessionStorage"]
    blank = client.open("about:blank", profile=fresh)
    hits = len(site_login.hits)
    loaded = client.load_state("login.json", target_id=blank["tabId"], profile=fresh)
    assert loaded["localStorage"] == [origin] and loaded["sessionStoragePending"] == [origin]
    assert len(site_login.hits) == hits  # loading sent nothing to the site
    client.navigate(site_login.url("/state/whoami"), target_id=blank["tabId"], profile=fresh)
    seen = client.evaluate(f"() => {SEEN}", target_id=blank["tabId"], profile=fresh)["result"]
    assert seen == {"cookie": "sid=s3cret", "token": "tok-42", "step": "two-factor"}


def test_sealed_state_is_not_json_and_loads_back(
    client, service, site_login, logged_in, fresh, clawd_home
):
    saved = client.save_state("sealed.bin", encrypt=True, target_id=logged_in["tabId"])
    raw = (clawd_home / "state" / "sealed.bin").read_bytes()
    assert saved["encrypted"] is True and b"s3cret" not in raw and b"tok-42" not in raw
    assert stat.S_IMODE(os.stat(clawd_home / "state.key").st_mode) == 0o600
    loaded = client.load_state("sealed.bin", profile=fresh)
    assert loaded["encrypted"] is True
    seen = _seen(service, client, site_login, fresh)
    assert seen["cookie"] == "sid=s3cret" and seen["token"] == "tok-42"


@pytest.mark.parametrize(
    "content",
    [
        b"{not json",
        b'{"cookies": "all of them"}',
        b'{"hello": "world"}',
        b'{"cookies": [{"name": "a", "value": "1"}], "origins": []}',  # no domain nor url
        b'{"cookies": [], "origins": [{"origin": "file:///etc", "localStorage": []}]}',
        b'{"cookies": [], "origins": [{"origin": "http://a.test", "localStorage": [{"name": 1}]}]}',
        b"gAAAAABnot-a-token-of-this-key",
    ],
    ids=[
        "corrupt",
        "cookies-not-list",
        "foreign",
        "cookie-no-domain",
        "file-origin",
        "item-not-string",
        "other-key",
    ],
)
def test_corrupt_or_foreign_state_file_is_400_and_changes_nothing(
    client, untouched, clawd_home, content
):
    client.save_state("ensure-key.bin", encrypt=True)  # a key exists: "other-key" is judged by it
    good = {
        "cookies": [
            {
                "name": "kept",
                "value": "1",
                "domain": "127.0.0.1",
                "path": "/",
                "expires": -1,
                "httpOnly": False,
                "secure": False,
                "sameSite": "Lax",
            }
        ],
        "origins": [],
    }
    (clawd_home / "state" / "bad.json").write_bytes(content)
    # a file whose first half is good still changes nothing: everything is checked first
    with pytest.raises(errors.InvalidStateFile):
        client.load_state("bad.json", profile=untouched)
    mixed = {**good, "cookies": [*good["cookies"], {"name": "x"}]}
    (clawd_home / "state" / "mixed.json").write_text(json.dumps(mixed))
    with pytest.raises(errors.InvalidStateFile) as caught:
        client.load_state("mixed.json", profile=untouched)
    assert "cookies[1]" in str(caught.value)
    assert client.cookies(all=True, profile=untouched)["cookies"] == []


@pytest.mark.parametrize("path", ["../escape.json", "/etc/passwd", "link.json"])
def test_state_paths_stay_under_the_state_directory(client, clawd_home, path):
    (clawd_home / "state").mkdir(exist_ok=True)
    link = clawd_home / "state" / "link.json"
    if not link.is_symlink():
        link.symlink_to(clawd_home / "auth-token")
    with pytest.raises(errors.InvalidPath):
        client.save_state(path)
    with pytest.raises(errors.InvalidPath):
        client.load_state(path)


def test_state_origins_must_be_http_origins(client):
    with pytest.raises(errors.InvalidRequest) as caught:
        client.save_state("o.json", origins=["http://127.0.0.1:1/a/path"])
    assert "origins[0]" in str(caught.value)


# -- with Playwright ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def playwright_browser():
    api = pytest.importorskip("playwright.sync_api")
    from tests.support.browser import require_chromium

    with api.sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=require_chromium(), args=["--no-sandbox", "--disable-gpu"]
        )
        yield browser
        browser.close()


@pytest.mark.peer
def test_playwright_storage_state_loads_into_clawd(
    client, service, site_login, fresh, clawd_home, playwright_browser
):
    context = playwright_browser.new_context()
    context.new_page().goto(site_login.url("/state/login"))
    (clawd_home / "state").mkdir(exist_ok=True)
    context.storage_state(path=str(clawd_home / "state" / "from-playwright.json"))
    context.close()
    loaded = client.load_state("from-playwright.json", profile=fresh)
    assert loaded["cookies"] == 1 and loaded["encrypted"] is False
    seen = _seen(service, client, site_login, fresh)
    assert seen["cookie"] == "sid=s3cret" and seen["token"] == "tok-42"


@pytest.mark.peer
def test_clawd_storage_state_loads_into_playwright(
    client, site_login, logged_in, clawd_home, playwright_browser
):
    client.save_state("for-playwright.json", target_id=logged_in["tabId"])
    context = playwright_browser.new_context(
        storage_state=str(clawd_home / "state" / "for-playwright.json")
    )
    try:
        page = context.new_page()
        page.goto(site_login.url("/state/whoami"))
        seen = page.evaluate(SEEN)
    finally:
        context.close()
    # Playwright has no sessionStorage in its storageState: clawd's extra key is ignored
    assert seen == {"cookie": "sid=s3cret", "token": "tok-42", "step": None}


def test_state_never_opens_an_origin_the_policy_blocks(client, clawd_home):
    """127.0.0.2 is loopback the test policy does not allow: its storage is skipped, with the
    reason, and not one request reaches it (not even the favicon Chromium fetches itself)."""
    blocked = Site(host="127.0.0.2")
    try:
        origin = blocked.url("").rstrip("/")
        saved = client.save_state("blocked-save.json", origins=[origin])
        assert saved["origins"] == [] and saved["skipped"][0]["origin"] == origin
        items = [{"name": "a", "value": "b"}]
        document = {"cookies": [], "origins": [{"origin": origin, "localStorage": items}]}
        (clawd_home / "state" / "blocked-load.json").write_text(json.dumps(document))
        loaded = client.load_state("blocked-load.json")
        assert loaded["localStorage"] == [] and loaded["skipped"][0]["origin"] == origin
        assert blocked.hits == []
    finally:
        blocked.close()


def test_state_save_and_load_on_the_cli(service, client, logged_in, fresh, clawd_home):
    status, out, _ = cli(service, "state", "save", "cli.json", "--target", logged_in["tabId"])
    assert status == 0 and "cli.json" in out
    assert (clawd_home / "state" / "cli.json").exists()
    status, out, _ = cli(service, "--profile", fresh, "state", "load", "cli.json")
    assert status == 0 and "cookies: 1" in out
    status, _, err = cli(service, "state", "load", "missing.json")
    assert status != 0 and "INVALID_PATH" in err


def test_state_loads_into_a_tab_already_at_the_origin(client, site_login, logged_in, fresh):
    client.save_state("here.json", target_id=logged_in["tabId"])
    tab = client.open(site_login.url("/state/whoami"), profile=fresh)
    loaded = client.load_state("here.json", target_id=tab["tabId"], profile=fresh)
    origin = site_login.url("").rstrip("/")
    assert loaded["sessionStorage"] == [origin] and loaded["sessionStoragePending"] == []
    seen = client.evaluate(f"() => {SEEN}", target_id=tab["tabId"], profile=fresh)["result"]
    assert (seen["token"], seen["step"]) == ("tok-42", "two-factor")
