"""The only place logging handlers are attached: stderr (journald-friendly under systemd, where
journald stamps the time itself) or a file that SIGHUP reopens."""
from __future__ import annotations

import logging
import os
import sys

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
JOURNAL_FORMAT = "<%(priority)s>%(name)s: %(message)s"
PRIORITY = {"DEBUG": 7, "INFO": 6, "WARNING": 4, "ERROR": 3, "CRITICAL": 2}


class _JournalFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        record.priority = PRIORITY.get(record.levelname, 6)
        return super().format(record)


def under_journald(env=os.environ) -> bool:
    return bool(env.get("JOURNAL_STREAM") or env.get("INVOCATION_ID") and env.get("NOTIFY_SOCKET"))


def configure(level: str = "info", log_file: str | None = None) -> logging.Handler:
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    if log_file:
        handler: logging.Handler = logging.FileHandler(log_file)
        handler.setFormatter(logging.Formatter(FORMAT))
    elif under_journald():
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_JournalFormatter(JOURNAL_FORMAT))
    else:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(FORMAT))
    root.addHandler(handler)
    root.setLevel(getattr(logging, str(level).upper(), logging.INFO))
    logging.getLogger("urllib3").setLevel(logging.WARNING)
    logging.getLogger("websocket").setLevel(logging.WARNING)
    return handler


def reopen(level: str = "info", log_file: str | None = None) -> None:
    """SIGHUP: logrotate moved the file; start a new one."""
    configure(level, log_file)
