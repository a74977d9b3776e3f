#!/bin/sh
# clawd-screenshot.sh URL [OUTDIR]: a full-page screenshot of URL into OUTDIR/shot-<time>.png,
# for cron. Starts a local clawd service when none answers (--autostart) and leaves it running
# for the next job. Everything goes to a log; on failure the last lines also go to stderr, so
# cron mails you only when something went wrong.
#
# Environment:
#   CLAWD_BROWSER   the command to run (default: clawd-browser; may carry options, e.g.
#                   "/opt/clawd/bin/clawd-browser --config /etc/clawd/clawd.yaml")
#   SHOT_LOG        the log file (default: OUTDIR/screenshot.log, rotated at 1 MiB, one kept)
#   SHOT_KEEP_DAYS  delete screenshots older than this many days (default: 14; 0 keeps all)
#   CLAWD_HOME, CLAWD_CONFIG, CLAWD_TOKEN  as for clawd-browser itself
set -u

URL=${1:?usage: clawd-screenshot.sh URL [OUTDIR]}
OUTDIR=${2:-${CLAWD_HOME:-$HOME/.clawd}/screenshots}
CLAWD=${CLAWD_BROWSER:-clawd-browser}
LOG=${SHOT_LOG:-$OUTDIR/screenshot.log}
KEEP_DAYS=${SHOT_KEEP_DAYS:-14}
LABEL="cron-$$"
OUT="$OUTDIR/shot-$(date +%Y%m%d-%H%M%S).png"

mkdir -p "$OUTDIR" || exit 1
if [ -f "$LOG" ] && [ "$(wc -c <"$LOG")" -gt 1048576 ]; then
    mv -f "$LOG" "$LOG.1"
fi

log() { printf '%s [%s] %s\n' "$(date '+%Y-%m-%dT%H:%M:%S%z')" "$$" "$*" >>"$LOG"; }
# $CLAWD is unquoted on purpose: it may carry options
run() { log "+ $CLAWD $*"; $CLAWD "$@" >>"$LOG" 2>&1; }
fail() {
    log "FAILED: $2 (exit status $1)"
    echo "clawd-screenshot: $2 failed with exit status $1; the end of $LOG:" >&2
    tail -n 20 "$LOG" >&2
    exit "$1"
}

log "start: $URL -> $OUT"
run --autostart open --label "$LABEL" "$URL" || fail $? "open $URL"
if ! run screenshot --target "$LABEL" --full-page --out "$OUT"; then
    status=$?
    run close "$LABEL"
    fail "$status" "screenshot of $URL"
fi
run close "$LABEL" || log "warning: could not close tab $LABEL"
log "saved $OUT ($(wc -c <"$OUT") bytes)"
if [ "$KEEP_DAYS" -gt 0 ]; then
    find "$OUTDIR" -name 'shot-*.png' -type f -mtime +"$KEEP_DAYS" -exec rm -f {} + 2>>"$LOG"
fi
exit 0
