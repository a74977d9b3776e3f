"""Building the sandbox images with no image registry: the base from the distribution
(debootstrap --variant=minbase bookworm, then an import), the browser image from image/Dockerfile.
Progress goes to a callback as (step, line) pairs; the CLI decides how to show it."""

from __future__ import annotations

import hashlib
import importlib.resources
import os
import pathlib
import shutil
import subprocess
import tempfile
from collections.abc import Callable

from clawd import errors
from clawd.sandbox import engine

Progress = Callable[[str, str], None]
MIRROR = "http://deb.debian.org/debian"
CONTEXT_LABEL = "clawd.context"  # the hash of the build context an image was built from


def image_dir() -> pathlib.Path:
    """The build context: the Dockerfile and entrypoint shipped in the package."""
    return pathlib.Path(str(importlib.resources.files("clawd.sandbox").joinpath("image")))


def context_hash() -> str:
    """What the build context holds (names and bytes), so an image built from other files (an
    older entrypoint, other browser flags) is known to be out of date and built again."""
    digest = hashlib.sha256()
    for path in sorted(p for p in image_dir().iterdir() if p.is_file()):
        digest.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def current(client, name: str) -> bool:
    """The image exists and was built from today's build context."""
    import docker.errors

    with engine.translated():
        try:
            labels = client.images.get(name).labels or {}
        except docker.errors.ImageNotFound:
            return False
    return labels.get(CONTEXT_LABEL) == context_hash()


def exists(client, name: str) -> bool:
    import docker.errors

    with engine.translated():
        try:
            client.images.get(name)
        except docker.errors.ImageNotFound:
            return False
    return True


def image_size(client, name: str) -> int:
    with engine.translated():
        return int(client.images.get(name).attrs["Size"])


def build(
    *,
    image: str = engine.IMAGE,
    rebuild: bool = False,
    progress: Progress = lambda step, line: None,
) -> dict:
    """Make the base image when missing, then the browser image (unless present, built from
    today's build context, and not `rebuild`). Returns {image, base, built, size}."""
    client = engine.client()
    base_made = False
    if not exists(client, engine.BASE_IMAGE):
        make_base(client, progress)
        base_made = True
    built = rebuild or base_made or not current(client, image)
    if built:
        build_browser(client, image, progress)
    else:
        progress("image", f"{image} is present and current (--rebuild builds it again)")
    return {
        "image": image,
        "base": engine.BASE_IMAGE,
        "built": built,
        "baseBuilt": base_made,
        "size": image_size(client, image),
    }


def make_base(client, progress: Progress) -> None:
    debootstrap = shutil.which("debootstrap") or _sbin("debootstrap")
    if debootstrap is None:
        raise errors.SandboxUnavailable(
            f"no base image {engine.BASE_IMAGE} and no debootstrap to make one: "
            "apt-get install debootstrap (it needs root)"
        )
    with tempfile.TemporaryDirectory(prefix="clawd-base-") as tmp:
        root = pathlib.Path(tmp, "root")
        progress("base", f"debootstrap --variant=minbase bookworm ({MIRROR})")
        _run([debootstrap, "--variant=minbase", "bookworm", str(root), MIRROR], progress, "base")
        tarball = pathlib.Path(tmp, "root.tar")
        progress("base", "packing the root file system")
        _run(["tar", "-C", str(root), "-cf", str(tarball), "."], progress, "base")
        progress("base", f"importing it as {engine.BASE_IMAGE}")
        repo, tag = engine.BASE_IMAGE.split(":")
        with engine.translated("importing the base image"):
            client.api.import_image(src=str(tarball), repository=repo, tag=tag)


def build_browser(client, image: str, progress: Progress) -> None:
    progress("image", f"building {image} from {image_dir()}")
    with engine.translated("building the sandbox image"):
        stream = client.api.build(
            path=str(image_dir()),
            tag=image,
            buildargs={"BASE": engine.BASE_IMAGE},
            rm=True,
            forcerm=True,
            decode=True,
            labels={"clawd.image": "sandbox-browser", CONTEXT_LABEL: context_hash()},
        )
        for chunk in stream:
            if "error" in chunk:
                raise errors.SandboxFailed(f"building {image} failed: {chunk['error'].strip()}")
            line = (chunk.get("stream") or "").rstrip()
            if line:
                progress("image", line)


def _run(argv: list[str], progress: Progress, step: str) -> None:
    proc = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace"
    )
    tail: list[str] = []
    for line in proc.stdout:
        line = line.rstrip()
        tail = (tail + [line])[-20:]
        progress(step, line)
    if proc.wait() != 0:
        raise errors.SandboxFailed(
            f"{os.path.basename(argv[0])} failed (exit {proc.returncode}): " + "\n".join(tail[-5:])
        )


def _sbin(name: str) -> str | None:
    for d in ("/usr/sbin", "/sbin"):
        if os.access(os.path.join(d, name), os.X_OK):
            return os.path.join(d, name)
    return None
