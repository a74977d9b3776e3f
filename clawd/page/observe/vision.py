"""Screenshot descriptions for agents whose model cannot see images (config `browser.vision`): the
describers of `models` (vision models over HTTP: clawd/vision/models.py, or commands) are tried in
order, then `command`, until one answers; the answer comes back wrapped as untrusted content with
MEDIA: lines neutralized, or every describer's failure is named.

A command runs without a shell as `command *args <image path>`, with the prompt on its standard
input; what it prints (at most maxBytes, the rest cut off) is the description.
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
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from clawd.config.model import VisionConfig, VisionModel
from clawd.security.content import wrap_untrusted
from clawd.vision import models
from clawd.vision.models import DescriberFailed

log = logging.getLogger("clawd.vision")

NEUTRALIZED = "[neutralized] "
STDERR_TAIL = 2048
CHAIN_BUDGET_S = 600.0  # all describers of one screenshot together (the agent tool waits 630 s)
_READ = 1 << 16


@dataclass(frozen=True)
class Description:
    """`text` (wrapped, neutralized) and the `describer` that wrote it, else `failure` says why
    there is none; `failures` names each describer that failed ("openai gpt-4o: HTTP 429 ...")."""

    text: str | None = None
    failure: str | None = None
    describer: str | None = None
    failures: tuple[str, ...] = ()


def describe(
    image: pathlib.Path,
    config: VisionConfig,
    *,
    env: Mapping[str, str] | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> Description:
    """Try each describer on `image` in order; never raises for a describer's own failures."""
    chain = describers(config)
    if not config.enabled or not chain:
        return Description(
            failure="browser.vision is not enabled (set browser.vision.enabled, and models or "
            "command)"
        )
    failures: list[str] = []
    end = clock() + CHAIN_BUDGET_S
    for entry in chain:
        name = label(entry)
        try:
            text = _run(entry, image, config, end - clock(), env, clock)
        except DescriberFailed as exc:
            log.info("vision describer %s failed: %s", name, exc)
            failures.append(f"{name}: {exc}")
            continue
        text = wrap_untrusted(neutralize_media_lines(text), source="vision")
        return Description(text=text, describer=name, failures=tuple(failures))
    return Description(failure="; ".join(failures), failures=tuple(failures))


def describers(config: VisionConfig) -> tuple[VisionModel, ...]:
    """models in their order, then the command of browser.vision.command."""
    if not config.command:
        return config.models
    return (*config.models, VisionModel(type="cli", command=config.command, args=config.args))


def label(entry: VisionModel) -> str:
    """How a describer is named in notes and logs: `openai gpt-4o-mini`, `describe-image`."""
    if entry.type != "cli" and entry.provider:
        return f"{entry.provider} {entry.model}"
    return pathlib.PurePath(entry.command).name if entry.command else str(entry.type)


def _run(
    entry: VisionModel,
    image: pathlib.Path,
    config: VisionConfig,
    left: float,
    env: Mapping[str, str] | None,
    clock: Callable[[], float],
) -> str:
    if left <= 0:
        raise DescriberFailed(f"not tried: the describers' {CHAIN_BUDGET_S:g} s were spent")
    timeout = min((entry.timeout_ms or config.timeout_ms) / 1000, left)
    if entry.type == "cli":
        return run_command(entry, image, config.prompt, timeout, config.max_bytes, clock)
    if entry.type != "provider":
        raise DescriberFailed(f"unknown describer type {entry.type!r} (provider or cli)")
    try:
        data = image.read_bytes()
    except OSError as exc:
        raise DescriberFailed(f"cannot read the image: {exc.strerror or exc}") from None
    return models.describe(
        entry,
        data,
        "image/jpeg" if data[:2] == b"\xff\xd8" else "image/png",
        config.prompt,
        timeout=timeout,
        max_bytes=config.max_bytes,
        env=env,
    )


def run_command(
    entry: VisionModel,
    image: pathlib.Path,
    prompt: str,
    timeout: float,
    max_bytes: int,
    clock: Callable[[], float] = time.monotonic,
) -> str:
    """What the command prints for `image`; DescriberFailed when it fails, hangs or says nothing."""
    if not entry.command:
        raise DescriberFailed("a type: cli entry needs a command")
    argv = [entry.command, *entry.args, str(image)]
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
        raise DescriberFailed(f"cannot run {entry.command}: {exc.strerror or exc}") from None
    try:
        run = _collect(proc, prompt.encode("utf-8"), clock() + timeout, max_bytes, clock)
    finally:
        _reap(proc)
    return _verdict(proc, run, timeout, max_bytes)


@dataclass
class _Run:
    out: bytearray
    err: bytearray
    timed_out: bool = False
    cut: bool = False


def _verdict(proc: subprocess.Popen, run: _Run, timeout: float, max_bytes: int) -> str:
    if run.timed_out:
        raise DescriberFailed(f"did not finish within {timeout * 1000:.0f} ms")
    if not run.cut and proc.returncode != 0:
        tail = run.err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise DescriberFailed(f"exited with status {proc.returncode} {tail[0]}".rstrip())
    text = run.out.decode("utf-8", "replace").strip()
    if not text:
        raise DescriberFailed("printed no description")
    if run.cut:
        text += f"\n[...description cut at {max_bytes} bytes]"
    return text


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
