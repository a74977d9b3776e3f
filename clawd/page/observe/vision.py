"""Screenshot descriptions for agents whose model cannot see images (config `browser.vision`).

The command runs without a shell as `command *args <image path>`, with the prompt on its standard
input; what it prints (at most maxBytes) is the description, returned as untrusted content.
"""

from __future__ import annotations

import logging
import os
import pathlib
import selectors
import signal
import subprocess
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from clawd.config.model import VisionConfig
from clawd.security.content import wrap_untrusted

log = logging.getLogger("clawd.vision")

NEUTRALIZED = "[neutralized] "
STDERR_TAIL = 2048
_READ = 1 << 16


@dataclass(frozen=True)
class Description:
    """`text` (wrapped, neutralized) when the command described the image,
    else `failure` says why."""

    text: str | None = None
    failure: str | None = None


def describe(
    image: pathlib.Path, config: VisionConfig, *, clock: Callable[[], float] = time.monotonic
) -> Description:
    """Run the vision command on `image`; never raises for the command's own failures."""
    if not config.enabled or not config.command:
        return Description(
            failure="browser.vision is not enabled (set browser.vision.enabled and command)"
        )
    argv = [config.command, *config.args, str(image)]
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            close_fds=True,
        )
    except OSError as exc:
        return Description(failure=f"cannot run {config.command}: {exc.strerror or exc}")
    deadline = clock() + config.timeout_ms / 1000
    try:
        run = _collect(proc, config.prompt.encode("utf-8"), deadline, config.max_bytes, clock)
    finally:
        _reap(proc)
    return _verdict(config, proc, run)


@dataclass
class _Run:
    out: bytearray
    err: bytearray
    timed_out: bool = False
    cut: bool = False


def _verdict(config: VisionConfig, proc: subprocess.Popen, run: _Run) -> Description:
    name = pathlib.PurePath(config.command).name
    if run.timed_out:
        return Description(failure=f"{name} did not finish within {config.timeout_ms} ms")
    if not run.cut and proc.returncode != 0:
        tail = run.err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        return Description(
            failure=f"{name} exited with status {proc.returncode} {tail[0]}".rstrip()
        )
    text = run.out.decode("utf-8", "replace").strip()
    if not text:
        return Description(failure=f"{name} printed no description")
    if run.cut:
        text += f"\n[...description cut at {config.max_bytes} bytes]"
    return Description(text=wrap_untrusted(neutralize_media_lines(text), source="vision"))


def _collect(
    proc: subprocess.Popen,
    prompt: bytes,
    deadline: float,
    max_bytes: int,
    clock: Callable[[], float],
) -> _Run:
    """Feed the prompt and read both outputs until the command closes them, the deadline passes,
    or the description reaches max_bytes (then the rest is not waited for)."""
    run = _Run(bytearray(), bytearray())
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stdout, selectors.EVENT_READ, run.out)
        sel.register(proc.stderr, selectors.EVENT_READ, run.err)
        pending = memoryview(prompt)
        os.set_blocking(proc.stdin.fileno(), False)
        sel.register(proc.stdin, selectors.EVENT_WRITE)
        while len(sel.get_map()):
            remaining = deadline - clock()
            if remaining <= 0:
                run.timed_out = True
                return run
            for key, _ in sel.select(remaining):
                if key.fileobj is proc.stdin:
                    pending = _feed(sel, proc.stdin, pending)
                elif _read(sel, key, run, max_bytes):
                    return run
    try:
        proc.wait(max(0.0, deadline - clock()))
    except subprocess.TimeoutExpired:  # outputs closed, yet it lingers
        run.timed_out = True
    return run


def _feed(sel: selectors.BaseSelector, stdin, pending: memoryview) -> memoryview:
    try:
        pending = pending[os.write(stdin.fileno(), pending[:_READ]) :]
    except BlockingIOError:
        return pending
    except (BrokenPipeError, ConnectionResetError):  # it does not read stdin: that is allowed
        pending = pending[:0]
    if not pending:
        sel.unregister(stdin)
        stdin.close()
    return pending


def _read(
    sel: selectors.BaseSelector, key: selectors.SelectorKey, run: _Run, max_bytes: int
) -> bool:
    """True when the description is full."""
    chunk = os.read(key.fd, _READ)
    if not chunk:
        sel.unregister(key.fileobj)
        return False
    buf = key.data
    limit = max_bytes if buf is run.out else STDERR_TAIL
    if buf is run.err:
        buf += chunk
        del buf[:-limit]
        return False
    buf += chunk[: limit - len(buf)]
    run.cut = len(buf) >= limit
    return run.cut


def _reap(proc: subprocess.Popen) -> None:
    """Stop the command and whatever it left running in its own session, then collect it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        if proc.poll() is None:
            proc.kill()
    for stream in (proc.stdin, proc.stdout, proc.stderr):
        if stream and not stream.closed:
            try:
                stream.close()
            except OSError:
                pass
    proc.wait()


def neutralize_media_lines(text: str) -> str:
    """Prefix `[neutralized] ` to every line that reads as a `MEDIA:` directive (any case, after
    leading spaces): a described page must not make the agent's host attach files."""
    return "\n".join(
        NEUTRALIZED + line if _is_media_line(line) else line for line in text.splitlines()
    )


def _is_media_line(line: str) -> bool:
    return unicodedata.normalize("NFKC", line).lstrip().casefold().startswith("media:")
