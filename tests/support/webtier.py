"""Building a web tier for tests without a service: the config (127.0.0.1 allowed, as the browser
tests have it), a stub resolver that records its calls, a connector that maps addresses (so a
"public" address lands on a loopback server and no test ever leaves the machine), and the web
routes on a running service's router until they are in server/routes.py."""

from __future__ import annotations

import socket
import tempfile
import threading

from clawd.config.loader import config_from_data
from clawd.web.pinning import default_connect
from clawd.web.tier import WebTier


def web_config(web: dict | None = None, *, allowed=("127.0.0.1",), extra: dict | None = None):
    data = {"browser": {"ssrfPolicy": {"allowedHostnames": list(allowed)}}, "web": web or {}}
    for section, values in (extra or {}).items():  # one level deep: browser.enabled and the like
        data[section] = {**data.get(section, {}), **values}
    return config_from_data(data, env={"CLAWD_HOME": tempfile.mkdtemp(prefix="clawd-web-")})


def tier(
    web: dict | None = None,
    *,
    resolver=None,
    connect=default_connect,
    verify=True,
    env=None,
    allowed=("127.0.0.1",),
    extra: dict | None = None,
) -> WebTier:
    return WebTier(
        web_config(web, allowed=allowed, extra=extra),
        resolver=resolver,
        env=env or {},
        connect=connect,
        verify=verify,
    )


class StubDns:
    """Answers from a table; a name with a list of answer lists answers them in turn (the last
    one again and again), as a rebinding DNS server would."""

    def __init__(self, table: dict):
        self.table = table
        self.calls: list[str] = []
        self._lock = threading.Lock()

    def __call__(self, host: str) -> list[str]:
        with self._lock:
            self.calls.append(host)
            answers = self.table.get(host)
            if answers is None:
                raise OSError(f"{host}: no such name")
            if answers and isinstance(answers[0], list):
                return list(answers.pop(0) if len(answers) > 1 else answers[0])
            return list(answers)


class MappingConnector:
    """Connects to `mapping[address]` instead of `address` and records what it was asked."""

    def __init__(self, mapping: dict[str, tuple[str, int]]):
        self.mapping = mapping
        self.asked: list[tuple[str, int]] = []

    def __call__(self, address: tuple[str, int], timeout, socket_options=None) -> socket.socket:
        self.asked.append(address)
        target = self.mapping.get(address[0])
        if target is None:
            raise ConnectionRefusedError(f"test connector: {address[0]} is not mapped")
        return default_connect(target, timeout, socket_options)
