"""A page's settings and state: emulation, device presets, storage, navigation."""
