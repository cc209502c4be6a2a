"""The status of an outbox e-mail, derived from sent_at and attempts with the sender's retry rules
(portal/services/mail_sender.py: an unsent e-mail is tried while attempts < MAIL_MAX_ATTEMPTS, with the
backoff of portal/domain/mail_retry.py between tries); and what 'Retry now' does to it."""

from __future__ import annotations

from datetime import datetime

SENT, WAITING, RETRYING, FAILED = "sent", "waiting", "retrying", "failed"
STATUSES = (WAITING, RETRYING, FAILED, SENT)
LABELS = {WAITING: "Waiting", RETRYING: "Retrying", FAILED: "Failed", SENT: "Sent"}


def status(*, sent_at: datetime | None, attempts: int, max_attempts: int) -> str:
    """Sent: delivered. Failed: every allowed attempt failed (the sender gives up). Retrying: failed at
    least once, another attempt is scheduled. Waiting: not tried yet (or no SMTP server configured)."""
    if sent_at is not None:
        return SENT
    if attempts >= max_attempts:
        return FAILED
    return RETRYING if attempts > 0 else WAITING


def attempts_bounds(value: str, max_attempts: int) -> tuple[bool, int, int | None]:
    """The same rule as `status`, as (sent, lowest attempts, attempts below this or None) for a query."""
    if value == SENT:
        return True, 0, None
    if value == FAILED:
        return False, max_attempts, None
    if value == RETRYING:
        return False, 1, max_attempts
    return False, 0, min(1, max_attempts)


def attempts_after_retry(attempts: int, max_attempts: int) -> int:
    """'Retry now' keeps the count of an e-mail still being retried; a failed one gets one more attempt
    (its count goes back to one below the maximum, so a new failure makes it Failed again)."""
    return attempts if attempts < max_attempts else max(max_attempts - 1, 0)


def can_retry(sent_at: datetime | None) -> bool:
    return sent_at is None
