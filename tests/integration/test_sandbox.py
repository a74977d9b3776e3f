"""Sandbox profiles against a real dockerd (DESIGN.md §14): a profile whose Chromium runs in a
container goes through the same flow as a managed one; its container's lifecycle, labels, limits
and mounts; faults; and both observe paths watched from a second real Chromium.

Test pages are served on the sandbox network's gateway address, which the container reaches."""

from __future__ import annotations

import json
import os
import pathlib
import time

import pytest

from clawd import errors
from clawd.sandbox import container as sbx
from tests.support.browser import service_config
from tests.support.docker import gateway_of, require_docker
from tests.support.service import RunningService
from tests.support.site import Site, answer
from tests.support.viewer import PIXEL_OF, Viewer

pytestmark = [pytest.mark.chromium, pytest.mark.timeout(300)]

NETWORK = "clawd-sandbox-test"
PROFILE = f"sbxt{os.getpid() % 100000}"

FORM = """<!doctype html><title>Sandbox form</title>
<h1>Sandbox form</h1>
<button onclick="out.textContent='clicked'; console.log('sandbox-log')">Press</button>
<p id="out">idle</p>
<label>Document <input type="file" id="f"></label>
<a href="/sbx/file.bin">Get file</a>
<script>document.cookie = "seen=yes; path=/";</script>"""
PAYLOAD = bytes(range(256)) * 64


def color_page(color: str) -> str:
    return f"<!doctype html><title>{color}</title><body style='margin:0;background:{color}'>"


@pytest.fixture(scope="module")
def docker_client():
    return require_docker()


@pytest.fixture(scope="module")
def gateway(docker_client):
    return gateway_of(docker_client, NETWORK)


@pytest.fixture(scope="module")
def sbx_site(gateway):
    site = Site(host=gateway)
    site.route("/sbx/form.html", lambda h: answer(h, body=FORM))
    site.route("/sbx/red.html", lambda h: answer(h, body=color_page("#ff0000")))
    site.route("/sbx/blue.html", lambda h: answer(h, body=color_page("#0000ff")))
    site.route(
        "/sbx/file.bin",
        lambda h: answer(
            h,
            body=PAYLOAD,
            content_type="application/octet-stream",
            headers={"Content-Disposition": 'attachment; filename="sandboxed.bin"'},
        ),
    )
    yield site
    site.close()


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    return tmp_path_factory.mktemp("sandbox-home")


@pytest.fixture(scope="module")
def running(docker_client, gateway, home):
    (home / "workspaces" / "shared").mkdir(parents=True)
    (home / "workspaces" / "shared" / "note.txt").write_text("from the host")
    # headful Chromium under Xvfb answered /json/version up to 9 s after a container start here
    # at load 32 on 2 cores (five helpers' suites at once); the 10 s default is for a machine of
    # its own
    sandbox = {
        "network": NETWORK,
        "workspace": {"path": "shared", "access": "ro"},
        "autoStartTimeoutMs": 30000,
    }
    config = service_config(home)
    data = {
        "server": {"host": "127.0.0.1", "port": config.server.port},
        "browser": {
            "headless": True,
            "extraArgs": list(config.browser.extra_args),
            "executablePath": config.browser.executable_path,
            "ssrfPolicy": {"allowedHostnames": ["127.0.0.1", gateway]},
            "profiles": {
                "clawd": {"cdpPort": config.browser.profiles["clawd"].cdp_port},
                PROFILE: {"driver": "sandbox", "sandbox": sandbox},
            },
        },
    }
    from clawd.config.loader import config_from_data

    service = RunningService(config_from_data(data, env={"CLAWD_HOME": str(home)}))
    yield service
    service.close()
    _remove(docker_client, sbx.container_name(PROFILE))


@pytest.fixture(scope="module")
def client(running):
    c = running.client()
    yield c
    c.close()


def _remove(docker_client, name: str) -> None:
    import docker.errors

    try:
        docker_client.containers.get(name).remove(force=True)
    except docker.errors.NotFound:
        pass


def _container(docker_client):
    return docker_client.containers.get(sbx.container_name(PROFILE))


def _ref(snapshot: dict, role: str, name: str) -> str:
    for ref, info in snapshot["refs"].items():
        if info["role"] == role and info["name"] == name:
            return ref
    raise AssertionError(f"no {role} {name!r} in:\n{snapshot['snapshot']}")


# -- the managed flow, on a sandbox profile --------------------------------------------------------
def test_sandbox_profile_runs_the_same_flow_as_a_managed_one(client, sbx_site, running):
    status = client.start(profile=PROFILE)
    assert status.get("ok", True)
    tab = client.open(sbx_site.url("/sbx/form.html"), profile=PROFILE)
    tid = tab["tabId"]
    assert [t["tabId"] for t in client.tabs(profile=PROFILE)["tabs"]].count(tid) == 1

    snap = client.snapshot(profile=PROFILE, target_id=tid)
    assert 'heading "Sandbox form"' in snap["snapshot"], snap["snapshot"]
    client.act("click", ref=_ref(snap, "button", "Press"), target_id=tid, profile=PROFILE)
    seen = client.act(
        "evaluate",
        fn="() => document.getElementById('out').textContent",
        target_id=tid,
        profile=PROFILE,
    )
    assert seen["result"] == "clicked", seen
    # the page runs in the container: its user agent's platform is the container's Linux
    assert (
        "Linux" in client.act("evaluate", fn="() => navigator.userAgent", profile=PROFILE)["result"]
    )

    shot = client.screenshot(target_id=tid, profile=PROFILE)
    assert pathlib.Path(shot["path"]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", shot
    pdf = client.pdf(target_id=tid, profile=PROFILE)
    assert pathlib.Path(pdf["path"]).read_bytes()[:5] == b"%PDF-", pdf

    messages = client.console(target_id=tid, profile=PROFILE)["messages"]
    assert any("sandbox-log" in m["text"] for m in messages), messages
    reqs = client.requests(target_id=tid, profile=PROFILE)["requests"]
    assert any(r["url"].endswith("/sbx/form.html") for r in reqs), reqs
    cookies = client.cookies(target_id=tid, profile=PROFILE)["cookies"]
    assert {"seen": "yes"}.items() <= {c["name"]: c["value"] for c in cookies}.items(), cookies

    # the navigation policy applies to the sandbox's tabs too
    with pytest.raises(errors.NavigationBlocked):
        client.navigate("http://169.254.169.254/latest/meta-data", target_id=tid, profile=PROFILE)


def test_uploads_go_into_the_container_and_downloads_come_back(
    client, sbx_site, running, home, docker_client
):
    tab = client.open(sbx_site.url("/sbx/form.html"), profile=PROFILE)
    tid = tab["tabId"]
    upload = home / "uploads" / "hello.txt"
    upload.write_text("hello from the host")
    snap = client.snapshot(profile=PROFILE, target_id=tid)
    client.file_chooser(
        [str(upload)], input_ref=_ref(snap, "button", "Document"), target_id=tid, profile=PROFILE
    )
    read = client.act(
        "evaluate",
        fn="async () => { const f = document.getElementById('f').files[0]; "
        "return f.name + ':' + await f.text(); }",
        target_id=tid,
        profile=PROFILE,
    )
    assert read["result"] == "hello.txt:hello from the host", read
    c = _container(docker_client)
    assert c.exec_run(["stat", "-c", "%a %U", "/tmp"]).output.strip() == b"1777 root"  # untouched

    clicked = client.act(
        "click", ref=_ref(snap, "link", "Get file"), target_id=tid, profile=PROFILE
    )
    # a download reported finished in the click's own answer is not reported again by a wait
    done = [d for d in clicked.get("downloads", []) if d["state"] == "completed"]
    item = done[0] if done else client.wait_download(20000, tid, profile=PROFILE)["download"]
    path = pathlib.Path(item["path"])
    assert path.parent == home / "downloads", item
    assert path.read_bytes() == PAYLOAD, item


# -- the container ---------------------------------------------------------------------------------
def test_container_has_its_name_labels_limits_and_loopback_only_ports(client, docker_client):
    client.start(profile=PROFILE)
    c = _container(docker_client)
    assert c.labels["clawd.profile"] == PROFILE
    assert len(c.labels["clawd.configHash"]) == 64
    assert abs(int(c.labels["clawd.createdAt"]) - time.time()) < 3600
    host = c.attrs["HostConfig"]
    assert host["Memory"] == 2 * 1024**3 and host["PidsLimit"] == 512
    assert host["ShmSize"] == 1024**3
    bindings = host["PortBindings"]
    assert list(bindings) == ["9222/tcp"], bindings  # VNC and noVNC are never published
    assert all(b["HostIp"] == "127.0.0.1" for b in bindings["9222/tcp"]), bindings
    assert NETWORK in c.attrs["NetworkSettings"]["Networks"]
    user = c.exec_run(["id", "-un"]).output.decode().strip()
    assert user == "sandbox"
    # the workspace is mounted read-only at /workspace
    assert c.exec_run(["cat", "/workspace/note.txt"]).output == b"from the host"
    assert c.exec_run(["touch", "/workspace/x"]).exit_code != 0
    status = client.status(profile=PROFILE)
    assert status["sandbox"]["state"] == "running", status


def test_cdp_refuses_other_containers_on_its_network(client, docker_client):
    client.start(profile=PROFILE)
    c = _container(docker_client)
    address = c.attrs["NetworkSettings"]["Networks"][NETWORK]["IPAddress"]
    image = c.image.id
    # another container on the same network tries the CDP port with socat (the image has it)
    probe = docker_client.containers.run(
        image,
        entrypoint=[
            "sh",
            "-c",
            f"printf 'GET /json/version HTTP/1.0\\r\\n\\r\\n' | "
            f"socat -T2 - TCP:{address}:9222,connect-timeout=3 || true",
        ],
        network=NETWORK,
        remove=True,
    )
    assert b"webSocketDebuggerUrl" not in probe, probe


def test_stop_stops_the_container_and_the_next_call_starts_it_again(client, docker_client):
    client.start(profile=PROFILE)
    client.stop(profile=PROFILE)
    c = _container(docker_client)
    assert c.status == "exited", c.status
    assert client.tabs(profile=PROFILE)["running"] is False  # listing tabs starts nothing
    snap = client.snapshot(profile=PROFILE)  # a call that needs the browser restarts it
    assert snap["ok"], snap
    assert _container(docker_client).status == "running"


def test_a_container_killed_mid_request_fails_with_a_code_and_the_next_call_restarts_it(
    client, docker_client, sbx_site
):
    client.start(profile=PROFILE)
    tab = client.open(sbx_site.url("/sbx/form.html"), profile=PROFILE)
    _container(docker_client).kill()
    with pytest.raises(errors.ClawdError) as failed:
        client.act(
            "evaluate",
            fn="() => new Promise(r => setTimeout(() => r(1), 3000))",
            target_id=tab["tabId"],
            profile=PROFILE,
        )
    assert failed.value.code in {"BROWSER_GONE", "TAB_NOT_FOUND", "CDP_TIMEOUT"}, failed.value
    deadline = time.monotonic() + 30
    while True:  # the failed start backs off for a moment; each call is answered with a code
        try:
            reopened = client.open(sbx_site.url("/sbx/form.html"), profile=PROFILE)
            break
        except errors.ClawdError as exc:
            assert exc.code in {"BROWSER_GONE", "SANDBOX_FAILED"}, exc
            assert time.monotonic() < deadline, f"the sandbox did not come back: {exc}"
            time.sleep(0.5)
    assert reopened["url"].endswith("/sbx/form.html")
    assert _container(docker_client).status == "running"


def test_a_changed_config_recreates_the_container_unless_used_in_the_hot_window(
    running, docker_client
):
    runtime = running.service.runtime(PROFILE)
    runtime.ensure()
    box = runtime.sandbox
    _with_hash_label(docker_client, _container(docker_client))  # as made by an older config
    box.last_used = time.time()  # used just now: kept, with a warning in status
    box.ensure()
    assert box.warning and "outdated" in box.warning
    assert _container(docker_client).labels["clawd.configHash"] == "0" * 64
    assert "outdated" in running.service.runtime(PROFILE).status()["sandbox"]["warning"]
    box.last_used = time.time() - sbx.HOT_WINDOW - 1  # idle past the window: recreated
    box.ensure()
    assert box.warning is None
    assert _container(docker_client).labels["clawd.configHash"] != "0" * 64
    runtime.stop()


def _with_hash_label(docker_client, container):
    """Docker cannot relabel a container: make it again with the same settings but another
    hash label."""
    attrs = container.attrs
    container.remove(force=True)
    labels = dict(attrs["Config"]["Labels"], **{"clawd.configHash": "0" * 64})
    made = docker_client.containers.create(
        attrs["Image"],
        name=attrs["Name"].lstrip("/"),
        labels=labels,
        environment=attrs["Config"]["Env"],
        ports={"9222/tcp": ("127.0.0.1", None)},
        network=NETWORK,
        shm_size="1g",
        init=True,
    )
    made.start()
    return made


# -- faults ----------------------------------------------------------------------------------------
def test_a_missing_image_answers_409_naming_the_build_command(docker_client, tmp_path):
    from clawd.config.loader import config_from_data

    data = {
        "browser": {
            "profiles": {
                "clawd": {"cdpPort": 18899},
                "noimg": {"driver": "sandbox", "sandbox": {"image": "clawd-no-such-image:0"}},
            }
        }
    }
    service = RunningService(config_from_data(data, env={"CLAWD_HOME": str(tmp_path)}))
    try:
        with service.client() as c, pytest.raises(errors.ClawdError) as failed:
            c.start(profile="noimg")
        assert failed.value.code == "SANDBOX_IMAGE_MISSING"
        assert "clawd-browser sandbox build" in str(failed.value)
    finally:
        service.close()


def test_a_workspace_outside_its_root_answers_400(docker_client, tmp_path):
    from clawd.config.loader import config_from_data

    outside = tmp_path / "outside"
    outside.mkdir()
    data = {
        "browser": {
            "profiles": {
                "clawd": {"cdpPort": 18898},
                "escape": {
                    "driver": "sandbox",
                    "sandbox": {"network": NETWORK, "workspace": {"path": str(outside)}},
                },
            }
        }
    }
    service = RunningService(config_from_data(data, env={"CLAWD_HOME": str(tmp_path / "h")}))
    try:
        with service.client() as c, pytest.raises(errors.ClawdError) as failed:
            c.start(profile="escape")
        assert failed.value.code == "SANDBOX_WORKSPACE_INVALID", failed.value
        assert getattr(failed.value, "http_status", 400) == 400
    finally:
        service.close()
        _remove(docker_client, sbx.container_name("escape"))


# -- observation ----------------------------------------------------------------------------------
@pytest.fixture
def viewer(tmp_path):
    v = Viewer(tmp_path)
    yield v
    v.close()


def _observe(running, profile: str, mode: str | None = None) -> dict:
    with running.client() as c:
        return c.observe(mode, profile=profile)


def test_screencast_observe_page_shows_the_agent_tab_changing(client, running, viewer, sbx_site):
    client.start(profile=PROFILE)
    tab = client.open(sbx_site.url("/sbx/red.html"), profile=PROFILE)
    link = _observe(running, PROFILE, "screencast")
    assert link["mode"] == "screencast" and link["url"].startswith(running.url + "/observe/")
    viewer.open(link["url"])
    pixel = PIXEL_OF % "#frame"
    viewer.wait_for(f"(p => p && p[0] > 200 && p[2] < 60)({pixel})", what="a red frame")
    client.navigate(sbx_site.url("/sbx/blue.html"), target_id=tab["tabId"], profile=PROFILE)
    viewer.wait_for(f"(p => p && p[2] > 200 && p[0] < 60)({pixel})", what="a blue frame")
    assert viewer.evaluate("window.clawdFrames") >= 2


def test_screencast_observe_works_for_a_managed_headless_profile(running, viewer, sbx_site):
    with running.client() as c:
        tab = c.open(sbx_site.url("/sbx/blue.html"))
        link = _observe(running, "clawd")
        assert link["mode"] == "screencast"
        viewer.open(link["url"])
        pixel = PIXEL_OF % "#frame"
        viewer.wait_for(f"(p => p && p[2] > 200 && p[0] < 60)({pixel})", what="a blue frame")
        c.navigate(sbx_site.url("/sbx/red.html"), target_id=tab["tabId"])
        viewer.wait_for(f"(p => p && p[0] > 200 && p[2] < 60)({pixel})", what="a red frame")


def test_vnc_observe_page_shows_the_container_screen(client, running, viewer, sbx_site, caplog):
    caplog.set_level("DEBUG")
    client.start(profile=PROFILE)
    tab = client.open(sbx_site.url("/sbx/red.html"), profile=PROFILE)
    client.focus(tab["tabId"], profile=PROFILE)
    link = _observe(running, PROFILE)
    assert link["mode"] == "vnc"
    viewer.open(link["url"])
    state = viewer.wait_for(
        "window.clawdVnc && window.clawdVnc !== 'connecting' && window.clawdVnc", what="noVNC"
    )
    assert state == "connected", state
    canvas = PIXEL_OF % "#screen canvas"
    viewer.wait_for(f"(p => p && p[0] > 200 && p[2] < 60)({canvas})", what="red on the VNC screen")
    client.navigate(sbx_site.url("/sbx/blue.html"), target_id=tab["tabId"], profile=PROFILE)
    viewer.wait_for(f"(p => p && p[2] > 200 && p[0] < 60)({canvas})", what="blue on the VNC screen")
    password = running.service.runtime(PROFILE).sandbox.vnc_password()
    assert len(password) == 8
    assert password not in link["url"] and password not in viewer.evaluate("location.href")
    assert all(password not in r.getMessage() for r in caplog.records), "the password was logged"
    assert caplog.records, "nothing was logged at all: the check above proved nothing"


def test_observe_links_are_one_time_and_guessed_ones_refused(running, client):
    import requests

    from tests.support.cli import run_cli

    client.start(profile=PROFILE)
    ran = run_cli(
        f"--url={running.url}",
        f"--token={running.token}",
        f"--browser-profile={PROFILE}",
        "observe",
        "--mode",
        "screencast",
    )
    assert ran.status == 0
    url = ran.out.splitlines()[0]
    assert url.startswith(running.url + "/observe/") and "open it once" in ran.out
    link = {"url": url}
    first = requests.get(link["url"], timeout=10)
    assert first.status_code == 200 and "clawd_observe=" in first.headers["Set-Cookie"]
    again = requests.get(link["url"], timeout=10)
    assert again.status_code == 403, again.text
    frames = requests.get(link["url"] + "frames", timeout=10)  # no cookie: nothing served
    assert frames.status_code == 403
    guessed = requests.get(running.url + "/observe/AAAAAAAAAAAAAAAAAAAAAAAAA/", timeout=10)
    assert guessed.status_code == 403


# -- CLI, doctor, other settings -------------------------------------------------------------------
def test_sandbox_cli_lists_reads_and_removes_containers(client, docker_client):
    from tests.support.cli import run_cli

    client.start(profile=PROFILE)
    built = run_cli("--json", "sandbox", "build")
    assert built.status == 0
    assert json.loads(built.out)["built"] is False  # present: reused, not rebuilt
    listed = run_cli("--json", "sandbox", "ls")
    assert listed.status == 0
    row = next(r for r in json.loads(listed.out)["containers"] if r["profile"] == PROFILE)
    assert row["state"] == "running" and row["name"] == sbx.container_name(PROFILE)
    logs = run_cli("sandbox", "logs", PROFILE)
    assert logs.status == 0 and "DevTools listening" in logs.out, logs.out[-500:]
    missing = run_cli("sandbox", "logs", "no-such-profile")
    assert missing.status == 4, missing.status
    removed = run_cli("sandbox", "rm", PROFILE)
    assert removed.status == 0 and sbx.container_name(PROFILE) in removed.out
    assert run_cli("sandbox", "rm").status == 2  # neither profiles nor --all
    assert client.snapshot(profile=PROFILE)["ok"]  # the next call makes a new one


def test_doctor_reports_the_sandbox_container(client):
    client.start(profile=PROFILE)
    checks = {c["name"]: c for c in client.doctor()["checks"]}
    assert checks["sandbox-docker"]["level"] == "ok", checks
    assert checks[f"sandbox-{PROFILE}"]["level"] == "ok", checks[f"sandbox-{PROFILE}"]


def test_a_headless_sandbox_profile_without_novnc_and_auto_start(
    docker_client, gateway, sbx_site, tmp_path
):
    from clawd.config.loader import config_from_data

    name = f"{PROFILE}-hl"
    data = {
        "browser": {
            "ssrfPolicy": {"allowedHostnames": [gateway]},
            "profiles": {
                "clawd": {"cdpPort": 18897},
                name: {
                    "driver": "sandbox",
                    "sandbox": {"network": NETWORK, "headless": True, "autoStart": False},
                },
            },
        }
    }
    service = RunningService(config_from_data(data, env={"CLAWD_HOME": str(tmp_path)}))
    try:
        with service.client() as c:
            with pytest.raises(errors.BrowserNotRunning, match="autoStart"):
                c.snapshot(profile=name)  # autoStart false: only an explicit start makes it
            c.start(profile=name)
            tab = c.open(sbx_site.url("/sbx/form.html"), profile=name)
            ua = c.act("evaluate", fn="() => navigator.userAgent", profile=name)["result"]
            assert "HeadlessChrome" in ua, ua
            snap = c.snapshot(profile=name, target_id=tab["tabId"])
            assert 'button "Press"' in snap["snapshot"]
            with pytest.raises(errors.Conflict):  # no screen to show: screencast only
                c.observe("vnc", profile=name)
            assert c.observe(profile=name)["mode"] == "screencast"
        env = docker_client.containers.get(sbx.container_name(name)).attrs["Config"]["Env"]
        assert "CLAWD_NOVNC=0" in env and "CLAWD_HEADLESS=1" in env
    finally:
        service.close()
        _remove(docker_client, sbx.container_name(name))


def test_deleting_a_created_sandbox_profile_removes_its_container(running, docker_client):
    import docker.errors

    name = f"{PROFILE}-made"
    with running.client() as c:
        c.create_profile(name, driver="sandbox")
        try:
            c.start(profile=name)
            assert docker_client.containers.get(sbx.container_name(name)).status == "running"
        finally:
            c.delete_profile(name)
    with pytest.raises(docker.errors.NotFound):
        docker_client.containers.get(sbx.container_name(name))


def test_the_agent_tool_target_sandbox_drives_the_sandbox_profile(running, client, sbx_site):
    from clawd.agent.tool import BrowserTool

    with running.client() as own:
        tool = BrowserTool(own)
        opened = tool.run(
            {"action": "open", "target": "sandbox", "url": sbx_site.url("/sbx/form.html")}
        )
        assert not opened.is_error, opened.text
        snap = tool.run({"action": "snapshot", "target": "sandbox"})
        assert 'button "Press"' in snap.text, snap.text
    tabs = client.tabs(profile=PROFILE)["tabs"]
    assert any(t["url"].endswith("/sbx/form.html") for t in tabs), tabs
