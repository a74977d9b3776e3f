"""The Chrome extension relay (docs/architecture.md): the MV3 extension in extension/, and a
loopback server that the extension connects to and that clawd's CDP layer sees as a browser whose
page targets are the tabs the user shared."""
