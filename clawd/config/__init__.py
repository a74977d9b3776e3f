"""The configuration: schema.json, the loader that validates it, the frozen dataclasses."""
