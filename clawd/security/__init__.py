"""The guards: navigation policy, auth, CSRF, tool policy, paths, redaction, content wrapping."""
