"""The only place logging handlers are attached: stderr (journald-friendly under systemd, where
journald stamps the time and reads the priority prefix) or a file (mode 0600) that SIGHUP reopens,
so logrotate can move it away without copytruncate. Every record is scrubbed of credentials first,
at every level: websockets' debug lines carry handshake headers and frames."""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import Mapping
from typing import TextIO

from clawd.security import redact

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# sd-daemon(3) priority prefixes: journald turns "<4>" into PRIORITY=4 and strips it
JOURNAL_FORMAT = "<%(priority)d>%(name)s: %(message)s"
PRIORITY = {"DEBUG": 7, "INFO": 6, "WARNING": 4, "ERROR": 3, "CRITICAL": 2}
LEVELS = ("debug", "info", "warning", "error")
QUIET_LIBRARIES = ("urllib3", "websocket")

_lock = threading.Lock()
_handler: logging.Handler | None = None
_secrets: tuple[str, ...] = ()  # masked out of every record; copy-on-write, read without the lock


class Formatter(logging.Formatter):
    """FORMAT, with the date part of the time stamp formatted once a second (strftime was a
    tenth of a request's CPU in a profile of the service, one access line a request)."""

    _stamp = (None, "")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        if datefmt:
            return super().formatTime(record, datefmt)
        second = int(record.created)
        cached, text = self._stamp
        if cached != second:
            text = time.strftime(self.default_time_format, self.converter(record.created))
            self._stamp = (second, text)
        return self.default_msec_format % (text, record.msecs)


class JournalFormatter(logging.Formatter):
    """One record, one line: a multi-line message (a traceback) would become several journal
    entries, so continuation lines are indented into the same entry's text."""

    def format(self, record: logging.LogRecord) -> str:
        record.priority = PRIORITY.get(record.levelname, 6)
        return super().format(record).replace("\n", "\n  ")


class SecretFilter(logging.Filter):
    """Masks credentials in a record's message, arguments and traceback (redact.scrub_credentials,
    and the values given to register_secret). On the handlers, so records of every logger and
    level pass it: websockets logs the relay's request lines, headers and frames at debug."""

    _formatter = logging.Formatter()

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a call whose arguments do not fit: its parts, still scrubbed
            message = f"{record.msg} {record.args!r}"
        record.msg, record.args = scrub(message), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self._formatter.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = scrub(record.stack_info)
        return True


def scrub(text: str) -> str:
    """`text` as it may be logged: registered secrets and credential shapes masked."""
    return redact.scrub_credentials(redact.scrub(text, _secrets))


def register_secret(*values: str | None) -> None:
    """Mask these values (the service token, the relay's DevTools secret) in every record from
    now on, whatever their shape. Values shorter than redact.MIN_PREFIX are left to the patterns:
    masking a short string everywhere would garble the log more than it protects."""
    global _secrets
    kept = tuple(v for v in values if v and len(v) >= redact.MIN_PREFIX)
    with _lock:
        _secrets = tuple(dict.fromkeys(_secrets + kept))


class ReopenableFileHandler(logging.FileHandler):
    """A FileHandler whose file can be reopened by path: after a rename, new lines go to a new
    file. The file is 0600, created so or made so (one logrotate created, or an older clawd's):
    it holds the URLs and titles of the user's browsing."""

    def _open(self):
        fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        try:
            _private(fd)
            return open(fd, self.mode, encoding=self.encoding, errors=self.errors)
        except BaseException:
            os.close(fd)
            raise

    def reopen(self) -> None:
        self.acquire()
        try:
            if self.stream is not None:
                self.stream.close()
            self.stream = self._open()
        finally:
            self.release()


def _private(fd: int) -> None:
    """The log file readable by its owner only; one we may write but not chmod stays as is."""
    if os.fstat(fd).st_mode & 0o077:
        try:
            os.fchmod(fd, 0o600)
        except PermissionError:
            pass


def under_journald(env: Mapping[str, str] | None = None, stream: TextIO | None = None) -> bool:
    """True when `stream` (stderr) is connected to the journal: systemd sets $JOURNAL_STREAM to
    the device:inode of that stream, which a child with redirected stderr no longer matches."""
    env = os.environ if env is None else env
    expected = env.get("JOURNAL_STREAM")
    if not expected:
        return False
    stream = sys.stderr if stream is None else stream
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return expected == f"{st.st_dev}:{st.st_ino}"


def level_number(level: str | None) -> int:
    return getattr(logging, str(level or "info").upper(), logging.INFO)


def configure(
    level: str | None = "info",
    log_file: str | None = None,
    *,
    env: Mapping[str, str] | None = None,
    stream: TextIO | None = None,
) -> logging.Handler:
    """Replace the root handlers with one: the file, else stderr (journal format under systemd)."""
    global _handler
    stream = sys.stderr if stream is None else stream
    if log_file:
        handler: logging.Handler = ReopenableFileHandler(
            os.path.expanduser(log_file), encoding="utf-8"
        )
        handler.setFormatter(Formatter(FORMAT))
    else:
        handler = logging.StreamHandler(stream)
        journal = under_journald(env, stream)
        handler.setFormatter(JournalFormatter(JOURNAL_FORMAT) if journal else Formatter(FORMAT))
    handler.addFilter(SecretFilter())
    root = logging.getLogger()
    with _lock:
        for old in list(root.handlers):
            root.removeHandler(old)
            old.close()
        root.addHandler(handler)
        _handler = handler
    root.setLevel(level_number(level))
    # what FORMAT does not print, logging need not find out for every record (the logging
    # HOWTO's "Optimization"): the caller's source line, thread, process
    logging._srcfile = None
    logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
    for name in QUIET_LIBRARIES:
        logging.getLogger(name).setLevel(logging.WARNING)
    return handler


def reopen() -> bool:
    """SIGHUP: logrotate moved the file; open a new one at the same path. False when logging
    goes to stderr (nothing to reopen)."""
    with _lock:
        handler = _handler
    if isinstance(handler, ReopenableFileHandler):
        handler.reopen()
        return True
    return False


PEER_GONE = (BrokenPipeError, ConnectionResetError, ConnectionAbortedError, TimeoutError)


def connection_error(logger: logging.Logger, client_address) -> None:
    """socketserver's handle_error, through logging instead of a bare traceback on stderr: a
    peer that went away (reset between keep-alive requests, a client that gave up) is normal and
    logged at debug; anything else is an error with its traceback. Call it from an except."""
    exc = sys.exc_info()[1]
    if isinstance(exc, PEER_GONE):
        logger.debug("connection from %s ended: %r", client_address, exc)
    else:
        logger.error("connection from %s failed", client_address, exc_info=True)
