"""Sandbox pieces that need no Docker: observe tokens, workspace validation, the config hash and
the hot window, the daemon-down error, the sandbox config keys and the build progress lines."""

from __future__ import annotations

import io
import os

import pytest

from clawd import errors
from clawd.config.loader import config_from_data
from clawd.config.model import StateLayout
from clawd.sandbox import container as sbx
from clawd.sandbox import engine, workspace
from clawd.sandbox.tokens import ObserveTokens


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


# -- observe tokens --------------------------------------------------------------------------------
def test_a_token_is_spent_by_its_first_use_and_then_only_its_cookie_opens_the_page():
    store = ObserveTokens(clock=Clock())
    item = store.issue("clawd", "screencast")
    claimed = store.claim(item.token)
    assert claimed.cookie
    with pytest.raises(errors.ObserveForbidden):
        store.claim(item.token)
    assert store.check(item.token, claimed.cookie) is claimed
    with pytest.raises(errors.ObserveForbidden):
        store.check(item.token, "not-the-cookie")
    with pytest.raises(errors.ObserveForbidden):
        store.check(item.token, None)


def test_a_token_unused_for_60_seconds_is_refused():
    clock = Clock()
    store = ObserveTokens(clock=clock)
    item = store.issue("clawd", "vnc")
    clock.now += 60
    with pytest.raises(errors.ObserveForbidden) as refused:
        store.claim(item.token)
    assert refused.value.http_status == 403


def test_a_guessed_token_is_refused_and_tokens_are_long():
    store = ObserveTokens(clock=Clock())
    item = store.issue("clawd", "vnc")
    assert len(item.token) >= 40
    with pytest.raises(errors.ObserveForbidden):
        store.claim(item.token[:-1] + ("A" if item.token[-1] != "A" else "B"))


# -- workspace -------------------------------------------------------------------------------------
@pytest.fixture
def root(tmp_path):
    r = tmp_path / "workspaces"
    (r / "proj" / "sub").mkdir(parents=True)
    return r


def test_a_workspace_inside_the_root_resolves_relative_or_absolute(root):
    assert workspace.resolve(root, "proj") == root / "proj"
    assert workspace.resolve(root, str(root / "proj" / "sub")) == root / "proj" / "sub"


@pytest.mark.parametrize("raw", ["../elsewhere", "/etc", "proj/../../x"])
def test_a_workspace_outside_its_root_is_refused_with_400(root, raw):
    (root.parent / "elsewhere").mkdir(exist_ok=True)
    with pytest.raises(errors.InvalidWorkspace) as refused:
        workspace.resolve(root, raw)
    assert refused.value.http_status == 400


def test_a_workspace_through_a_symlink_is_refused_even_pointing_inside(root):
    os.symlink(root / "proj", root / "link")
    os.symlink("/etc", root / "proj" / "escape")
    for raw in ("link", "proj/escape", "link/sub"):
        with pytest.raises(errors.InvalidWorkspace, match="symlink"):
            workspace.resolve(root, raw)


def test_a_missing_workspace_or_a_file_is_refused(root):
    (root / "file").write_text("x")
    for raw in ("absent", "file"):
        with pytest.raises(errors.InvalidWorkspace, match="not an existing directory"):
            workspace.resolve(root, raw)


def test_volumes_mount_the_workspace_with_its_access_and_none_mounts_nothing(tmp_path):
    layout = StateLayout(tmp_path)
    (layout.workspaces / "w").mkdir(parents=True)
    profile = _profile(tmp_path, {"workspace": {"path": "w", "access": "rw"}})
    mounts = workspace.volumes(layout, profile.sandbox)
    assert mounts == {str(layout.workspaces / "w"): {"bind": "/workspace", "mode": "rw"}}
    none = _profile(tmp_path, {"workspace": {"path": "w", "access": "none"}})
    assert workspace.volumes(layout, none.sandbox) == {}


# -- config hash and hot window --------------------------------------------------------------------
def _profile(home, sandbox: dict):
    data = {
        "browser": {
            "profiles": {"clawd": {}, "box": {"driver": "sandbox", "sandbox": sandbox}},
        }
    }
    return config_from_data(data, env={"CLAWD_HOME": str(home)}).browser.profiles["box"]


def test_sandbox_keys_have_the_designed_defaults(tmp_path):
    s = _profile(tmp_path, {}).sandbox
    assert (s.headless, s.enable_no_vnc, s.auto_start, s.auto_start_timeout_ms) == (
        False,
        True,
        True,
        10000,
    )
    assert (s.network, s.memory, s.pids, s.shm_size) == ("clawd-sandbox", "2g", 512, "1g")
    assert (s.workspace.path, s.workspace.access) == (None, "ro")


def test_an_unknown_sandbox_key_is_a_config_error_with_its_path(tmp_path):
    with pytest.raises(errors.ConfigError) as bad:
        _profile(tmp_path, {"memroy": "1g"})
    assert "$.browser.profiles.box.sandbox" in str(bad.value.problems)


def test_the_config_hash_changes_with_the_image_and_every_setting(tmp_path):
    base = _profile(tmp_path, {})
    other = _profile(tmp_path, {"memory": "1g"})
    assert sbx.config_hash("sha256:a", base) == sbx.config_hash("sha256:a", base)
    assert sbx.config_hash("sha256:a", base) != sbx.config_hash("sha256:b", base)
    assert sbx.config_hash("sha256:a", base) != sbx.config_hash("sha256:a", other)


class FakeContainer:
    def __init__(self, label: str | None, status="running", started="2026-01-01T00:00:00Z"):
        self.labels = {} if label is None else {sbx.LABEL_HASH: label}
        self.status = status
        self.attrs = {"State": {"StartedAt": started}}


def test_a_stale_container_used_within_five_minutes_is_kept_with_a_warning(tmp_path):
    clock = Clock()
    box = sbx.SandboxContainer(_profile(tmp_path, {}), StateLayout(tmp_path), clock=clock)
    assert box._keep(FakeContainer("h1"), "h1") and box.warning is None
    box.last_used = clock.now - 299
    assert box._keep(FakeContainer("old"), "h1")
    assert "outdated" in box.warning and "stop the profile" in box.warning
    box.last_used = clock.now - 301
    assert not box._keep(FakeContainer("old"), "h1")


def test_a_container_without_the_hash_label_found_idle_is_recreated(tmp_path):
    clock = Clock()
    box = sbx.SandboxContainer(_profile(tmp_path, {}), StateLayout(tmp_path), clock=clock)
    box.last_used = None
    assert not box._keep(FakeContainer(None, status="exited"), "h1")


def test_the_hot_window_survives_a_new_runtime_for_the_profile(tmp_path):
    clock = Clock()
    old = sbx.SandboxContainer(_profile(tmp_path, {}), StateLayout(tmp_path), clock=clock)
    old.touch()
    changed = _profile(tmp_path, {"memory": "1g"})  # a reload: new settings, a new object
    new = sbx.SandboxContainer(changed, StateLayout(tmp_path), clock=clock)
    clock.now += 60
    assert new._keep(FakeContainer("old", status="exited"), "h1") and new.warning
    new.last_used = None


def test_the_websocket_url_is_rewritten_to_the_published_port():
    got = sbx._rewrite("ws://127.0.0.1:9222/devtools/browser/abc", 32768)
    assert got == "ws://127.0.0.1:32768/devtools/browser/abc"


# -- Docker missing --------------------------------------------------------------------------------
def test_a_daemon_that_does_not_answer_is_503_with_the_next_step(monkeypatch, tmp_path):
    pytest.importorskip("docker")
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-docker.sock")
    engine.forget_client()
    try:
        with pytest.raises(errors.SandboxUnavailable) as down:
            engine.client()
    finally:
        engine.forget_client()
    assert down.value.http_status == 503
    assert "dockerd" in down.value.message and "apt-get install docker.io" in down.value.message


# -- build progress --------------------------------------------------------------------------------
def test_build_progress_is_plain_lines_off_a_terminal():
    from clawd.cli.commands.sandbox import _Progress

    out = io.StringIO()
    show = _Progress(out)
    show("image", "Step 3/8 : RUN apt-get update")
    show("image", "Get:1 http://deb.debian.org bookworm InRelease")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and all(line.startswith("[") for line in lines)
    assert "image Step 3/8: Get:1" in lines[1]
    assert "\r" not in out.getvalue()


def test_build_progress_on_a_terminal_rewrites_one_line():
    from clawd.cli.commands.sandbox import _Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    out = Tty()
    show = _Progress(out)
    show("base", "I: Retrieving Packages")
    show("base", "I: Validating Packages")
    show.done()
    text = out.getvalue()
    assert text.count("\r\x1b[K") == 2 and text.endswith("\n") and text.count("\n") == 1


# -- doctor ----------------------------------------------------------------------------------------
def _row(**kw):
    row = {
        "name": "clawd-sbx-box",
        "state": "running",
        "configHash": "h1",
        "bindings": [{"port": "9222/tcp", "hostIp": "127.0.0.1", "hostPort": "32768"}],
        "env": {"CLAWD_CDP_SOURCE_RANGE": "172.30.0.1/32"},
    }
    row.update(kw)
    return row


def test_doctor_passes_a_current_loopback_only_container():
    from clawd.sandbox.doctor import _container_checks

    assert [c[1] for c in _container_checks("sandbox-box", _row(), "h1", None)] == ["ok"]


def test_doctor_flags_missing_and_stale_hash_wide_ports_and_cdp_reach():
    from clawd.sandbox.doctor import _container_checks

    found = _container_checks("sandbox-box", _row(configHash=None), "h1", None)
    assert found == [
        ("sandbox-box", "warn", "container clawd-sbx-box has no clawd.configHash label")
    ]
    stale = _container_checks("sandbox-box", _row(configHash="h0"), "h1", "kept: hot")
    assert stale == [("sandbox-box", "warn", "kept: hot")]
    wide = _row(bindings=[{"port": "9222/tcp", "hostIp": "0.0.0.0", "hostPort": "1"}])
    ((level, detail),) = [c[1:] for c in _container_checks("sandbox-box", wide, "h1", None)]
    assert level == "error" and "beyond loopback" in detail
    open_cdp = _row(env={"CLAWD_CDP_SOURCE_RANGE": "172.30.0.0/16"})
    ((level, detail),) = [c[1:] for c in _container_checks("sandbox-box", open_cdp, "h1", None)]
    assert level == "warn" and "reachable from other containers" in detail
