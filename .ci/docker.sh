#!/usr/bin/env bash
# Docker for the sandbox tests (DESIGN.md §14), then the command given: installs docker.io and
# debootstrap when missing, starts dockerd when no daemon answers (and stops that one at exit),
# builds the sandbox base and browser images once (`make sandbox-images`; reused when present).
#   .ci/docker.sh make test
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
PATH="$PATH:/usr/sbin:/sbin"

if ! command -v dockerd >/dev/null 2>&1 || ! command -v debootstrap >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq docker.io debootstrap >/dev/null
fi

answers() { timeout 5 docker version >/dev/null 2>&1; }
started_pid=""
stop_started() {
    if [ -n "$started_pid" ]; then
        $SUDO kill "$started_pid" 2>/dev/null || true
        for _ in $(seq 100); do $SUDO kill -0 "$started_pid" 2>/dev/null || break; sleep 0.1; done
    fi
}
if ! answers; then
    state="$(mktemp -d /tmp/clawd-dockerd.XXXXXX)"
    $SUDO dockerd --pidfile "$state/dockerd.pid" >"$state/dockerd.log" 2>&1 &
    started_pid=$!
    trap stop_started EXIT
    for _ in $(seq 300); do answers && break; sleep 0.1; done
    answers || { echo "dockerd did not start; its log:" >&2; tail -20 "$state/dockerd.log" >&2; exit 1; }
fi

make sandbox-images
"$@"
