"""driver: sandbox, Chromium in the profile's Docker container (container.py): started on demand
unless sandbox.autoStart is false, its files reached through the container, stopped with it."""

from __future__ import annotations

from clawd import errors
from clawd.browser import filebridge
from clawd.browser.drivers.base import Driver


class SandboxDriver(Driver):
    name = "sandbox"
    _container = None

    @property
    def sandbox(self):
        """The profile's container (clawd/sandbox/container.py), made on first use: the Docker
        SDK is imported only then."""
        if self._container is None:
            from clawd.sandbox.container import SandboxContainer

            self._container = SandboxContainer(
                self.profile, self.layout, webmcp=self.config.webmcp
            )
        return self._container

    def check_on_demand(self) -> None:
        if not self.profile.sandbox.auto_start:
            raise errors.BrowserNotRunning(
                f"sandbox profile {self.profile.name} has sandbox.autoStart false: run "
                f"clawd-browser --browser-profile {self.profile.name} start"
            )

    def obtain(self, headless: bool | None) -> str:
        return self.sandbox.ensure()

    def after_connect(self, connection) -> None:
        filebridge.bind(connection, self.sandbox.files())  # uploads and downloads cross over

    def touch(self) -> None:
        if self._container is not None:
            self._container.touch()  # its hot window counts from the last use

    def stop(self) -> bool:
        return self._container is not None and self._container.stop()  # POST /stop stops it

    def status(self) -> dict:
        return {"sandbox": self.sandbox.status()}
