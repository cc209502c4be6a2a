"""Which notifications a participant gets: the notifications page and the one-click unsubscribe (issue 38).

The page's calls take the account from the server-side session (the caller resolves it); the unsubscribe takes it
from a signed token (portal/services/notification_tokens.py), with no session.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlmodel import Session

from portal.domain import notifications as rules
from portal.models import Account, NotificationOptOut
from portal.models._base import utcnow
from portal.services import notification_tokens as tokens
from portal.services.errors import ServiceError

UNKNOWN_KIND = "This notification cannot be changed."


def choices(session: Session, *, account_id: int) -> list[dict[str, str]]:
    """Each kind with its label and whether it is on, in the registry's order (for the page)."""
    off = set(
        session.execute(select(NotificationOptOut.kind).where(NotificationOptOut.account_id == account_id)).scalars()
    )
    return [
        {
            "kind": kind.key,
            "label": kind.label,
            "on": "" if kind.key in off and kind.optional else "1",
            "optional": "1" if kind.optional else "",
        }
        for kind in rules.KINDS
    ]


def set_on(session: Session, *, account_id: int, kind: Any, on: Any) -> None:
    """Turn one kind on or off for the account; doing it twice changes nothing more."""
    if not rules.can_turn_off(kind) or not isinstance(on, bool):
        raise ServiceError(UNKNOWN_KIND)
    if on:
        session.execute(
            delete(NotificationOptOut).where(
                NotificationOptOut.account_id == account_id, NotificationOptOut.kind == kind
            )
        )
        return
    make = postgresql.insert if session.get_bind().dialect.name == "postgresql" else sqlite.insert
    session.execute(
        make(NotificationOptOut).values(account_id=account_id, kind=kind, created_at=utcnow()).on_conflict_do_nothing()
    )


def unsubscribe_target(session: Session, *, token: Any) -> tuple[int, str] | None:
    """The account and kind a token names, if it is valid and the account exists."""
    found = tokens.read(token)
    if found is None or session.get(Account, found[0]) is None:
        return None
    return found


def unsubscribe(session: Session, *, token: Any) -> str | None:
    """Turn off the kind the token names for the account it names; the kind's label, or None for a bad token."""
    found = unsubscribe_target(session, token=token)
    if found is None:
        return None
    set_on(session, account_id=found[0], kind=found[1], on=False)
    return rules.LABELS[found[1]]
