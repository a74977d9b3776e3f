"""Docker-hosted browsers (driver: sandbox) and the observe links that let a person watch any
profile (docs/architecture.md). The Docker SDK is imported lazily: clawd runs without it."""
