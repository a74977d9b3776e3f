"""One service's web tier, built from its configuration: the reader (web_fetch), the search
(web_search), the navigation policy fetches and renders are judged by (web.ssrfPolicy, each key
null taking browser.ssrfPolicy's), the pinning proxy a render goes through, and the tool policy.
Built again when the configuration changes."""

from __future__ import annotations

from collections.abc import Mapping

from clawd.config.model import Config
from clawd.security.proxy import PinningProxy
from clawd.security.ssrf import CachedResolver, NavigationPolicy, Resolver, system_resolver
from clawd.security.tools import ToolPolicy
from clawd.web.fetch import PageFetcher
from clawd.web.firecrawl import Firecrawl
from clawd.web.pinning import Connector, default_connect
from clawd.web.reader import WebReader
from clawd.web.search import WebSearch


class WebTier:
    def __init__(
        self,
        config: Config,
        *,
        resolver: Resolver | None = None,
        env: Mapping[str, str] | None = None,
        connect: Connector = default_connect,
        verify: bool | str = True,
    ):
        web = config.web
        self.source = settings_of(config)
        self.ssrf_policy = web.ssrf_policy.effective(config.browser.ssrf_policy)
        self._resolver = resolver or system_resolver
        self.fetcher = PageFetcher(
            web.fetch, self.ssrf_policy, resolver=self._resolver, connect=connect, verify=verify
        )
        self.reader = WebReader(
            web.fetch, self.fetcher, firecrawl=Firecrawl(web.fetch.firecrawl, env=env)
        )
        self.search = WebSearch(web.search, env=env)
        self.tools = ToolPolicy.from_config(config.tools)

    def navigation_policy(self) -> NavigationPolicy:
        """The policy a rendered page's navigation is judged by: the fetch's own."""
        return NavigationPolicy(self.ssrf_policy, resolver=self._resolver)

    def pinning_proxy(self) -> PinningProxy:
        """A proxy (not started) for one render's browser context: the same policy, with a cache
        of DNS answers as long-lived as the render, so a page's many requests to one host wait
        on DNS once (each connection still goes to an address that was judged)."""
        return PinningProxy(
            NavigationPolicy(self.ssrf_policy, resolver=CachedResolver(self._resolver))
        )


def settings_of(config: Config) -> tuple:
    """What a tier is built from: a reload that changes none of it keeps the tier and its cache."""
    return config.web, config.tools, config.browser.ssrf_policy
