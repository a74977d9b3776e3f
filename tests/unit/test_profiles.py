"""ProfileRegistry: port and color allocation, create/delete, profiles.json, name validation."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from clawd import errors
from clawd.browser.profiles import ProfileRegistry
from clawd.config.model import PALETTE, BrowserConfig, ProfileConfig, StateLayout


def registry(tmp_path, *, in_use=frozenset(), **browser) -> ProfileRegistry:
    """A registry that sees the ports in `in_use` held by another program (none by default)."""
    return ProfileRegistry(
        BrowserConfig(**browser), StateLayout(tmp_path), in_use=frozenset(in_use).__contains__
    )


def saved(tmp_path) -> dict:
    return json.loads((tmp_path / "profiles.json").read_text())["profiles"]


# -- allocation -----------------------------------------------------------------------------------
def test_the_default_profile_is_there_with_its_port_and_color(tmp_path):
    reg = registry(tmp_path)
    profile = reg.get(None)
    assert (profile.name, profile.cdp_port, profile.color, profile.kind) == (
        "clawd",
        18800,
        "#FF4500",
        "managed",
    )
    assert reg.names() == ["clawd", "user"]


def test_new_profiles_take_the_next_free_port_and_the_next_palette_color(tmp_path):
    reg = registry(tmp_path)
    made = [reg.create(f"p{n}") for n in range(4)]
    assert [p.cdp_port for p in made] == [18801, 18802, 18803, 18804]
    assert [p.color for p in made] == list(PALETTE[1:5])


def test_ports_and_colors_already_taken_by_configured_profiles_are_skipped(tmp_path):
    profiles = {
        "a": ProfileConfig("a", cdp_port=18800, color="#ff4500"),  # case does not matter
        "b": ProfileConfig("b", cdp_port=18801, color=PALETTE[2]),
    }
    reg = registry(tmp_path, profiles=profiles, default_profile="a")
    made = reg.create("c")
    assert made.cdp_port == 18802
    assert made.color == PALETTE[1]
    assert reg.create("d").color == PALETTE[3]


def test_port_9222_is_never_handed_out(tmp_path):
    reg = registry(
        tmp_path,
        cdp_port_range_start=9220,
        profiles={"clawd": ProfileConfig("clawd", cdp_port=9220, color=PALETTE[0])},
    )
    assert [reg.create(n).cdp_port for n in ("x", "y", "z")] == [9221, 9223, 9224]


def test_a_configured_profile_without_a_port_gets_one_and_keeps_it(tmp_path):
    reg = registry(
        tmp_path,
        profiles={
            "clawd": ProfileConfig("clawd", cdp_port=18800, color=PALETTE[0]),
            "work": ProfileConfig("work"),
        },
    )
    work = reg.get("work")
    assert work.cdp_port == 18801 and work.color == PALETTE[1]
    assert reg.get("work") == work
    assert reg.create("new").cdp_port == 18802


def test_configured_profiles_get_the_same_port_and_color_whichever_is_asked_first(tmp_path):
    profiles = {"clawd": ProfileConfig("clawd"), "work": ProfileConfig("work")}
    one = registry(tmp_path / "one", profiles=profiles)
    two = registry(tmp_path / "two", profiles=profiles)
    first = [one.get("clawd"), one.get("work")]
    second = [two.get("work"), two.get("clawd")][::-1]
    assert first == second


def test_a_freed_port_is_reused(tmp_path):
    reg = registry(tmp_path)
    first = reg.create("one")
    reg.create("two")
    reg.delete("one")
    assert reg.create("three").cdp_port == first.cdp_port


def test_the_range_runs_out_with_a_conflict(tmp_path):
    reg = registry(tmp_path)
    for n in range(99):  # clawd has 18800; 18801..18899 remain
        reg.create(f"p{n}")
    with pytest.raises(errors.Conflict) as raised:
        reg.create("one-too-many")
    assert "18800-18899" in str(raised.value)


def test_colors_start_over_when_the_palette_is_used_up(tmp_path):
    reg = registry(tmp_path)
    colors = [reg.create(f"p{n}").color for n in range(len(PALETTE))]
    assert colors[: len(PALETTE) - 1] == list(PALETTE[1:])
    assert colors[-1] == PALETTE[0]


def test_remote_and_existing_session_profiles_get_no_port(tmp_path):
    reg = registry(tmp_path)
    remote = reg.create("pool", cdp_url="wss://pool.example?token=t")
    existing = reg.create(
        "mine", driver="existing-session", user_data_dir="/home/me/.config/chromium"
    )
    assert (remote.kind, remote.cdp_port) == ("remote", None)
    assert (existing.kind, existing.cdp_port) == ("existing-session", None)
    assert reg.create("managed").cdp_port == 18801


def test_an_explicit_color_is_kept(tmp_path):
    reg = registry(tmp_path)
    assert reg.create("pink", color="#123abc").color == "#123abc"


# -- create/delete/validation ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["a", "work", "agent-7", "0x", "a" * 64])
def test_valid_names(tmp_path, name):
    assert registry(tmp_path).create(name).name == name


@pytest.mark.parametrize(
    "name",
    ["", "Work", "-lead", "with_underscore", "a" * 65, "dot.name", "sp ace", "../up", "é", None, 7],
)
def test_invalid_names_are_refused(tmp_path, name):
    reg = registry(tmp_path)
    with pytest.raises(errors.InvalidRequest):
        reg.create(name)
    assert reg.names() == ["clawd", "user"]
    assert not (tmp_path / "profiles.json").exists()


@pytest.mark.parametrize(
    "kwargs", [{"color": "red"}, {"color": "#FFF"}, {"color": "#GG0000"}, {"driver": "extension"}]
)
def test_bad_create_options_are_invalid_requests(tmp_path, kwargs):
    with pytest.raises(errors.InvalidRequest):
        registry(tmp_path).create("p", **kwargs)


def test_creating_an_existing_name_is_profile_exists(tmp_path):
    reg = registry(tmp_path)
    reg.create("work")
    for name in ("work", "clawd"):
        with pytest.raises(errors.ProfileExists) as raised:
            reg.create(name)
        assert raised.value.http_status == 409


def test_an_unknown_profile_is_profile_not_found_naming_the_known_ones(tmp_path):
    reg = registry(tmp_path)
    reg.create("work")
    with pytest.raises(errors.ProfileNotFound) as raised:
        reg.get("nope")
    assert (
        "'nope'" in str(raised.value)
        and "clawd" in str(raised.value)
        and "work" in str(raised.value)
    )
    with pytest.raises(errors.ProfileNotFound):
        reg.delete("nope")


def test_a_configured_profile_cannot_be_deleted(tmp_path):
    reg = registry(tmp_path)
    with pytest.raises(errors.Conflict):
        reg.delete("clawd")
    assert reg.names() == ["clawd", "user"]


def test_is_configured_tells_config_profiles_from_created_ones(tmp_path):
    reg = registry(tmp_path)
    reg.create("work")
    assert reg.is_configured("clawd") and not reg.is_configured("work")


# -- persistence ----------------------------------------------------------------------------------
def test_created_profiles_survive_a_restart_with_the_same_port_and_color(tmp_path):
    reg = registry(tmp_path)
    work = reg.create("work")
    pool = reg.create("pool", cdp_url="wss://pool.example?token=t")
    again = registry(tmp_path)
    assert again.names() == ["clawd", "work", "pool", "user"]
    assert again.get("work") == work
    assert again.get("pool") == pool
    assert saved(tmp_path)["work"] == {"driver": "managed", "cdpPort": 18801, "color": PALETTE[1]}
    assert saved(tmp_path)["pool"] == {
        "driver": "remote",
        "cdpUrl": "wss://pool.example?token=t",
        "color": PALETTE[2],
    }


def test_delete_removes_the_profile_from_the_file(tmp_path):
    reg = registry(tmp_path)
    reg.create("work")
    reg.create("play")
    removed = reg.delete("work")
    assert removed.name == "work"
    assert list(saved(tmp_path)) == ["play"]
    assert registry(tmp_path).names() == ["clawd", "play", "user"]


def test_no_temporary_file_is_left_behind(tmp_path):
    registry(tmp_path).create("work")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["profiles.json"]


@pytest.mark.parametrize(
    "content", ["{not json", "", "{}", '{"profiles": null}', '{"profiles": []}']
)
def test_an_unreadable_profiles_file_is_ignored(tmp_path, content):
    (tmp_path / "profiles.json").write_text(content)
    assert registry(tmp_path).names() == ["clawd", "user"]


def test_a_profiles_file_of_the_wrong_shape_is_ignored(tmp_path):
    (tmp_path / "profiles.json").write_text("[]")
    assert registry(tmp_path).names() == ["clawd", "user"]


def test_bad_entries_in_the_profiles_file_are_skipped(tmp_path):
    (tmp_path / "profiles.json").write_text(
        json.dumps(
            {
                "profiles": {
                    "Bad Name": {"driver": "managed"},
                    "not-a-dict": 5,
                    "good": {"cdpPort": 18850},
                }
            }
        )
    )
    reg = registry(tmp_path)
    assert reg.names() == ["clawd", "good", "user"]
    assert reg.get("good").cdp_port == 18850


def test_a_config_profile_shadows_a_created_one_of_the_same_name(tmp_path):
    (tmp_path / "profiles.json").write_text(json.dumps({"profiles": {"clawd": {"cdpPort": 18850}}}))
    reg = registry(tmp_path)
    assert reg.names() == ["clawd", "user"]
    assert reg.get("clawd").cdp_port == 18800


def test_replace_configured_takes_the_new_config_profiles(tmp_path):
    reg = registry(tmp_path)
    reg.replace_configured(
        {
            "clawd": ProfileConfig("clawd", cdp_port=18800),
            "extra": ProfileConfig("extra", cdp_port=18810),
        }
    )
    assert reg.names() == ["clawd", "extra", "user"]
    assert reg.get("extra").cdp_port == 18810


# -- built-in and alias names (DESIGN.md §17) ------------------------------------------------------
def test_user_is_a_built_in_existing_session_profile_that_takes_no_palette_color(tmp_path):
    reg = registry(tmp_path)
    user = reg.get("user")
    assert (user.kind, user.user_data_dir, user.cdp_port) == ("existing-session", None, None)
    assert reg.is_builtin("user") and not reg.is_configured("user")
    assert reg.create("work").color == PALETTE[1]  # the palette is not spent on it
    with pytest.raises(errors.ProfileExists):
        reg.create("user")
    with pytest.raises(errors.Conflict, match="built in"):
        reg.delete("user")


def test_a_configured_user_profile_replaces_the_built_in_one(tmp_path):
    mine = ProfileConfig("user", driver="existing-session", user_data_dir="/srv/chrome")
    reg = registry(tmp_path, profiles={"clawd": ProfileConfig("clawd"), "user": mine})
    assert reg.get("user").user_data_dir == "/srv/chrome" and not reg.is_builtin("user")
    assert reg.names() == ["clawd", "user"]


def test_openclaw_is_an_alias_of_the_default_managed_profile(tmp_path):
    reg = registry(tmp_path)
    assert reg.get("openclaw").name == "clawd" and reg.alias_of("clawd") == "openclaw"
    assert "openclaw" not in reg.names() and reg.alias_of("user") is None


def test_openclaw_names_the_first_managed_profile_when_the_default_is_remote(tmp_path):
    profiles = {
        "far": ProfileConfig("far", cdp_url="http://10.0.0.5:9222"),
        "work": ProfileConfig("work"),
    }
    reg = registry(tmp_path, profiles=profiles, default_profile="far")
    assert reg.get("openclaw").name == "work"


def test_a_profile_really_named_openclaw_wins_over_the_alias(tmp_path):
    reg = registry(tmp_path)
    reg.create("openclaw")
    assert reg.get("openclaw").name == "openclaw" and reg.alias_of("clawd") is None


# -- ports another program holds (a second clawd on the machine) ---------------------------------
def test_a_default_port_another_program_holds_moves_to_the_next_free_one_and_stays(
    tmp_path, caplog
):
    with caplog.at_level(logging.WARNING, logger="clawd.browser"):
        moved = registry(tmp_path, in_use={18800, 18801}).get(None)
    assert moved.cdp_port == 18802
    assert "browser.profiles.clawd.cdpPort" in caplog.text and "18800" in caplog.text
    again = registry(tmp_path).get(None)  # the next start, the port free again: kept
    assert again.cdp_port == 18802
    assert registry(tmp_path).create("other").cdp_port != 18802  # never handed to another


def test_a_port_the_user_chose_stays_and_the_log_names_the_key_to_change(tmp_path, caplog):
    chosen = {"work": ProfileConfig("work", cdp_port=18810)}
    with caplog.at_level(logging.WARNING, logger="clawd.browser"):
        reg = registry(tmp_path, in_use={18810}, profiles=chosen)
    assert reg.get("work").cdp_port == 18810
    assert "set browser.profiles.work.cdpPort to a free port" in caplog.text


def test_create_profile_skips_a_port_another_program_holds(tmp_path):
    reg = registry(tmp_path, in_use={18801, 18802})
    assert reg.create("fresh").cdp_port == 18803
    assert saved(tmp_path)["fresh"]["cdpPort"] == 18803


def test_a_real_listener_on_an_unchosen_port_moves_the_profile(tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        start = taken.getsockname()[1]
        reg = ProfileRegistry(
            BrowserConfig(cdp_port_range_start=start, profiles={"a": ProfileConfig("a")}),
            StateLayout(tmp_path),
        )
        assert reg.get("a").cdp_port != start


def test_an_attach_only_profile_keeps_its_port_whatever_listens_there(tmp_path):
    reg = registry(tmp_path, in_use={18800}, attach_only=True)
    assert reg.get(None).cdp_port == 18800  # the browser it attaches to is what listens
