"""The clawd client's API: one method per route of the service (docs/api.md), on top of the
transport (clawd/client/transport.py); the act kinds' methods come from the act table
(clawd/client/act_methods.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from clawd.client.act_methods import ActMethods
from clawd.client.transport import Transport, segment
from clawd.client.web_methods import WebMethods

DESCRIBE_TIMEOUT_S = 630.0  # the describers of one screenshot take at most 600 s together


class Client(Transport, ActMethods, WebMethods):
    """Talks to a running clawd service over its loopback HTTP API.

    Every method returns the service's decoded JSON answer and raises the `clawd.errors` class
    named by the answer's `code` (`ServiceUnreachable` when nothing listens). Every method takes
    `profile=` (default: the client's profile, else the service's default profile); methods that
    act on a tab take `target_id=` (a stable id `t1`, a label, or a raw target id prefix).

        from clawd.client import Client

        with Client() as c:                      # http://127.0.0.1:18791, token from $CLAWD_HOME
            c.open("https://example.com", label="docs")
            snap = c.snapshot(target_id="docs", interactive=True)
            c.click("e3", target_id="docs")
            shot = c.screenshot(target_id="docs", full_page=True)
            c.fetch_media(shot["mediaUrl"], pathlib.Path("page.png"))
    """

    # -- basic ----------------------------------------------------------------------------------
    def status(self, *, profile: str | None = None) -> dict:
        return self._get("/", profile)

    def start(self, headless: bool | None = None, *, profile: str | None = None) -> dict:
        return self.request("POST", "/start", params={"headless": headless}, profile=profile)

    def stop(self, *, profile: str | None = None) -> dict:
        return self._post("/stop", profile)

    def profiles(self, *, profile: str | None = None) -> dict:
        return self._get("/profiles", profile)

    def create_profile(
        self,
        name: str,
        color: str | None = None,
        cdp_url: str | None = None,
        driver: str | None = None,
        user_data_dir: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/profiles/create",
            profile,
            name=name,
            color=color,
            cdp_url=cdp_url,
            driver=driver,
            user_data_dir=user_data_dir,
        )

    def delete_profile(
        self, name: str, *, purge: bool | None = None, profile: str | None = None
    ) -> dict:
        """The profile's user data goes to $CLAWD_HOME/trash, or is erased with purge."""
        return self.request(
            "DELETE", "/profiles/" + segment(name), params={"purge": purge}, profile=profile
        )

    def reset_profile(self, *, purge: bool | None = None, profile: str | None = None) -> dict:
        return self._post("/reset-profile", profile, purge=purge)

    # -- tabs -----------------------------------------------------------------------------------
    def tabs(self, *, profile: str | None = None) -> dict:
        return self._get("/tabs", profile)

    def open(
        self,
        url: str,
        label: str | None = None,
        timeout_ms: int | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/tabs/open",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            url=url,
            label=label,
            timeout_ms=timeout_ms,
        )

    def focus(self, target_id: str, *, profile: str | None = None) -> dict:
        return self._post("/tabs/focus", profile, target_id=target_id)

    def close_tab(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        """Close the named tab, or the last one used when none is named."""
        if target_id is None:
            return self.tab_action("close", profile=profile)
        return self.request("DELETE", "/tabs/" + segment(target_id), profile=profile)

    def tab_action(
        self,
        action: str,
        index: int | None = None,
        url: str | None = None,
        label: str | None = None,
        timeout_ms: int | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        """action: list | new (url, label) | select | close (index from 0; default the last tab
        used)."""
        return self._post(
            "/tabs/action",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            action=action,
            index=index,
            url=url,
            label=label,
            timeout_ms=timeout_ms,
        )

    # -- page -----------------------------------------------------------------------------------
    def navigate(
        self,
        url: str,
        target_id: str | None = None,
        timeout_ms: int | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/navigate",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            url=url,
            target_id=target_id,
            timeout_ms=timeout_ms,
        )

    def snapshot(self, *, profile: str | None = None, **opts: Any) -> dict:
        """`GET /snapshot`; options are docs/snapshot.md's query in snake_case (`max_chars=`,
        `target_id=`); `efficient=True` is `mode="efficient"`; `refs=False` (no refs), `"aria"` or
        `"role"`."""
        if opts.pop("efficient", False):
            opts.setdefault("mode", "efficient")
        return self._get("/snapshot", profile, **opts)

    def find(self, text: str, *, profile: str | None = None, **opts: Any) -> dict:
        """Snapshot lines whose role, name or text contains `text` (`GET /snapshot/find`)."""
        return self._get("/snapshot/find", profile, text=text, **opts)

    def screenshot(
        self,
        target_id: str | None = None,
        full_page: bool = False,
        ref: str | None = None,
        element: str | None = None,
        type: str = "png",
        labels: bool = False,
        quality: int | None = None,
        *,
        describe: bool | None = None,
        if_changed: bool | None = None,
        profile: str | None = None,
    ) -> dict:
        """describe: the service's vision describers answer words instead of the image (they may
        take up to 600 s together; the image comes back, with a note, when they all fail).
        if_changed: `unchanged: true` and no image while the pixels are the tab's last ones."""
        return self._post(
            "/screenshot",
            profile,
            timeout=max(self.timeout, DESCRIBE_TIMEOUT_S) if describe else None,
            target_id=target_id,
            full_page=full_page,
            ref=ref,
            element=element,
            type=type,
            labels=labels,
            quality=quality,
            describe=describe,
            if_changed=if_changed,
        )

    def pdf(
        self,
        target_id: str | None = None,
        landscape: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post("/pdf", profile, target_id=target_id, landscape=landscape)

    # -- act (the kinds of POST /act are ActMethods', from the act table) -------------------------
    def highlight(
        self,
        ref: str,
        target_id: str | None = None,
        duration_ms: int | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/highlight", profile, ref=ref, target_id=target_id, duration_ms=duration_ms
        )

    def file_chooser(
        self,
        paths: Iterable[str],
        ref: str | None = None,
        input_ref: str | None = None,
        target_id: str | None = None,
        *,
        element: str | None = None,
        profile: str | None = None,
    ) -> dict:
        """Files for the chooser a click on `ref` opens, for a file input by ref (`input_ref`) or
        by CSS selector (`element`), or for the next chooser that opens."""
        return self._post(
            "/hooks/file-chooser",
            profile,
            paths=[str(p) for p in paths],
            ref=ref,
            input_ref=input_ref,
            element=element,
            target_id=target_id,
        )

    def dialog(
        self,
        accept: bool,
        prompt_text: str | None = None,
        dialog_id: str | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/hooks/dialog",
            profile,
            accept=accept,
            prompt_text=prompt_text,
            dialog_id=dialog_id,
            target_id=target_id,
        )

    def download(
        self,
        ref: str,
        path: str | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post("/download", profile, ref=ref, path=path, target_id=target_id)

    def wait_download(
        self,
        timeout_ms: int | None = None,
        target_id: str | None = None,
        *,
        path: str | None = None,
        profile: str | None = None,
    ) -> dict:
        """The next finished download; with `path`, saved under that name in
        $CLAWD_HOME/downloads."""
        return self._post(
            "/wait/download",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            timeout_ms=timeout_ms,
            target_id=target_id,
            path=path,
        )

    def grant_permissions(
        self, origin: str, permissions: Iterable[str], *, profile: str | None = None
    ) -> dict:
        return self._post(
            "/permissions/grant", profile, origin=origin, permissions=list(permissions)
        )

    # -- debug ----------------------------------------------------------------------------------
    def console(
        self,
        level: str | None = None,
        target_id: str | None = None,
        clear: bool | None = None,
        wrap: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        """level: messages of this level and above; wrap: in untrusted-content markers."""
        return self._get(
            "/console", profile, level=level, target_id=target_id, clear=clear, wrap=wrap
        )

    def errors(
        self,
        clear: bool = False,
        target_id: str | None = None,
        wrap: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._get("/errors", profile, clear=clear, target_id=target_id, wrap=wrap)

    def requests(
        self,
        filter: str | None = None,
        clear: bool = False,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._get("/requests", profile, filter=filter, clear=clear, target_id=target_id)

    def response_body(
        self,
        url: str,
        timeout_ms: int | None = None,
        max_chars: int | None = None,
        target_id: str | None = None,
        wrap: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/response/body",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            url=url,
            timeout_ms=timeout_ms,
            max_chars=max_chars,
            target_id=target_id,
            wrap=wrap,
        )

    def trace_start(
        self,
        screenshots: bool = False,
        target_id: str | None = None,
        *,
        snapshots: bool | None = None,
        sources: bool | None = None,
        profile: str | None = None,
    ) -> dict:
        """snapshots: layer trees and paint pictures; sources: the page's script text."""
        return self._post(
            "/trace/start",
            profile,
            screenshots=screenshots,
            snapshots=snapshots,
            sources=sources,
            target_id=target_id,
        )

    def trace_stop(
        self, path: str | None = None, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        return self._post("/trace/stop", profile, path=path, target_id=target_id)

    def har_start(
        self,
        content: str | None = None,
        url_filter: str | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        """Record the tab's requests; content: omit (default), embed or attach the bodies."""
        return self._post(
            "/har/start", profile, content=content, url_filter=url_filter, target_id=target_id
        )

    def har_stop(
        self, path: str | None = None, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        """Write the HAR under $CLAWD_HOME/har; answers its path."""
        return self._post("/har/stop", profile, path=path, target_id=target_id)

    # -- network routes (the profile's) ---------------------------------------------------------
    def add_route(
        self,
        url: str,
        action: str,
        *,
        resource_type: str | None = None,
        method: str | None = None,
        status: int | None = None,
        headers: dict | None = None,
        body: str | None = None,
        body_path: str | None = None,
        rewrite_url: str | None = None,
        times: int | None = None,
        profile: str | None = None,
    ) -> dict:
        """Answer (fulfill), fail (abort) or send on (continue) the requests matching the glob
        `url` in every tab of the profile; answers the route with its routeId."""
        return self._post(
            "/route",
            profile,
            url=url,
            action=action,
            resource_type=resource_type,
            method=method,
            status=status,
            headers=headers,
            body=body,
            body_path=body_path,
            rewrite_url=rewrite_url,
            times=times,
        )

    def routes(self, *, profile: str | None = None) -> dict:
        return self._get("/routes", profile)

    def remove_route(self, route_id: str, *, profile: str | None = None) -> dict:
        return self.request("DELETE", "/route/" + segment(route_id), profile=profile)

    def record_start(
        self,
        target_id: str | None = None,
        *,
        fps: int | None = None,
        max_seconds: float | None = None,
        max_bytes: int | None = None,
        profile: str | None = None,
    ) -> dict:
        """Start a WebM recording of the tab; it stops by itself at maxSeconds or maxBytes."""
        return self._post(
            "/record/start",
            profile,
            fps=fps,
            max_seconds=max_seconds,
            max_bytes=max_bytes,
            target_id=target_id,
        )

    def record_stop(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        """Finish the tab's recording: the video's path, its frames and why it stopped."""
        return self._post("/record/stop", profile, target_id=target_id)

    def recordings(self) -> dict:
        """Every recording on the service's disk, newest first, with why each stopped."""
        return self._get("/recordings", None)

    # -- state ----------------------------------------------------------------------------------
    def cookies(
        self, all: bool = False, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        return self._get("/cookies", profile, all=all, target_id=target_id)

    def set_cookie(
        self, cookie: dict, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        """cookie: CDP `Network.CookieParam` keys (name, value, url|domain, path, secure,
        httpOnly...)."""
        return self._post("/cookies/set", profile, cookie=cookie, target_id=target_id)

    def clear_cookies(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/cookies/clear", profile, target_id=target_id)

    def storage(
        self,
        kind: str,
        key: str | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._get("/storage/" + segment(kind), profile, key=key, target_id=target_id)

    def set_storage(
        self,
        kind: str,
        key: str,
        value: str,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            f"/storage/{segment(kind)}/set", profile, key=key, value=value, target_id=target_id
        )

    def clear_storage(
        self, kind: str, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        return self._post(f"/storage/{segment(kind)}/clear", profile, target_id=target_id)

    def save_state(
        self,
        path: str | None = None,
        origins: list[str] | None = None,
        encrypt: bool | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        """Cookies and each origin's storage to a storageState file under $CLAWD_HOME/state."""
        return self._post(
            "/state/save", profile, path=path, origins=origins, encrypt=encrypt, target_id=target_id
        )

    def load_state(
        self, path: str, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        """A storageState file (clawd's or Playwright's) into the profile."""
        return self._post("/state/load", profile, path=path, target_id=target_id)

    def hand_off(
        self, reason: str, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        """The tab becomes a person's until give_back(); the answer has a live-view link."""
        return self._post("/handoff", profile, reason=reason, target_id=target_id)

    def give_back(self, target_id: str | None = None, *, profile: str | None = None) -> dict:
        return self._post("/handoff/done", profile, target_id=target_id)

    # -- settings -------------------------------------------------------------------------------
    def set_offline(
        self, offline: bool, target_id: str | None = None, *, profile: str | None = None
    ) -> dict:
        return self._post("/set/offline", profile, offline=offline, target_id=target_id)

    def set_headers(
        self,
        headers: dict[str, str] | None = None,
        target_id: str | None = None,
        clear: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        """Extra headers on every request of the tab; `clear=True` stops sending them."""
        return self._post(
            "/set/headers", profile, headers=headers, target_id=target_id, clear=clear
        )

    def set_credentials(
        self,
        username: str | None = None,
        password: str | None = None,
        clear: bool = False,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/set/credentials",
            profile,
            username=username,
            password=password,
            clear=clear,
            target_id=target_id,
        )

    def set_geolocation(
        self,
        latitude: float | None = None,
        longitude: float | None = None,
        accuracy: float | None = None,
        origin: str | None = None,
        clear: bool = False,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/set/geolocation",
            profile,
            latitude=latitude,
            longitude=longitude,
            accuracy=accuracy,
            origin=origin,
            clear=clear,
            target_id=target_id,
        )

    def set_media(
        self,
        color_scheme: str | None = None,
        reduced_motion: str | None = None,
        target_id: str | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/set/media",
            profile,
            color_scheme=color_scheme,
            reduced_motion=reduced_motion,
            target_id=target_id,
        )

    def set_timezone(
        self,
        timezone: str | None = None,
        target_id: str | None = None,
        clear: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/set/timezone", profile, timezone=timezone, target_id=target_id, clear=clear
        )

    def set_locale(
        self,
        locale: str | None = None,
        target_id: str | None = None,
        clear: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post("/set/locale", profile, locale=locale, target_id=target_id, clear=clear)

    def set_device(
        self,
        name: str | None = None,
        target_id: str | None = None,
        clear: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post("/set/device", profile, name=name, target_id=target_id, clear=clear)

    def set_viewport(
        self,
        width: int,
        height: int,
        device_scale_factor: float | None = None,
        target_id: str | None = None,
        mobile: bool | None = None,
        *,
        profile: str | None = None,
    ) -> dict:
        return self._post(
            "/set/viewport",
            profile,
            width=width,
            height=height,
            device_scale_factor=device_scale_factor,
            target_id=target_id,
            mobile=mobile,
        )

    # -- WebMCP: the tools a page offers --------------------------------------------------------
    def webmcp_tools(
        self,
        target_id: str | None = None,
        wrap: bool | None = None,
        *,
        since: int | None = None,
        wait_ms: int | None = None,
        profile: str | None = None,
    ) -> dict:
        """The tab's page tools; with `since` (an earlier answer's version) and `wait_ms`, the
        answer waits for the set to change."""
        return self.request(
            "GET",
            "/webmcp/tools",
            params=_present(
                {"targetId": target_id, "wrap": wrap, "since": since, "waitMs": wait_ms}
            ),
            profile=profile,
            timeout=self._wait_timeout(wait_ms),
        )

    def webmcp_call(
        self,
        name: str,
        input: dict | None = None,
        target_id: str | None = None,
        *,
        frame: str | None = None,
        timeout_ms: int | None = None,
        wrap: bool | None = None,
        profile: str | None = None,
    ) -> dict:
        """Call the page's tool `name` with `input` (checked against its inputSchema)."""
        return self._post(
            "/webmcp/call",
            profile,
            timeout=self._wait_timeout(timeout_ms),
            name=name,
            input=input,
            target_id=target_id,
            frame=frame,
            timeout_ms=timeout_ms,
            wrap=wrap,
        )

    def doctor(self, *, profile: str | None = None) -> dict:
        return self._get("/doctor", profile)

    def observe(self, mode: str | None = None, *, profile: str | None = None) -> dict:
        """A one-time link to watch the profile: `{url, expiresAt, mode}`; mode vnc (a sandbox's
        screen) or screencast (the active tab, any profile)."""
        return self._get("/sandbox/observe", profile, mode=mode)


def _present(fields: dict) -> dict:
    return {k: v for k, v in fields.items() if v is not None}
