#!/bin/sh
# The live view's helpers, run by clawd (docker exec) at a sandbox container's first live view:
# x11vnc on the Xvfb screen (password from /etc/clawd-sandbox/vncpass, put there by clawd before
# start) and websockify with noVNC on 6080. Started with the container, they competed with
# Chromium's start for CPU, which on a busy host must fit sandbox.autoStartTimeoutMs. Once per
# container run: the entrypoint removes /tmp/clawd-live-view at each start.
set -eu
if [ "${CLAWD_NOVNC:-1}" != 1 ] || [ ! -s /etc/clawd-sandbox/vncpass ]; then
    echo "this container has no live view (CLAWD_NOVNC=0 or no VNC password)" >&2
    exit 1
fi
mkdir /tmp/clawd-live-view 2>/dev/null || exit 0  # started already
x11vnc -display :99 -rfbport 5900 -localhost -forever -shared -quiet \
    -passwdfile /etc/clawd-sandbox/vncpass </dev/null >/tmp/x11vnc.log 2>&1 &
websockify --web /usr/share/novnc 6080 127.0.0.1:5900 </dev/null >/tmp/websockify.log 2>&1 &
