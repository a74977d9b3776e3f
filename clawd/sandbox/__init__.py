"""Docker-hosted browsers (driver: sandbox) and the observe links that let a person watch any
profile (DESIGN.md §14). The Docker SDK is imported lazily: clawd runs without it."""
