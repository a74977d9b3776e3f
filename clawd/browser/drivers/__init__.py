"""The ways a profile gets its browser, one class each (base.py says what a driver is); the
sandbox's and the extension relay's drivers live in their own wings (sandbox/, relay/)."""
