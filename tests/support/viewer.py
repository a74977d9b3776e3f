"""A second, plain headless Chromium that opens a page the way a person's browser would (the
observe links), driven over its own page websocket: evaluate and wait for a condition."""

from __future__ import annotations

import itertools
import json
import time
import urllib.parse

import requests
import websocket

from tests.support.browser import BareChromium


class Viewer:
    def __init__(self, tmp):
        self.chromium = BareChromium(tmp)
        self._ids = itertools.count(1)
        self.ws = None

    def open(self, url: str) -> None:
        base = f"http://127.0.0.1:{self.chromium.port}"
        target = requests.put(f"{base}/json/new?{urllib.parse.quote(url, safe='')}", timeout=10)
        target.raise_for_status()
        self.ws = websocket.create_connection(
            target.json()["webSocketDebuggerUrl"], suppress_origin=True, timeout=10
        )

    def evaluate(self, expression: str):
        call_id = next(self._ids)
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        message = {"id": call_id, "method": "Runtime.evaluate", "params": params}
        self.ws.send(json.dumps(message))
        while True:
            reply = json.loads(self.ws.recv())
            if reply.get("id") == call_id:
                if "exceptionDetails" in reply.get("result", {}):
                    raise AssertionError(f"{expression!r} threw: {reply['result']}")
                return reply["result"]["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 20.0, what: str = ""):
        """The first truthy value of `expression`; fails naming the last value seen."""
        deadline = time.monotonic() + timeout
        value = None
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.1)
        raise AssertionError(f"{what or expression}: still {value!r} after {timeout:g} s")

    def close(self) -> None:
        if self.ws is not None:
            self.ws.close()
        self.chromium.close()


# the centre pixel of an image or canvas as [r, g, b]; null until it has one
PIXEL_OF = """(() => {
  const el = document.querySelector(%r);
  if (!el) return null;
  const w = el.naturalWidth || el.width, h = el.naturalHeight || el.height;
  if (!w || !h) return null;
  const c = document.createElement('canvas'); c.width = w; c.height = h;
  const g = c.getContext('2d'); g.drawImage(el, 0, 0);
  return Array.from(g.getImageData(w >> 1, h >> 1, 1, 1).data.slice(0, 3));
})()"""


def near(rgb, want, tolerance: int = 40) -> bool:
    return rgb is not None and all(abs(a - b) <= tolerance for a, b in zip(rgb, want, strict=True))
