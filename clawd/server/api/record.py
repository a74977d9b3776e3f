"""Recording a tab as video: POST /record/start, POST /record/stop (page/observe/recording.py),
GET /recordings (every recording on disk, also those whose tab went before a stop could collect
them), GET /recordings/<name> (a video or its sidecar, for a remote reader), and noting each
POST /act in the recording of its tab, for the sidecar's chapter marks."""

from __future__ import annotations

import functools
import pathlib
import time

from clawd import errors
from clawd.page.observe import recording
from clawd.server.answers import tab_answer
from clawd.server.handler import FileResponse
from clawd.server.media import MediaStore
from clawd.server.routing import Endpoint, Request


def record_start(req: Request) -> dict:
    tab = req.tab()
    return tab_answer(
        tab, **recording.start(tab, req.service.layout.recordings, limits(req.args, req.config))
    )


def record_stop(req: Request) -> dict:
    tab = req.tab()
    done = recording.stop(tab)
    if done["path"]:
        done["mediaUrl"] = f"/recordings/{pathlib.Path(done['path']).name}"
    done["sidecarUrl"] = f"/recordings/{pathlib.Path(done['sidecar']).name}"
    return tab_answer(tab, **done)


def list_recordings(req: Request) -> dict:
    """The recordings in $CLAWD_HOME/recordings, newest first, each with what its sidecar says."""
    return {"recordings": recording.on_disk(req.service.layout.recordings)}


def recording_file(req: Request) -> FileResponse:
    """A video or sidecar of $CLAWD_HOME/recordings by its bare name."""
    path, content_type = MediaStore(req.service.layout.recordings).open(req.params["name"])
    return FileResponse(path, "video/webm" if path.suffix == ".webm" else content_type)


def limits(args: dict, config) -> recording.Limits:
    """The request's fps, maxSeconds and maxBytes within browser.recording's bounds."""
    conf = config.browser.recording
    seconds = args.get("maxSeconds", conf.default_seconds)
    if seconds > conf.max_seconds:
        raise errors.InvalidRequest(
            f"maxSeconds may be at most {conf.max_seconds} (browser.recording.maxSeconds)"
        )
    max_bytes = args.get("maxBytes", conf.max_bytes)
    if max_bytes > conf.max_bytes:
        raise errors.InvalidRequest(
            f"maxBytes may be at most {conf.max_bytes} (browser.recording.maxBytes)"
        )
    return recording.Limits(args.get("fps", conf.fps), seconds, max_bytes)


def noting_acts(endpoint: Endpoint) -> Endpoint:
    """POST /act as it is, its moment noted in its tab's recording when one runs: which act,
    its ref, when it began and ended, whether it failed. Typed text is never noted."""

    @functools.wraps(endpoint)
    def noted(req: Request):
        started = time.monotonic()
        try:
            answer = endpoint(req)
        except errors.ClawdError as exc:
            _note(req, started, ok=False, code=exc.code)
            raise
        _note(req, started, ok=True)
        return answer

    return noted


def _note(req: Request, started: float, **outcome) -> None:
    recorder = _recorder(req)
    if recorder is None:
        return
    body = req.body if isinstance(req.body, dict) else {}
    facts = {k: body[k] for k in ("ref", "key") if isinstance(body.get(k), str)}
    if body.get("kind") == "batch" and isinstance(body.get("actions"), list):
        facts["kinds"] = [a.get("kind") for a in body["actions"] if isinstance(a, dict)]
    recorder.note_act(str(body.get("kind")), started, time.monotonic(), **facts, **outcome)


def _recorder(req: Request):
    """The running recording of the tab the act went to (none when no tab was reached)."""
    if req.tab_used is None:
        return None
    browser = req.runtime().browser  # reaching a tab made the runtime: nothing starts here
    if browser is None:
        return None
    tab = next((t for t in browser.tabs() if t.tab_id == req.tab_used), None)
    return recording.recorder_of(tab) if tab is not None else None
