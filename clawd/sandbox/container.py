"""One sandbox profile's container: found, created, recreated or restarted through the Docker SDK,
and ready when its Chromium answers /json/version on the loopback port Docker published.

Name clawd-sbx-<profile>; labels clawd.profile, clawd.configHash (sha256 of the image id and the
profile's sandbox settings), clawd.createdAt. A changed hash recreates the container, except
within HOT_WINDOW of its last use: then it is kept and the staleness is reported."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import os
import pathlib
import secrets
import tarfile
import threading
import time

from clawd import errors
from clawd.config.model import ProfileConfig, StateLayout
from clawd.sandbox import engine, readiness, workspace

log = logging.getLogger("clawd.sandbox")

PREFIX = "clawd-sbx-"
HOT_WINDOW = 300.0
CDP_PORT = "9222/tcp"
NOVNC_PORT = 6080
DOWNLOAD_DIR = "/tmp/clawd-downloads"
UPLOAD_DIR = "clawd-uploads"  # under /tmp
PASSWORD_DIR, PASSWORD_NAME = "/etc/clawd-sandbox", "vncpass"
PASSWORD_FILE = f"{PASSWORD_DIR}/{PASSWORD_NAME}"
LIVE_VIEW = "/usr/local/bin/clawd-sandbox-live-view"  # image/live-view.sh
_IDS = (1000, 1000)  # the image's sandbox user and group
_LAST_USE: dict[str, float] = {}  # container name -> when clawd last used it (this process)
LABEL_PROFILE, LABEL_HASH, LABEL_CREATED = "clawd.profile", "clawd.configHash", "clawd.createdAt"


def container_name(profile: str) -> str:
    return PREFIX + profile


def image_of(profile: ProfileConfig) -> str:
    return profile.sandbox.image or engine.IMAGE


def config_hash(image_id: str, profile: ProfileConfig) -> str:
    settings = dataclasses.asdict(profile.sandbox)
    blob = json.dumps({"image": image_id, "sandbox": settings}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class SandboxContainer:
    """The container behind one sandbox profile. Thread-safe; every Docker call is translated to
    clawd's errors (engine.translated)."""

    def __init__(
        self, profile: ProfileConfig, layout: StateLayout, *, webmcp: bool = True, clock=time.time
    ):
        self.profile = profile
        self.layout = layout
        # browser.webmcp: the container's Chromium gets the feature flag. Not in the config hash
        # (the doctor judges a container by its profile alone): a changed value applies to the
        # profile's next container (stop the profile to have it recreated)
        self.webmcp = webmcp
        self.name = container_name(profile.name)
        self._clock = clock
        self._ready = readiness.Readiness(profile.name)
        self._lock = threading.RLock()
        self.warning: str | None = None  # a stale hash kept inside the hot window
        self.cdp_port: int | None = None
        self.address: str | None = None  # the container's address on its network
        self.gateway: str | None = None
        self._live_view = False  # x11vnc and websockify asked to start in this container run

    # -- start --------------------------------------------------------------------------------
    def ensure(self) -> str:
        """Create, recreate or start the container as needed; the browser websocket URL."""
        with self._lock:
            client = engine.client()
            with engine.translated("looking up the sandbox image"):
                image = client.images.get(image_of(self.profile))
            wanted = config_hash(image.id, self.profile)
            container = self._find(client)
            if container is not None and not self._keep(container, wanted):
                with engine.translated("removing the outdated sandbox container"):
                    container.remove(force=True)
                container = None
            if container is None:
                container = self._create(client, image, wanted)
            began = time.monotonic()
            if container.status != "running":
                log.info("sandbox %s: starting container %s", self.profile.name, self.name)
                with engine.translated("starting the sandbox container"):
                    container.start()
                    container.reload()
            self._read_addresses(container)
            self._live_view = False
            self.last_used = self._clock()
            started = time.monotonic()
            ws_url = self._wait_ready(container)
            log.info(
                "sandbox %s: Docker start %.2f s, browser ready %.2f s later",
                self.profile.name,
                started - began,
                time.monotonic() - started,
            )
            return ws_url

    def touch(self) -> None:
        self.last_used = self._clock()

    # the last use outlives this object: a config reload makes a new runtime for the profile,
    # and the hot window must still count from the old one's last call
    @property
    def last_used(self) -> float | None:
        return _LAST_USE.get(self.name)

    @last_used.setter
    def last_used(self, when: float | None) -> None:
        if when is None:
            _LAST_USE.pop(self.name, None)
        else:
            _LAST_USE[self.name] = when

    def _find(self, client):
        import docker.errors

        with engine.translated("looking up the sandbox container"):
            try:
                return client.containers.get(self.name)
            except docker.errors.NotFound:
                return None

    def _keep(self, container, wanted: str) -> bool:
        have = container.labels.get(LABEL_HASH)
        if have == wanted:
            self.warning = None
            return True
        hot = self._last_use(container)
        if hot is not None and self._clock() - hot < HOT_WINDOW:
            self.warning = (
                f"container {self.name} runs with outdated settings (config hash "
                f"{(have or 'missing')[:12]} != {wanted[:12]}); kept because it was used in the "
                f"last {int(HOT_WINDOW // 60)} minutes: stop the profile to recreate it"
            )
            log.warning("sandbox %s: %s", self.profile.name, self.warning)
            return True
        log.info("sandbox %s: settings changed, recreating %s", self.profile.name, self.name)
        self.warning = None
        return False

    def _last_use(self, container) -> float | None:
        if self.last_used is not None:
            return self.last_used
        if container.status == "running":  # found at service start: it counts from its start
            return _docker_time(container.attrs.get("State", {}).get("StartedAt"))
        return None

    def _create(self, client, image, wanted: str):
        settings = self.profile.sandbox
        network = ensure_network(client, settings.network)
        gateway = _gateway(network)
        volumes = workspace.volumes(self.layout, settings)
        env = {
            "CLAWD_HEADLESS": "1" if settings.headless else "0",
            "CLAWD_NOVNC": "1" if settings.enable_no_vnc and not settings.headless else "0",
            "CLAWD_CDP_SOURCE_RANGE": settings.cdp_source_range or f"{gateway}/32",
            "CLAWD_WEBMCP": "1" if self.webmcp else "0",
        }
        labels = {
            LABEL_PROFILE: self.profile.name,
            LABEL_HASH: wanted,
            LABEL_CREATED: str(int(self._clock())),
        }
        log.info("sandbox %s: creating container %s", self.profile.name, self.name)
        with engine.translated("creating the sandbox container"):
            container = client.containers.create(
                image.id,
                name=self.name,
                labels=labels,
                environment=env,
                ports={CDP_PORT: ("127.0.0.1", None)},
                network=settings.network,
                mem_limit=settings.memory,
                pids_limit=settings.pids,
                shm_size=settings.shm_size,
                volumes=volumes,
                init=True,
                cap_drop=["ALL"],
                security_opt=["no-new-privileges"],
                detach=True,
            )
            if env["CLAWD_NOVNC"] == "1":
                # the password goes in as a file, never through the environment, a URL or a log
                password = secrets.token_urlsafe(6)[:8].encode()  # VNC reads 8 characters
                _put_file(container, PASSWORD_DIR, PASSWORD_NAME, password)
        return container

    def _read_addresses(self, container) -> None:
        ports = (container.attrs["NetworkSettings"]["Ports"] or {}).get(CDP_PORT) or []
        loopback = [p for p in ports if p.get("HostIp") in ("127.0.0.1", "::1")]
        if not loopback and container.status in ("exited", "dead"):
            raise readiness.exited(container)  # it publishes nothing once it has stopped
        if not loopback:
            raise errors.SandboxFailed(f"container {self.name} publishes no loopback CDP port")
        self.cdp_port = int(loopback[0]["HostPort"])
        nets = container.attrs["NetworkSettings"]["Networks"]
        net = nets.get(self.profile.sandbox.network) or next(iter(nets.values()), {})
        self.address, self.gateway = net.get("IPAddress"), net.get("Gateway")

    def _wait_ready(self, container) -> str:
        timeout = self.profile.sandbox.auto_start_timeout_ms / 1000
        ws = self._ready.wait(container, self.cdp_port, timeout)
        return _rewrite(ws, self.cdp_port)

    def start_live_view(self) -> None:
        """x11vnc and websockify, started at the container's first live view, not with it: there
        they competed with its Chromium for CPU, and on a busy host made it answer late."""
        with self._lock:
            if self._live_view:
                return
            container = self._find(engine.client())
            if container is None or container.status != "running":
                raise errors.BrowserNotRunning(
                    f"sandbox profile {self.profile.name} is not running"
                )
            # an image built before live-view.sh started them with the container
            script = f"[ ! -e {LIVE_VIEW} ] || exec /bin/sh {LIVE_VIEW}"
            with engine.translated("starting the live view in the sandbox"):
                ran = container.exec_run(["/bin/sh", "-c", script])
            if ran.exit_code != 0:
                said = ran.output.decode("utf-8", "replace").strip()
                raise errors.SandboxFailed(f"the live view did not start in {self.name}: {said}")
            self._live_view = True

    # -- stop / remove ------------------------------------------------------------------------
    def stop(self) -> bool:
        with self._lock:
            container = self._find(engine.client())
            if container is None or container.status != "running":
                return False
            with engine.translated("stopping the sandbox container"):
                container.stop(timeout=5)
            return True

    def remove(self) -> bool:
        with self._lock:
            container = self._find(engine.client())
            if container is None:
                return False
            with engine.translated("removing the sandbox container"):
                container.remove(force=True)
            return True

    def logs(self, tail: int = 100) -> str:
        container = self._find(engine.client())
        if container is None:
            return ""
        with engine.translated("reading the container's log"):
            return container.logs(tail=tail).decode("utf-8", "replace").strip()

    # -- files, observation -------------------------------------------------------------------
    def files(self) -> ContainerFiles:
        return ContainerFiles(self)

    def vnc_password(self) -> str:
        container = self._find(engine.client())
        if container is None:
            raise errors.BrowserNotRunning(f"sandbox profile {self.profile.name} has no container")
        return _get_file(container, PASSWORD_FILE).decode().strip()

    def status(self) -> dict:
        try:
            container = self._find(engine.client())
        except errors.ClawdError as exc:
            return {"container": self.name, "state": "unavailable", "error": exc.message}
        return {
            "container": self.name,
            "state": container.status if container is not None else "absent",
            "image": image_of(self.profile),
            "cdpHostPort": self.cdp_port,
            "address": self.address,
            "warning": self.warning,
        }


class ContainerFiles:
    """The file bridge (browser/filebridge.py) of a sandbox browser."""

    download_dir = DOWNLOAD_DIR

    def __init__(self, sandbox: SandboxContainer):
        self.sandbox = sandbox

    def upload(self, host_paths: list[str]) -> list[str]:
        container = self.sandbox._find(engine.client())
        if container is None:
            raise errors.BrowserGone(f"container {self.sandbox.name} is gone")
        inside = []
        for i, path in enumerate(host_paths):
            rel = f"{UPLOAD_DIR}/{i}-{secrets.token_hex(4)}/{os.path.basename(path)}"
            _put_file(container, "/tmp", rel, pathlib.Path(path).read_bytes())
            inside.append(f"/tmp/{rel}")
        return inside

    def fetch(self, browser_path: str, host_path: pathlib.Path) -> None:
        try:
            container = self.sandbox._find(engine.client())
            data = _get_file(container, browser_path)
        except errors.ClawdError as exc:
            raise OSError(f"copying {browser_path} out of the sandbox failed: {exc}") from None
        host_path.parent.mkdir(parents=True, exist_ok=True)
        host_path.write_bytes(data)


# -- Docker helpers -----------------------------------------------------------------------------
def ensure_network(client, name: str):
    with engine.translated("setting up the sandbox network"):
        found = client.networks.list(names=[name])
        exact = [n for n in found if n.name == name]
        if exact:
            return exact[0]
        log.info("creating the Docker bridge network %s", name)
        return client.networks.create(name, driver="bridge", labels={"clawd.network": "sandbox"})


def _gateway(network) -> str:
    network.reload()
    configs = (network.attrs.get("IPAM") or {}).get("Config") or []
    for config in configs:
        if config.get("Gateway"):
            return config["Gateway"]
    raise errors.SandboxFailed(f"Docker network {network.name} has no gateway address")


def _put_file(container, base: str, relpath: str, data: bytes, mode: int = 0o600) -> None:
    """Write `base/relpath` in the container, owned by its sandbox user; `base` exists already
    and keeps its own owner and mode (a tar entry for it would replace them)."""
    buf = io.BytesIO()
    now = int(time.time())
    with tarfile.open(fileobj=buf, mode="w") as tar:
        parts = relpath.strip("/").split("/")
        for depth in range(1, len(parts)):
            info = tarfile.TarInfo("/".join(parts[:depth]))
            info.type, info.mode, info.uid, info.gid, info.mtime = (
                tarfile.DIRTYPE,
                0o700,
                *_IDS,
                now,
            )
            tar.addfile(info)
        info = tarfile.TarInfo("/".join(parts))
        info.size, info.mode, info.uid, info.gid, info.mtime = len(data), mode, *_IDS, now
        tar.addfile(info, io.BytesIO(data))
    with engine.translated("copying a file into the sandbox"):
        if not container.put_archive(base, buf.getvalue()):
            raise errors.SandboxFailed(f"copying {relpath} into {container.name} failed")


def _get_file(container, path: str) -> bytes:
    with engine.translated("copying a file out of the sandbox"):
        stream, _ = container.get_archive(path)
        blob = b"".join(stream)
    with tarfile.open(fileobj=io.BytesIO(blob)) as tar:
        member = next(m for m in tar.getmembers() if m.isfile())
        return tar.extractfile(member).read()


def _rewrite(ws_url: str, port: int) -> str:
    """Chromium names its own address inside the container: point at the published port."""
    scheme, rest = ws_url.split("://", 1)
    path = rest.split("/", 1)[1] if "/" in rest else ""
    return f"{scheme}://127.0.0.1:{port}/{path}"


def _docker_time(raw: str | None) -> float | None:
    if not raw or raw.startswith("0001"):
        return None
    from datetime import datetime

    try:
        return datetime.fromisoformat(raw[:26].rstrip("Z") + "+00:00").timestamp()
    except ValueError:
        return None
