"""DNS pinning for `requests`: a transport adapter whose connections go to addresses the
navigation policy already judged, while the Host header, TLS SNI and the certificate check keep
using the host name. Nothing here resolves a name, so a second DNS answer (rebinding) can never
swap a private address in. The policy itself is clawd/security/ssrf.py's."""

from __future__ import annotations

import socket
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from requests.adapters import HTTPAdapter
from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool
from urllib3.exceptions import ConnectTimeoutError, NewConnectionError
from urllib3.poolmanager import PoolManager
from urllib3.util import connection as urllib3_connection

# (address, port), timeout, socket options -> a connected socket
Connector = Callable[[tuple[str, int], "float | None", Any], socket.socket]


def default_connect(
    address: tuple[str, int], timeout: float | None, socket_options: Any = None
) -> socket.socket:
    return urllib3_connection.create_connection(address, timeout, socket_options=socket_options)


@dataclass
class Pin:
    """One hop's vetted addresses for `host`; every socket made is handed to `on_socket` (the
    fetch's deadline watchdog closes them when time is up)."""

    host: str
    addresses: tuple[str, ...]
    connect: Connector = default_connect
    on_socket: Callable[[socket.socket], None] = field(default=lambda sock: None)

    def open(self, port: int, timeout: float | None, socket_options: Any) -> socket.socket:
        """A socket to the first vetted address that accepts; the last failure if none does."""
        failure: OSError | None = None
        for address in self.addresses:
            try:
                sock = self.connect((address, port), timeout, socket_options)
            except TimeoutError:
                raise
            except OSError as exc:
                failure = exc
                continue
            self.on_socket(sock)
            return sock
        raise failure or OSError(f"no vetted address for {self.host}")


def same_host(a: str, b: str) -> bool:
    def key(host: str) -> str:
        return host.strip("[]").lower().rstrip(".")

    return key(a) == key(b)


class _PinnedConnectionMixin:
    """urllib3's connection with name resolution replaced by the pin's addresses."""

    pin: Pin

    def _new_conn(self) -> socket.socket:
        try:
            return self.pin.open(self.port, self.timeout, self.socket_options)
        except TimeoutError as exc:
            raise ConnectTimeoutError(self, f"connecting to {self.host} timed out") from exc
        except OSError as exc:
            raise NewConnectionError(self, f"cannot connect to {self.host}: {exc}") from exc


class _PinnedHTTPConnection(_PinnedConnectionMixin, HTTPConnection):
    pass


class _PinnedHTTPSConnection(_PinnedConnectionMixin, HTTPSConnection):
    pass


class _PinnedPoolMixin:
    pin: Pin

    def _new_conn(self):
        conn = super()._new_conn()
        conn.pin = self.pin
        return conn


class _PinnedHTTPPool(_PinnedPoolMixin, HTTPConnectionPool):
    ConnectionCls = _PinnedHTTPConnection


class _PinnedHTTPSPool(_PinnedPoolMixin, HTTPSConnectionPool):
    ConnectionCls = _PinnedHTTPSConnection


class _PinnedPoolManager(PoolManager):
    def __init__(self, pin: Pin, **kw: Any):
        super().__init__(**kw)
        self.pin = pin
        self.pool_classes_by_scheme = {"http": _PinnedHTTPPool, "https": _PinnedHTTPSPool}

    def _new_pool(self, scheme: str, host: str, port: int, request_context=None):
        if not same_host(host, self.pin.host):
            # an adapter serves the one hop it was made for; anything else is a bug upstream
            raise NewConnectionError(None, f"{host} is not the pinned host {self.pin.host}")
        pool = super()._new_pool(scheme, host, port, request_context)
        pool.pin = self.pin
        return pool


class PinnedAdapter(HTTPAdapter):
    """Mount one per hop (`session.mount("http://", ...)`, same for https): it connects to the
    hop's vetted addresses only, and never retries on its own."""

    def __init__(self, pin: Pin):
        self.pin = pin
        super().__init__(pool_connections=1, pool_maxsize=1, max_retries=0)

    def init_poolmanager(
        self, connections: int, maxsize: int, block: bool = False, **pool_kwargs: Any
    ) -> None:
        self._pool_connections, self._pool_maxsize, self._pool_block = connections, maxsize, block
        self.poolmanager = _PinnedPoolManager(
            self.pin, num_pools=connections, maxsize=maxsize, block=block, **pool_kwargs
        )

    def proxy_manager_for(self, proxy, **proxy_kwargs):
        # a proxy would resolve the name itself; the fetch session never sets one
        raise NewConnectionError(None, "pinned fetches do not go through proxies")
