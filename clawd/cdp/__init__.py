"""The Chrome DevTools Protocol only: one websocket per browser, sessions, events, discovery."""
