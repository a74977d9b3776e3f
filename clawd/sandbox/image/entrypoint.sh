#!/bin/sh
# The sandbox container's first process. Chromium listens on 127.0.0.1:9223 inside (it ignores
# --remote-debugging-address); socat exposes it on 9222 only to CLAWD_CDP_SOURCE_RANGE. Headful
# under Xvfb unless CLAWD_HEADLESS=1; the live view's x11vnc and websockify start later, from
# clawd-sandbox-live-view (live-view.sh).
set -eu
range="${CLAWD_CDP_SOURCE_RANGE:-0.0.0.0/0}"
mkdir -p /tmp/clawd-downloads
# a restarted container keeps its file system: drop the locks its previous run left behind, and
# its live view's mark
rm -rf /tmp/.X99-lock /tmp/.X11-unix/X99 /home/sandbox/user-data/Singleton* /tmp/clawd-live-view
flags="--no-sandbox --no-first-run --no-default-browser-check --disable-sync \
 --disable-background-networking --disable-component-update --disable-dev-shm-usage \
 --disable-features=Translate,MediaRouter --password-store=basic --disable-quic \
 --remote-debugging-port=9223 --user-data-dir=/home/sandbox/user-data --window-size=1280,800"
# WebMCP (the tools pages register for agents) unless browser.webmcp turned it off
if [ "${CLAWD_WEBMCP:-1}" = 1 ]; then
    flags="$flags --enable-features=WebMCP"
fi
if [ "${CLAWD_HEADLESS:-0}" = 1 ]; then
    flags="$flags --headless=new --disable-gpu"
else
    Xvfb :99 -screen 0 1280x800x24 -nolisten tcp &
    export DISPLAY=:99
    i=0
    while [ ! -e /tmp/.X11-unix/X99 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    [ -e /tmp/.X11-unix/X99 ] || { echo "Xvfb did not start" >&2; exit 1; }
fi
socat "TCP-LISTEN:9222,fork,reuseaddr,range=$range" TCP:127.0.0.1:9223 &
# shellcheck disable=SC2086
exec chromium $flags about:blank
