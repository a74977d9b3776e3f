"""clawd: a browser of its own for automated agents, driven over a loopback HTTP service."""

import logging

__version__ = "0.1.0"

# The client is a library too: an application that imports it and configures no logging must not
# get "No handlers could be found" or stray records on stderr. The service's handlers are
# attached to the root logger by clawd/log.py, which records still reach (NullHandler propagates).
logging.getLogger("clawd").addHandler(logging.NullHandler())
