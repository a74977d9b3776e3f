"""Mixed concurrent load on one profile: client threads, each on its own keep-alive connection,
cycling GET /tabs, GET /snapshot, POST /act evaluate and POST /screenshot over a set of tabs.
Used by bench/load.py (figures) and tests/e2e/test_load.py (0 errors, bounded)."""

from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

import psutil

KINDS = ("tabs", "snapshot", "evaluate", "screenshot")
PAGES = ("/index.html", "/long.html", "/snapshot/basics.html", "/act/forms.html")


@dataclass
class LoadResult:
    timings: dict[str, list[float]] = field(default_factory=lambda: {k: [] for k in KINDS})
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def requests(self) -> int:
        return sum(len(v) for v in self.timings.values()) + len(self.errors)


class _Connection:
    def __init__(self, url: str, token: str, timeout: float):
        parts = urllib.parse.urlsplit(url)
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        payload = json.dumps(body) if body is not None else None
        self.conn.request(method, path, body=payload, headers=self.headers)
        response = self.conn.getresponse()
        return response.status, response.read()

    def close(self) -> None:
        self.conn.close()


def request_for(kind: str, tab_id: str) -> tuple[str, str, dict | None]:
    if kind == "tabs":
        return "GET", "/tabs", None
    if kind == "snapshot":
        return "GET", f"/snapshot?targetId={tab_id}", None
    if kind == "evaluate":
        return (
            "POST",
            "/act",
            {"kind": "evaluate", "targetId": tab_id, "fn": "() => document.title.length"},
        )
    return "POST", "/screenshot", {"targetId": tab_id}


def _worker(
    index: int,
    url: str,
    token: str,
    tab_ids: list[str],
    count: int,
    result: LoadResult,
    lock: threading.Lock,
    timeout: float,
) -> None:
    conn = _Connection(url, token, timeout)
    try:
        for i in range(count):
            kind = KINDS[(index + i) % len(KINDS)]
            method, path, body = request_for(
                kind, tab_ids[(index + i // len(KINDS)) % len(tab_ids)]
            )
            began = time.perf_counter()
            try:
                status, data = conn.call(method, path, body)
            except (OSError, http.client.HTTPException) as exc:
                with lock:
                    result.errors.append(f"{kind}: {type(exc).__name__}: {exc}")
                conn.close()
                conn = _Connection(url, token, timeout)
                continue
            elapsed = (time.perf_counter() - began) * 1000
            with lock:
                if status == 200:
                    result.timings[kind].append(elapsed)
                else:
                    result.errors.append(f"{kind} {path}: {status} {data[:200]!r}")
    finally:
        conn.close()


def run_load(
    url: str,
    token: str,
    tab_ids: list[str],
    *,
    threads: int = 8,
    per_thread: int = 100,
    timeout: float = 60.0,
) -> LoadResult:
    """`threads` clients x `per_thread` requests, all at once; every request is timed."""
    result, lock = LoadResult(), threading.Lock()
    workers = [
        threading.Thread(
            target=_worker,
            args=(i, url, token, tab_ids, per_thread, result, lock, timeout),
            name=f"load-{i}",
            daemon=True,
        )
        for i in range(threads)
    ]
    began = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    result.seconds = time.perf_counter() - began
    return result


def open_tabs(client, site, pages=PAGES) -> list[str]:
    return [client.open(site.url(page))["tabId"] for page in pages]


def rss_mb(pid: int) -> float:
    """Resident memory of that one process (the service; Chromium runs in processes of its own)."""
    return psutil.Process(pid).memory_info().rss / 2**20
