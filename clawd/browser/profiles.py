"""The profile registry: the profiles of the config plus those created at run time (kept in
$CLAWD_HOME/profiles.json), with cdpPort and color allocation."""

from __future__ import annotations

import dataclasses
import json
import logging
import re
import threading
from collections.abc import Callable

from clawd import errors
from clawd.browser.launcher import port_holder, port_in_use
from clawd.config.model import PALETTE, BrowserConfig, ProfileConfig, StateLayout

log = logging.getLogger("clawd.browser")

NAME_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,63}$")
PORT_SPAN = 100  # managed profiles get ports start .. start+99 (18800-18899)
DRIVERS = ("managed", "existing-session", "remote", "sandbox")
# There unless the config names a profile so: the user's own running browser, found where the OS
# keeps its user data (browser/user_chrome.py).
# Grey, outside the palette: it takes no color from the profiles clawd creates.
BUILTIN = {"user": ProfileConfig("user", driver="existing-session", color="#808080")}
# There when the extension relay is enabled (relay.enabled): the tabs the user shares from their
# everyday Chrome with the clawd extension (clawd/relay/, docs/architecture.md).
RELAY_PROFILE = ProfileConfig("chrome", driver="extension", color="#4285F4")
# OpenClaw's name for its default managed profile (docs/architecture.md): an alias of ours.
DEFAULT_ALIAS = "openclaw"
# The profiles a config has when it names none: their ports are clawd's choice, not the user's
DEFAULT_PROFILES = BrowserConfig().profiles


class ProfileRegistry:
    def __init__(
        self,
        browser_config: BrowserConfig,
        layout: StateLayout,
        *,
        relay: bool = False,
        in_use: Callable[[int], bool] = port_in_use,
    ):
        self._config = browser_config
        self._builtin = {**BUILTIN, **({RELAY_PROFILE.name: RELAY_PROFILE} if relay else {})}
        self._layout = layout
        self._lock = threading.Lock()
        self._in_use = in_use  # a seam: is another program listening on this port now
        self._configured = dict(browser_config.profiles)
        self._created: dict[str, ProfileConfig] = self._load_created()
        self._kept: dict[str, int] = self._load_kept()
        self._assigned: dict[str, ProfileConfig] = {}
        self._allocate_all()
        self._move_off_taken_ports()

    def _allocate_all(self) -> None:
        """Ports and colors in config order, then created profiles: the same every run,
        whichever profile is asked for first."""
        for raw in [*self._configured.values(), *self._created.values()]:
            self._complete(raw)

    @property
    def default_name(self) -> str:
        return self._config.default_profile

    def names(self) -> list[str]:
        with self._lock:
            return self._names()

    def get(self, name: str | None) -> ProfileConfig:
        """The profile with its port and color filled in. Raises ProfileNotFound."""
        name = name or self.default_name
        with self._lock:
            raw = self._configured.get(name) or self._created.get(name) or self._builtin.get(name)
            if raw is None and name == DEFAULT_ALIAS:
                raw = self._default_managed()
            if raw is None:
                raise errors.ProfileNotFound(
                    f"no profile named {name!r}; known: {', '.join(self._names())}"
                )
            return self._complete(raw)

    def _default_managed(self) -> ProfileConfig | None:
        """The default profile when clawd launches it, else the first profile it launches."""
        profiles = [*self._configured.values(), *self._created.values()]
        default = self._configured.get(self.default_name) or self._created.get(self.default_name)
        managed = [p for p in ([default] if default else []) + profiles if p.kind == "managed"]
        return managed[0] if managed else None

    def alias_of(self, name: str) -> str | None:
        """The alias a profile answers to besides its name (`openclaw`), if any."""
        with self._lock:
            taken = DEFAULT_ALIAS in self._configured or DEFAULT_ALIAS in self._created
            target = None if taken else self._default_managed()
        return DEFAULT_ALIAS if target is not None and target.name == name else None

    def _names(self) -> list[str]:
        """Configured profiles, those created at run time, then the built-in ones; the caller
        holds the lock."""
        names = list(self._configured) + [n for n in self._created if n not in self._configured]
        return names + [n for n in self._builtin if n not in names]

    def is_configured(self, name: str) -> bool:
        return name in self._configured

    def is_builtin(self, name: str) -> bool:
        return name in self._builtin and name not in self._configured and name not in self._created

    def create(
        self,
        name: str,
        *,
        color: str | None = None,
        cdp_url: str | None = None,
        driver: str | None = None,
        user_data_dir: str | None = None,
    ) -> ProfileConfig:
        if not isinstance(name, str) or not NAME_RE.match(name):
            raise errors.InvalidRequest(f"profile name {name!r} must match {NAME_RE.pattern}")
        if color is not None and not re.match(r"^#[0-9A-Fa-f]{6}$", str(color)):
            raise errors.InvalidRequest(f"color {color!r} must look like #RRGGBB")
        if driver is not None and driver not in DRIVERS:
            raise errors.InvalidRequest(f"driver must be one of {', '.join(DRIVERS)}")
        with self._lock:
            if name in self._configured or name in self._created or name in self._builtin:
                raise errors.ProfileExists(f"profile {name!r} already exists")
            profile = ProfileConfig(
                name,
                driver=driver or ("remote" if cdp_url else "managed"),
                cdp_url=cdp_url,
                color=color,
                user_data_dir=user_data_dir,
            )
            if profile.kind == "managed":  # skipping ports another program holds now
                profile = dataclasses.replace(profile, cdp_port=self._free_port(name, probe=True))
            self._created[name] = profile
            completed = self._complete(profile)
            self._created[name] = completed
            self._save_created()
        log.info("profile %s created", name)
        return completed

    def delete(self, name: str) -> ProfileConfig:
        with self._lock:
            if name in self._configured:
                raise errors.Conflict(
                    f"profile {name!r} comes from the config file; remove it there"
                )
            profile = self._created.pop(name, None)
            if profile is None and name in self._builtin:
                raise errors.Conflict(
                    f"profile {name!r} is built in (your own browser); it cannot be deleted"
                )
            if profile is None:
                raise errors.ProfileNotFound(f"no profile named {name!r}")
            self._assigned.pop(name, None)
            self._kept.pop(name, None)
            self._save_created()
        return profile

    def replace_configured(self, profiles: dict[str, ProfileConfig]) -> None:
        """After a config reload (SIGHUP): the new set of configured profiles."""
        with self._lock:
            self._configured = dict(profiles)
            self._assigned.clear()
            self._allocate_all()

    # -- allocation ---------------------------------------------------------------------------
    def _complete(self, raw: ProfileConfig) -> ProfileConfig:
        done = self._assigned.get(raw.name)
        if done is not None and _same_source(done, raw):
            return done
        port, color = raw.cdp_port, raw.color
        if not self._port_chosen(raw) and raw.name in self._kept:
            port = self._kept[raw.name]
        if raw.kind == "managed" and port is None:
            port = self._free_port(raw.name)
        if color is None:
            color = self._free_color(raw.name)
        done = ProfileConfig(
            raw.name,
            driver=raw.driver,
            cdp_port=port,
            cdp_url=raw.cdp_url,
            color=color,
            user_data_dir=raw.user_data_dir,
            attach_only=raw.attach_only,
            remote=raw.remote,
            sandbox=raw.sandbox,
        )
        self._assigned[raw.name] = done
        return done

    def _taken(self, name: str, attr: str) -> set:
        values = set()
        for other in list(self._configured.values()) + list(self._created.values()):
            if other.name == name:
                continue
            chosen = self._assigned.get(other.name, other)
            if getattr(chosen, attr) is not None:
                values.add(getattr(chosen, attr))
        return values

    def _free_port(self, name: str, *, probe: bool = False) -> int:
        """The first port of the range no other profile has (and, probing, nothing listens on)."""
        taken = self._taken(name, "cdp_port")
        start = self._config.cdp_port_range_start
        for port in range(start, start + PORT_SPAN):
            if port not in taken and port != 9222 and not (probe and self._in_use(port)):
                return port
        raise errors.Conflict(f"no free cdpPort left in {start}-{start + PORT_SPAN - 1}")

    def _port_chosen(self, raw: ProfileConfig) -> bool:
        """Whether the user's config set this profile's cdpPort (a default or one clawd picked
        at create-profile is clawd's choice, free to move)."""
        return (
            raw.name in self._configured
            and raw.cdp_port is not None
            and raw != DEFAULT_PROFILES.get(raw.name)
        )

    def _move_off_taken_ports(self) -> None:
        """At start: a profile clawd launches whose port another program holds (another user's
        clawd, say) moves to the next free port of the range and keeps it; one whose port the
        user chose stays, and the log says which key to change."""
        for raw in [*self._configured.values(), *self._created.values()]:
            done = self._assigned[raw.name]
            if self._launches(raw) and done.cdp_port and self._in_use(done.cdp_port):
                self._move_off(raw, done)

    def _launches(self, raw: ProfileConfig) -> bool:
        """clawd starts this profile's browser (an attach-only one expects another's there)."""
        attach = self._config.attach_only if raw.attach_only is None else raw.attach_only
        return raw.kind == "managed" and not attach

    def _move_off(self, raw: ProfileConfig, done: ProfileConfig) -> None:
        taken, key = done.cdp_port, f"browser.profiles.{raw.name}.cdpPort"
        holder = port_holder(taken)
        if self._port_chosen(raw):
            log.warning(
                "profile %s: cdpPort %d is in use by %s; set %s to a free port",
                *(raw.name, taken, holder, key),
            )
            return
        self._kept[raw.name] = port = self._free_port(raw.name, probe=True)
        self._assigned[raw.name] = dataclasses.replace(done, cdp_port=port)
        self._save_created()
        log.warning(
            "profile %s: cdpPort %d is in use by %s; using %d from now on (kept in %s; set %s "
            "to choose one)",
            *(raw.name, taken, holder, port, self._layout.profiles_file, key),
        )

    def _free_color(self, name: str) -> str:
        taken = {c.upper() for c in self._taken(name, "color")}
        return next((c for c in PALETTE if c.upper() not in taken), PALETTE[0])

    # -- persistence --------------------------------------------------------------------------
    def _load_created(self) -> dict[str, ProfileConfig]:
        path = self._layout.profiles_file
        try:
            data = json.loads(path.read_text())
        except FileNotFoundError:
            return {}
        except (OSError, ValueError):
            log.warning("ignoring unreadable %s", path)
            return {}
        if not isinstance(data, dict) or not isinstance(data.get("profiles", {}), dict):
            log.warning("ignoring %s: not a profiles document", path)
            return {}
        created = {}
        for name, item in (data.get("profiles") or {}).items():
            if NAME_RE.match(name) and isinstance(item, dict):
                created[name] = ProfileConfig(
                    name,
                    driver=item.get("driver", "managed"),
                    cdp_port=item.get("cdpPort"),
                    cdp_url=item.get("cdpUrl"),
                    color=item.get("color"),
                    user_data_dir=item.get("userDataDir"),
                )
        return created

    def _load_kept(self) -> dict[str, int]:
        """The ports clawd moved profiles to when theirs was taken (profiles.json's `ports`)."""
        try:
            kept = json.loads(self._layout.profiles_file.read_text()).get("ports") or {}
        except (OSError, ValueError, AttributeError):
            return {}
        if not isinstance(kept, dict):
            return {}
        return {
            name: port
            for name, port in kept.items()
            if isinstance(port, int) and not isinstance(port, bool) and 0 < port < 65536
        }

    def _save_created(self) -> None:
        path = self._layout.profiles_file
        path.parent.mkdir(parents=True, exist_ok=True)
        data = {"profiles": {p.name: _profile_json(p) for p in self._created.values()}}
        if self._kept:
            data["ports"] = dict(self._kept)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=2))
        tmp.replace(path)


def _profile_json(p: ProfileConfig) -> dict:
    item = {
        "driver": p.driver,
        "cdpPort": p.cdp_port,
        "cdpUrl": p.cdp_url,
        "color": p.color,
        "userDataDir": p.user_data_dir,
    }
    return {k: v for k, v in item.items() if v is not None}


def _same_source(done: ProfileConfig, raw: ProfileConfig) -> bool:
    return (
        (done.driver, done.cdp_url, done.user_data_dir, done.remote, done.sandbox)
        == (raw.driver, raw.cdp_url, raw.user_data_dir, raw.remote, raw.sandbox)
        and (raw.cdp_port is None or raw.cdp_port == done.cdp_port)
        and (raw.color is None or raw.color == done.color)
    )
