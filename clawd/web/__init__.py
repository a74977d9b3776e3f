"""The web tier (docs/architecture.md): web_fetch reads one page as text without a browser
(fetch.py, extract.py, reader.py; the browser only for pages that build their text with scripts,
render.py), web_search asks a search provider's HTTP API (search/). tier.py puts them together for a
service; nothing here imports server/."""
