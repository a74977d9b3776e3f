"""Chromium as a managed resource: drivers, launching, profiles, connected browsers and tabs."""
