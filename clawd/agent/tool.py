"""The one `browser` tool a model calls: its JSON Schema, and running a call through
clawd.client.Client.

A call never raises to the model: the answer is compact text (wrapped as untrusted content, errors
included, with their code) and, for screenshots, an image no larger than 1568 px on its long side.
"""

from __future__ import annotations

import logging
import pathlib
import re
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import jsonschema

from clawd import acts, errors
from clawd.agent import render
from clawd.agent.schema import (
    ACT_REQUIRED,
    ACTIONS,
    EVERYWHERE,
    FIELDS,  # noqa: F401
    MAX_SNAPSHOT_CHARS,
    parameters_schema,
    tool_description,  # noqa: F401
)
from clawd.client import Client
from clawd.client.api import DESCRIBE_TIMEOUT_S
from clawd.config.model import NodeConfig
from clawd.security.content import END, START, wrap_untrusted
from clawd.security.paths import confine
from clawd.security.tools import ALLOW_ALL, ToolPolicy, action_tool

log = logging.getLogger("clawd.agent")

TOOL_NAME = "browser"
MAX_IMAGE_SIDE = 1568  # the long side models take without rescaling it themselves


@dataclass(frozen=True)
class Image:
    data: bytes
    mime_type: str


@dataclass(frozen=True)
class ToolResult:
    """What the model gets: text (always wrapped as untrusted content) and maybe an image."""

    text: str
    image: Image | None = None
    is_error: bool = False
    code: str | None = None  # the error's code


class BrowserTool:
    """Runs `browser` tool calls against a clawd service through `client`."""

    name = TOOL_NAME

    def __init__(
        self,
        client: Client,
        *,
        nodes: Mapping[str, NodeConfig] | None = None,
        uploads: pathlib.Path | None = None,
        copy_uploads: bool = False,
        client_factory: Callable[..., Client] = Client,
    ):
        """nodes: the services `target: node` reaches; uploads: this machine's uploads directory,
        whose files are copied to a node before it hands them to a page (copy_uploads)."""
        self.client = client
        self.nodes = dict(nodes or {})
        self.uploads = uploads
        self.copy_uploads = copy_uploads
        self._client_factory = client_factory
        self._node_tools: dict[str, BrowserTool] = {}
        self._acted = False  # the next snapshot is a delta by default (docs/actions.md)
        self._validators = {
            action: jsonschema.Draft202012Validator(parameters_schema(action))
            for action in (None, *ACTIONS)
        }

    def run(
        self, arguments: dict | None, *, action: str | None = None, policy: ToolPolicy = ALLOW_ALL
    ) -> ToolResult:
        """One call: `arguments` as the model sent them; `action` names the split tool, if any;
        `policy` may deny the action (browser_<action>) whichever tool name asked for it."""
        try:
            args = flat_request(dict(arguments or {}))
            _check_action(policy, action or args.get("action"))
            action, args = self._check(args, action)
            target = args.pop("target", None)
            if target == "sandbox":  # this service's sandbox profile (docs/architecture.md)
                args["profile"], target = self._sandbox_profile(args.get("profile")), "host"
            tool = self._routed(target, args.pop("node", None))
            text, image = _HANDLERS[action](tool, args)
        except errors.ClawdError as exc:
            return error_result(exc.code, getattr(exc, "message", None) or str(exc))
        except Exception as exc:  # the model's boundary: log it, tell it, never raise
            log.exception("browser tool %s failed", action)
            return error_result("INTERNAL", f"{type(exc).__name__}: {exc}")
        return ToolResult(wrap_untrusted(text, source="browser tool"), image)

    def _check(self, args: dict, action: str | None) -> tuple[str, dict]:
        problem = jsonschema.exceptions.best_match(self._validators[action].iter_errors(args))
        if problem is not None:
            where = ".".join(str(p) for p in problem.absolute_path) or "arguments"
            raise errors.InvalidRequest(f"{where}: {problem.message}")
        action = action or args.pop("action")
        spec = ACTIONS[action]
        what, required = action, spec.required
        if action == "act" and args.get("kind"):
            what, required = f"act {args['kind']}", required + ACT_REQUIRED.get(args["kind"], ())
        missing = [name for name in required if args.get(name) is None]
        if missing:
            raise errors.InvalidRequest(f"{what} needs {', '.join(missing)}")
        known = {*EVERYWHERE, *spec.fields, *(("targetId",) if spec.tab else ())}
        return action, {
            k: v for k, v in args.items() if k in known
        }  # fields of other actions: ignored

    # -- where the browser is -------------------------------------------------------------------
    def _sandbox_profile(self, named: str | None) -> str:
        """target sandbox: the named profile when it is a sandbox one, else the first."""
        listed = self.client.profiles().get("profiles") or []
        boxes = [p["name"] for p in listed if p.get("driver") == "sandbox"]
        if named is not None and named not in boxes:
            raise errors.InvalidRequest(f"target sandbox: profile {named} is not a sandbox profile")
        if not boxes:
            raise errors.TargetUnavailable(
                "target sandbox: this service has no sandbox profile (driver: sandbox); use "
                "target host (the default) or a configured node"
            )
        return named or boxes[0]

    def _routed(self, target: str | None, node: str | None) -> BrowserTool:
        """This tool (target host), or the one of a configured node."""
        if node is not None and target not in (None, "node"):
            raise errors.InvalidRequest(
                f"node names a node: give it with target node, not {target}"
            )
        if target in (None, "host") and node is None:
            return self
        return self._node_tool(node)

    def _node_tool(self, name: str | None) -> BrowserTool:
        if not self.nodes:
            raise errors.NodeNotFound(
                "target node: no nodes are configured (nodes: {<name>: {url, token}} in clawd.yaml)"
            )
        if name is None and len(self.nodes) > 1:
            raise errors.InvalidRequest(
                f"target node: say which with node, one of {', '.join(self.nodes)}"
            )
        name = name if name is not None else next(iter(self.nodes))
        config = self.nodes.get(name)
        if config is None:
            raise errors.NodeNotFound(f"no node {name!r}; configured: {', '.join(self.nodes)}")
        tool = self._node_tools.get(name)
        if tool is None:
            client = self._client_factory(
                config.url,
                token=config.token,
                password=config.password,
                timeout=self.client.timeout,
                ambient_credentials=False,
            )
            tool = self._node_tools[name] = BrowserTool(
                client, uploads=self.uploads, copy_uploads=True
            )
        return tool

    # -- actions --------------------------------------------------------------------------------
    def _status(self, a: dict) -> tuple[str, None]:
        return render.status(self.client.status(profile=a.get("profile"))), None

    def _start(self, a: dict) -> tuple[str, None]:
        return render.status(self.client.start(a.get("headless"), profile=a.get("profile"))), None

    def _stop(self, a: dict) -> tuple[str, None]:
        return render.stopped(self.client.stop(profile=a.get("profile"))), None

    def _profiles(self, a: dict) -> tuple[str, None]:
        return render.profiles(self.client.profiles(profile=a.get("profile"))), None

    def _tabs(self, a: dict) -> tuple[str, None]:
        return render.tabs(self.client.tabs(profile=a.get("profile"))), None

    def _open(self, a: dict) -> tuple[str, None]:
        tab = self.client.open(
            a["url"], label=a.get("label"), timeout_ms=a.get("timeoutMs"), profile=a.get("profile")
        )
        return "opened " + render.tab_line(tab), None

    def _focus(self, a: dict) -> tuple[str, None]:
        return "focused " + render.tab_line(
            self.client.focus(a["targetId"], profile=a.get("profile"))
        ), None

    def _close(self, a: dict) -> tuple[str, None]:
        return render.closed(
            self.client.close_tab(a.get("targetId"), profile=a.get("profile"))
        ), None

    def _navigate(self, a: dict) -> tuple[str, None]:
        result = self.client.navigate(
            a["url"],
            target_id=a.get("targetId"),
            timeout_ms=a.get("timeoutMs"),
            profile=a.get("profile"),
        )
        return render.page_state(result), None

    def _snapshot(self, a: dict) -> tuple[str, None]:
        query = snapshot_query(a)
        if "delta" not in a and self._acted and not a.get("cursor"):
            query["delta"] = True  # after an act, what changed: the model read the rest already
        self._acted = False
        result = self.client.snapshot(profile=a.get("profile"), **query)
        return render.snapshot(result, MAX_SNAPSHOT_CHARS), None

    def _screenshot(self, a: dict) -> tuple[str, Image | None]:
        body = {
            "targetId": a.get("targetId"),
            "fullPage": a.get("fullPage"),
            "ref": a.get("ref"),
            "type": a.get("type"),
            # omitted: the service describes it when its browser.vision is enabled
            "describe": "auto" if a.get("describe") is None else a["describe"],
            "maxSide": MAX_IMAGE_SIDE,
        }
        result = self.client.request(
            "POST",
            "/screenshot",
            json=_present(body),
            profile=a.get("profile"),
            timeout=max(self.client.timeout, DESCRIBE_TIMEOUT_S)
            if a.get("describe") is not False
            else None,
        )
        if result.get("described"):
            return render.described(result, unwrap(result.get("description") or "")), None
        mime = "image/jpeg" if result.get("type") == "jpeg" else "image/png"
        return render.screenshot(result), Image(self._media_bytes(result["mediaUrl"]), mime)

    def _media_bytes(self, media_url: str) -> bytes:
        """Through GET /media, so a service on another machine works too."""
        with tempfile.TemporaryDirectory(prefix="clawd-tool-") as tmp:
            return self.client.fetch_media(media_url, pathlib.Path(tmp) / "media").read_bytes()

    def _console(self, a: dict) -> tuple[str, None]:
        result = self.client.console(
            a.get("level"),
            target_id=a.get("targetId"),
            clear=a.get("clear"),
            profile=a.get("profile"),
        )
        return render.console(result), None

    def _pdf(self, a: dict) -> tuple[str, None]:
        result = self.client.pdf(
            a.get("targetId"), landscape=a.get("landscape"), profile=a.get("profile")
        )
        return render.pdf(result), None

    def _upload(self, a: dict) -> tuple[str, None]:
        paths = self._copied(a["paths"]) if self.copy_uploads else a["paths"]
        result = self.client.file_chooser(
            paths,
            ref=a.get("ref"),
            input_ref=a.get("inputRef"),
            element=a.get("element"),
            target_id=a.get("targetId"),
            profile=a.get("profile"),
        )
        return render.upload(result), None

    def _copied(self, paths: list[str]) -> list[str]:
        """Local uploads put into the node's uploads directory: where its browser can read them."""
        if self.uploads is None:
            raise errors.InvalidRequest(
                "upload through a node needs this machine's uploads directory"
            )
        return [self.client.put_upload(confine(self.uploads, path))["path"] for path in paths]

    def _dialog(self, a: dict) -> tuple[str, None]:
        result = self.client.dialog(
            a["accept"],
            prompt_text=a.get("promptText"),
            dialog_id=a.get("dialogId"),
            target_id=a.get("targetId"),
            profile=a.get("profile"),
        )
        return render.dialog(result, a["accept"]), None

    def _handoff(self, a: dict) -> tuple[str, None]:
        result = self.client.hand_off(
            a["reason"], target_id=a.get("targetId"), profile=a.get("profile")
        )
        return render.handoff(result), None

    def _act(self, a: dict) -> tuple[str, None]:
        fields = {acts.snake(k): v for k, v in a.items() if k not in ("kind", "profile")}
        result = self.client.act(a["kind"], profile=a.get("profile"), **fields)
        self._acted = True
        return render.act(result), None


    def _webmcp(self, a: dict) -> tuple[str, None]:
        """List the page's tools, or call one (what the page wrote is wrapped with the rest)."""
        if not a.get("tool"):
            listed = self.client.webmcp_tools(a.get("targetId"), profile=a.get("profile"))
            return render.webmcp_tools(listed), None
        result = self.client.webmcp_call(
            a["tool"], a.get("input") or {}, a.get("targetId"), profile=a.get("profile")
        )
        return render.webmcp_call(result), None


_HANDLERS: dict[str, Callable[[BrowserTool, dict], tuple[str, Image | None]]] = {
    name: getattr(BrowserTool, f"_{name}") for name in ACTIONS
}


def _check_action(policy: ToolPolicy, action) -> None:
    """TOOL_DENIED for a denied action, before its arguments are checked (an unknown one is the
    schema's to refuse)."""
    if isinstance(action, str) and action in ACTIONS:
        policy.check(action_tool(action))


def flat_request(args: dict) -> dict:
    """OpenClaw's `{"action": "act", "request": {kind, ...}}` as clawd's flat arguments;
    a field given both ways must agree."""
    request = args.get("request")
    if not isinstance(request, dict):
        return args  # absent, or the schema's to refuse
    flat = {k: v for k, v in args.items() if k != "request"}
    for key, value in request.items():
        if key in flat and flat[key] != value:
            raise errors.InvalidRequest(
                f"request.{key} ({value!r}) and {key} ({flat[key]!r}) differ; give one"
            )
        flat[key] = value
    return flat


def snapshot_query(a: dict) -> dict:
    """GET /snapshot's options (snake_case for Client.snapshot) for the tool's arguments.

    With no mode the service's browser.snapshotDefaults.mode applies; `full` spells the whole tree
    out so that an `efficient` default cannot fill it in. The character cap never exceeds 80,000."""
    query = {
        "target_id": a.get("targetId"),
        "selector": a.get("selector"),
        "frame": a.get("frame"),
        "urls": a.get("urls"),
        "interactive": a.get("interactive"),
        "compact": a.get("compact"),
        "depth": a.get("depth"),
        "max_chars": a.get("maxChars"),
        "refs": a.get("refs"),
        "cursor": a.get("cursor"),
        "delta": a.get("delta"),
    }
    if a.get("mode") == "efficient":
        query["mode"] = "efficient"
    elif a.get("mode") == "full":
        query.update(
            {
                k: v
                for k, v in (
                    ("interactive", False),
                    ("compact", False),
                    ("depth", 1000),
                    ("max_chars", MAX_SNAPSHOT_CHARS),
                )
                if query[k] is None
            }
        )
    return _present(query)


def error_result(code: str, message: str) -> ToolResult:
    text = f"error {code}: {message}"
    hint = render.ERROR_HINTS.get(code)
    if hint:
        text += f"\n{hint}"
    return ToolResult(wrap_untrusted(text, source="browser tool error"), is_error=True, code=code)


_WRAPPED = re.compile(
    rf'\A<<<{START} id="(?P<id>[0-9a-f]+)">>>\n(?P<body>.*)\n<<<{END} id="(?P=id)">>>\Z', re.DOTALL
)


def unwrap(text: str) -> str:
    """The content of text the service already wrapped (it is wrapped again with our own header)."""
    match = _WRAPPED.match(text)
    return match["body"] if match else text


def _present(fields: dict) -> dict:
    return {k: v for k, v in fields.items() if v is not None}


def all_tool_names(split: bool) -> list[str]:
    return [f"{TOOL_NAME}_{action}" for action in ACTIONS] if split else [TOOL_NAME]


def action_of_tool(name: str) -> str | None:
    """The action a tool name stands for: None for `browser`, `open` for `browser_open`."""
    if name == TOOL_NAME:
        return None
    action = name[len(TOOL_NAME) + 1 :] if name.startswith(TOOL_NAME + "_") else ""
    if action not in ACTIONS:
        raise errors.InvalidRequest(f"unknown tool {name!r}")
    return action
