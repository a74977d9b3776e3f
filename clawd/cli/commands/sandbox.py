"""`sandbox build|ls|rm|logs`: the sandbox image and containers, straight through the Docker SDK
(no service needed). build shows progress: on a terminal one line rewritten in place (step,
elapsed time, the latest output), otherwise plain lines."""

from __future__ import annotations

import json
import time

from clawd.cli.commands import Invocation, UsageError, command, group


def build(inv: Invocation) -> None:
    from clawd.sandbox import images

    show = _Progress(inv.stderr)
    result = images.build(
        image=inv.args.image or images.engine.IMAGE, rebuild=inv.args.rebuild, progress=show
    )
    show.done()
    if inv.json:
        print(json.dumps(result, indent=2), file=inv.stdout)
        return
    verb = "built" if result["built"] else "present"
    print(f"{result['image']}: {verb}, {result['size'] / 1e6:.0f} MB", file=inv.stdout)


class _Progress:
    def __init__(self, stream):
        self.stream = stream
        self.tty = bool(getattr(stream, "isatty", lambda: False)())
        self.started = time.monotonic()
        self.step = ""

    def __call__(self, step: str, line: str) -> None:
        elapsed = time.monotonic() - self.started
        if line.startswith("Step "):  # Docker's "Step 2/8 : RUN ..." names the build step
            self.step = line.split(" :", 1)[0]
        label = f"{step} {self.step}".strip() if step == "image" else step
        if self.tty:
            width = 100
            text = f"[{elapsed:6.1f}s] {label}: {line}"[:width]
            self.stream.write("\r\x1b[K" + text)
        else:
            self.stream.write(f"[{elapsed:6.1f}s] {label}: {line}\n")
        self.stream.flush()

    def done(self) -> None:
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()


def ls(inv: Invocation) -> None:
    from clawd.sandbox import registry

    rows = registry.containers()
    if inv.json:
        print(json.dumps({"containers": rows}, indent=2), file=inv.stdout)
        return
    if not rows:
        print("no sandbox containers", file=inv.stdout)
        return
    for row in rows:
        port = row["cdpHostPort"] or "-"
        print(
            f"{row['name']}  {row['state']}  profile={row['profile']}  cdp=127.0.0.1:{port}  "
            f"image={row['image']}",
            file=inv.stdout,
        )


def rm(inv: Invocation) -> None:
    from clawd.sandbox import registry

    names = inv.args.profiles or []
    if not names and not inv.args.all:
        raise UsageError("name the profiles whose containers to remove, or give --all")
    removed = registry.remove(None if inv.args.all else names)
    if inv.json:
        print(json.dumps({"removed": removed}, indent=2), file=inv.stdout)
    else:
        print("removed: " + (", ".join(removed) or "nothing"), file=inv.stdout)


def logs(inv: Invocation) -> None:
    from clawd.sandbox import registry

    text = registry.logs(inv.args.profile, tail=inv.args.tail)
    if inv.json:
        print(json.dumps({"profile": inv.args.profile, "logs": text}, indent=2), file=inv.stdout)
    else:
        print(text, file=inv.stdout)


def observe(inv: Invocation) -> None:
    from clawd.cli import output

    def render(result: dict) -> str:
        return f"{result['url']}\n({result['mode']}; open it once, before {result['expiresAt']})"

    output.emit(inv, inv.client.observe(inv.args.mode), render)


def add_parsers(sub) -> None:
    p = command(
        sub,
        "observe",
        observe,
        "print a one-time link (60 s to open) to watch the profile live: a sandbox's screen "
        "through noVNC, or the active tab of any profile",
    )
    p.add_argument(
        "--mode",
        choices=("vnc", "screencast"),
        help="vnc (a headful sandbox profile's default) or screencast (any profile)",
    )
    _, actions = group(
        sub,
        "sandbox",
        "build the sandbox image; list, remove or read containers",
        needs_service=False,
    )
    p = command(
        actions,
        "build",
        build,
        "build the sandbox browser image (and its base, made "
        "with debootstrap, when missing); no image registry needed",
        needs_service=False,
    )
    p.add_argument("--image", metavar="NAME", help="image name (default: the one profiles use)")
    p.add_argument("--rebuild", action="store_true", help="build even when the image exists")
    command(actions, "ls", ls, "list the sandbox containers", needs_service=False)
    p = command(
        actions, "rm", rm, "remove sandbox containers (running ones too)", needs_service=False
    )
    p.add_argument("profiles", nargs="*", metavar="PROFILE", help="profiles whose containers go")
    p.add_argument("--all", action="store_true", help="every clawd sandbox container")
    p = command(actions, "logs", logs, "print a sandbox container's log", needs_service=False)
    p.add_argument("profile", metavar="PROFILE", help="the sandbox profile")
    p.add_argument("--tail", type=int, default=200, metavar="N", help="last N lines (default 200)")
