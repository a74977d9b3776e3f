"""clawd: a browser of its own for automated agents, driven over a loopback HTTP service."""

__version__ = "0.1.0"
