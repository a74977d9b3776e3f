"""What a browser pool (Browserless and the like, docs/architecture.md) answers, read from the raw
handshake: 429 -> POOL_BUSY, 401/403 -> REMOTE_AUTH_FAILED, anything else -> CDP_UNREACHABLE.
And the error every in-flight call of a remote profile gets when the pool closes its session."""

from __future__ import annotations

import websocket

from clawd import errors

# Browserless 2.42 answers 429 without a Retry-After header (measured): its sessions end when
# their client leaves or at its TIMEOUT, so a few seconds is a fair first wait.
DEFAULT_RETRY_AFTER = 5


def handshake_error(exc: BaseException, where: str) -> errors.ClawdError:
    """The ClawdError for a failed websocket handshake with `where` (a redacted URL)."""
    if isinstance(exc, websocket.WebSocketBadStatusException):
        return status_error(exc.status_code, exc.resp_headers or {}, where, "websocket handshake")
    if isinstance(exc, errors.ClawdError):
        return exc
    if isinstance(exc, websocket.WebSocketTimeoutException | TimeoutError):
        return errors.CdpUnreachable(
            f"the DevTools websocket at {where} did not answer the handshake in time: a pool "
            "holds a session in its queue (QUEUED) until one of its CONCURRENT slots frees; "
            "wait longer with browser.remoteCdpHandshakeTimeoutMs"
        )
    return errors.CdpUnreachable(
        f"cannot connect to the DevTools websocket at {where}: {type(exc).__name__}"
        + (f": {exc}" if str(exc) else "")
    )


def status_error(status: int, headers, where: str, step: str) -> errors.ClawdError:
    """An HTTP status from the pool at `step` (handshake or discovery) as a ClawdError."""
    if status == 429:
        retry = retry_after(headers)
        return errors.PoolBusy(
            f"the browser pool at {where} is busy (429 on the {step}: its running sessions and "
            f"queue are full); retry in {retry} s, or raise the pool's CONCURRENT / QUEUED",
            retryAfter=retry,
        )
    if status in (401, 403):
        return errors.RemoteAuthFailed(
            f"the remote browser at {where} refused the credentials ({status} on the {step}): "
            "check the token (?token=...) or user:password in cdpUrl",
            status=status,
        )
    return errors.CdpUnreachable(
        f"the DevTools endpoint at {where} answered {status} on the {step}", status=status
    )


def retry_after(headers) -> int:
    """Seconds from a Retry-After header (delta-seconds form), else DEFAULT_RETRY_AFTER."""
    lowered = {str(k).lower(): v for k, v in dict(headers).items()}
    value = str(lowered.get("retry-after", "")).strip()
    if value.isdigit():
        return max(1, int(value))
    return DEFAULT_RETRY_AFTER


def session_ended(where: str, reason: str, *, restore: str = "none") -> errors.RemoteSessionEnded:
    """For every in-flight call when a remote profile's socket closes without clawd closing it."""
    after = {
        "none": "the next call connects a new browser with no tabs",
        "state": "the next call connects a new browser and puts the cookies and localStorage back",
        "tabs": "the next call connects a new browser and reopens the tabs with their cookies "
        "and localStorage",
    }.get(restore, "the next call connects a new browser")
    return errors.RemoteSessionEnded(
        f"the pool at {where} closed the browser session ({reason}); its browser and tabs are "
        "gone. The likely cause is the pool's session timeout: raise it with &timeout=<ms> on "
        f"cdpUrl (Browserless) or the pool's TIMEOUT; {after}",
        reason=reason,
    )
