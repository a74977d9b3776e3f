"""The configuration as frozen dataclasses: what the rest of clawd reads.

Only config/loader.py builds these (from YAML validated against schema.json, defaults filled in).
Field names are the schema's camelCase keys in snake_case.
"""

from __future__ import annotations

import os
import pathlib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Literal

Tristate = bool | Literal["auto"]

DEFAULT_COLOR = "#FF4500"
# what web_fetch sends by default: a current desktop Chrome, which sites serve their usual pages to
DEFAULT_USER_AGENT = (
    "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/156.0.0.0 Safari/537.36"
)
PALETTE = (
    "#FF4500",
    "#0066CC",
    "#00AA00",
    "#9933FF",
    "#FF6699",
    "#00CCCC",
    "#FF9900",
    "#6666FF",
    "#CC3366",
    "#339966",
)


@dataclass(frozen=True)
class AuthConfig:
    token: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 18791
    auth: AuthConfig = field(default_factory=AuthConfig)


@dataclass(frozen=True)
class SsrfPolicy:
    dangerously_allow_private_network: bool = False
    allowed_hostnames: tuple[str, ...] = ()
    hostname_allowlist: tuple[str, ...] = ()
    strict: bool = False


@dataclass(frozen=True)
class SnapshotDefaults:
    mode: str | None = None


@dataclass(frozen=True)
class TabCleanup:
    enabled: bool = False
    idle_minutes: int = 60
    interval_seconds: int = 60


@dataclass(frozen=True)
class RecordingConfig:
    fps: int = 10
    default_seconds: int = 60
    max_seconds: int = 600
    max_bytes: int = 268435456


@dataclass(frozen=True)
class VisionModel:
    """One describer of browser.vision.models: a provider entry (provider, model, ...) or a
    command entry (type cli, command, args)."""

    type: str = "provider"
    provider: str | None = None
    model: str | None = None
    api_key: str | None = None
    base_url: str | None = None
    timeout_ms: int | None = None  # None: VisionConfig.timeout_ms
    max_tokens: int = 1024
    command: str | None = None
    args: tuple[str, ...] = ()


@dataclass(frozen=True)
class VisionConfig:
    enabled: bool = False
    command: str | None = None
    args: tuple[str, ...] = ()
    prompt: str = "Describe this screenshot of a web page for someone who cannot see it."
    timeout_ms: int = 30000
    max_bytes: int = 65536
    max_side: int = 1568
    models: tuple[VisionModel, ...] = ()


@dataclass(frozen=True)
class RemoteOptions:
    """browser.profiles.<name>.remote: how a remote profile lives through its pool's limits."""

    restore: str = "state"  # none | state | tabs
    keep_alive_seconds: int | None = None
    state_interval_seconds: int = 10


@dataclass(frozen=True)
class WorkspaceConfig:
    path: str | None = None
    access: str = "ro"


@dataclass(frozen=True)
class SandboxConfig:
    """browser.profiles.<name>.sandbox: the Docker container of a sandbox profile (§14)."""

    image: str | None = None
    headless: bool = False
    enable_no_vnc: bool = True
    auto_start: bool = True
    auto_start_timeout_ms: int = 10000
    network: str = "clawd-sandbox"
    cdp_source_range: str | None = None
    memory: str = "2g"
    pids: int = 512
    shm_size: str = "1g"
    workspace: WorkspaceConfig = field(default_factory=WorkspaceConfig)
    binds: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProfileConfig:
    """One entry of browser.profiles. `driver` is managed | remote | existing-session | sandbox |
    extension; a profile with `cdp_url` is remote whatever `driver` says."""

    name: str
    driver: str = "managed"
    cdp_port: int | None = None
    cdp_url: str | tuple[str, ...] | None = None  # a list: endpoints tried in order (failover)
    color: str | None = None
    user_data_dir: str | None = None
    attach_only: bool | None = None  # None: inherit browser.attachOnly
    remote: RemoteOptions = field(default_factory=RemoteOptions)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)

    @property
    def cdp_urls(self) -> tuple[str, ...]:
        if not self.cdp_url:
            return ()
        return (self.cdp_url,) if isinstance(self.cdp_url, str) else tuple(self.cdp_url)

    @property
    def kind(self) -> str:
        if self.cdp_url:
            return "remote"
        return self.driver


@dataclass(frozen=True)
class BrowserConfig:
    enabled: bool = True
    evaluate_enabled: bool = True
    act_effects: bool = True
    webmcp: bool = True
    headless: Tristate = "auto"
    no_sandbox: Tristate = "auto"
    attach_only: bool = False
    executable_path: str | None = None
    extra_args: tuple[str, ...] = ()
    upload_roots: tuple[str, ...] = ()
    color: str = DEFAULT_COLOR
    default_profile: str = "clawd"
    cdp_port_range_start: int = 18800
    remote_cdp_timeout_ms: int = 1500
    remote_cdp_handshake_timeout_ms: int = 3000
    action_timeout_ms: int = 8000
    max_tabs: int = 8
    snapshot_defaults: SnapshotDefaults = field(default_factory=SnapshotDefaults)
    ssrf_policy: SsrfPolicy = field(default_factory=SsrfPolicy)
    profiles: Mapping[str, ProfileConfig] = field(
        default_factory=lambda: {
            "clawd": ProfileConfig("clawd", cdp_port=18800, color=DEFAULT_COLOR)
        }
    )
    tab_cleanup: TabCleanup = field(default_factory=TabCleanup)
    recording: RecordingConfig = field(default_factory=RecordingConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)


@dataclass(frozen=True)
class CliConfig:
    url: str | None = None
    autostart: bool = False


@dataclass(frozen=True)
class NodeConfig:
    """Another clawd service an agent sends browser calls to (the agent tool's target: node)."""

    name: str
    url: str = ""
    token: str | None = None
    password: str | None = None


@dataclass(frozen=True)
class FirecrawlConfig:
    enabled: bool = False
    api_key: str | None = None
    base_url: str = "https://api.firecrawl.dev/v2/scrape"
    only_main_content: bool = True
    max_age_ms: int = 172800000
    proxy: str = "auto"


@dataclass(frozen=True)
class WebFetchConfig:
    enabled: bool = True
    readability: bool = True
    max_chars: int = 50000
    max_response_bytes: int = 2000000
    max_redirects: int = 3
    timeout_seconds: int = 30
    cache_ttl_minutes: int = 15
    user_agent: str = DEFAULT_USER_AGENT
    firecrawl: FirecrawlConfig = field(default_factory=FirecrawlConfig)


@dataclass(frozen=True)
class SearchProviderConfig:
    """web.search.<provider>: None takes the provider's default (or the environment's key)."""

    api_key: str | None = None
    base_url: str | None = None
    model: str | None = None


@dataclass(frozen=True)
class BraveConfig:
    api_key: str | None = None
    base_url: str | None = None


@dataclass(frozen=True)
class GrokConfig(SearchProviderConfig):
    inline_citations: bool = False


@dataclass(frozen=True)
class WebSearchConfig:
    enabled: bool = True
    provider: str | None = None
    count: int = 5
    country: str | None = None
    search_lang: str | None = None
    ui_lang: str | None = None
    freshness: str | None = None
    cache_ttl_minutes: int = 15
    timeout_seconds: int = 30
    brave: BraveConfig = field(default_factory=BraveConfig)
    gemini: SearchProviderConfig = field(default_factory=SearchProviderConfig)
    kimi: SearchProviderConfig = field(default_factory=SearchProviderConfig)
    perplexity: SearchProviderConfig = field(default_factory=SearchProviderConfig)
    grok: GrokConfig = field(default_factory=GrokConfig)


@dataclass(frozen=True)
class WebSsrfPolicy:
    """web.ssrfPolicy: every None takes browser.ssrfPolicy's value (see effective())."""

    dangerously_allow_private_network: bool | None = None
    allowed_hostnames: tuple[str, ...] | None = None
    hostname_allowlist: tuple[str, ...] | None = None
    strict: bool | None = None

    def effective(self, browser: SsrfPolicy) -> SsrfPolicy:
        given = {f.name: getattr(self, f.name) for f in fields(self)}
        return replace(browser, **{k: v for k, v in given.items() if v is not None})


@dataclass(frozen=True)
class WebConfig:
    fetch: WebFetchConfig = field(default_factory=WebFetchConfig)
    search: WebSearchConfig = field(default_factory=WebSearchConfig)
    ssrf_policy: WebSsrfPolicy = field(default_factory=WebSsrfPolicy)


@dataclass(frozen=True)
class ToolsConfig:
    """tools: which agent tools are offered (clawd/security/tools.py reads these)."""

    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()


@dataclass(frozen=True)
class RelayConfig:
    """relay: the Chrome extension relay (clawd/relay/, docs/architecture.md)."""

    enabled: bool = False
    port: int = 18792
    token: str | None = None  # None: the service token


@dataclass(frozen=True)
class Config:
    server: ServerConfig = field(default_factory=ServerConfig)
    browser: BrowserConfig = field(default_factory=BrowserConfig)
    cli: CliConfig = field(default_factory=CliConfig)
    nodes: Mapping[str, NodeConfig] = field(default_factory=dict)
    web: WebConfig = field(default_factory=WebConfig)
    tools: ToolsConfig = field(default_factory=ToolsConfig)
    relay: RelayConfig = field(default_factory=RelayConfig)
    home: pathlib.Path = field(default_factory=lambda: state_home())
    source: str | None = None  # the file it was read from, None for built-in defaults


def state_home(env: Mapping[str, str] | None = None) -> pathlib.Path:
    """$CLAWD_HOME, default ~/.clawd."""
    env = os.environ if env is None else env
    raw = env.get("CLAWD_HOME") or os.path.join(os.path.expanduser("~"), ".clawd")
    return pathlib.Path(raw).expanduser()


class StateLayout:
    """Where things live under $CLAWD_HOME (docs/architecture.md)."""

    def __init__(self, home: pathlib.Path):
        self.home = pathlib.Path(home)

    def user_data_dir(self, profile: str) -> pathlib.Path:
        return self.home / "browser" / profile / "user-data"

    @property
    def media(self) -> pathlib.Path:
        return self.home / "media"

    @property
    def auth_token(self) -> pathlib.Path:
        return self.home / "auth-token"

    @property
    def uploads(self) -> pathlib.Path:
        return self.home / "uploads"

    @property
    def downloads(self) -> pathlib.Path:
        return self.home / "downloads"

    @property
    def traces(self) -> pathlib.Path:
        return self.home / "traces"

    @property
    def recordings(self) -> pathlib.Path:
        """Videos of tabs and their sidecar JSON (page/observe/recording.py)."""
        return self.home / "recordings"

    @property
    def workspaces(self) -> pathlib.Path:
        """The root sandbox workspaces are mounted from (sandbox.workspace.path)."""
        return self.home / "workspaces"

    @property
    def trash(self) -> pathlib.Path:
        """User data of reset or deleted profiles, kept until erased (browser/trash.py)."""
        return self.home / "trash"

    @property
    def profiles_file(self) -> pathlib.Path:
        """Profiles created at run time through POST /profiles/create survive restarts here."""
        return self.home / "profiles.json"

    def ensure(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        for d in (self.media, self.uploads, self.downloads, self.traces):
            d.mkdir(parents=True, exist_ok=True, mode=0o700)
