"""The e-mail outbox: messages are written in the same transaction as the change they announce.

`enqueue_email` only adds a row to the caller's transaction; the background sender
(`portal.services.mail_sender`) delivers pending rows over SMTP with retries and backoff.
With no SMTP configured the rows simply stay in the outbox (`python -m portal.cli outbox`).
"""

from __future__ import annotations

from sqlmodel import Session

from portal.models import OutboxEmail


def enqueue_email(
    session: Session, *, to: str, subject: str, body: str, kind: str, link: str | None = None
) -> OutboxEmail:
    row = OutboxEmail(to_address=to, subject=subject, body_text=body, kind=kind, link=link)
    session.add(row)
    return row
