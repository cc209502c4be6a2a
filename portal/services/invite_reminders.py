"""A reminder some hours before an open invite expires (issue 38): every worker, every few minutes; each once.

The reminder is a notification like the others (portal/services/notifications.py): its row, unique on (account,
'invite-reminder', 'invite:<id>'), makes two workers reading the same invite queue one e-mail; invites already
reminded are left out of the reading.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta

from sqlalchemy import String, and_, cast, exists, select
from sqlmodel import Session

from portal import db
from portal.domain import emails
from portal.domain import invites as invite_rules
from portal.domain import notifications as rules
from portal.domain import table as table_rules
from portal.models import Account, Invite, Notification, Test
from portal.models._base import utcnow
from portal.services import notifications
from portal.settings import settings

log = logging.getLogger(__name__)
EVERY_SECONDS = 300
KIND = "invite-reminder"
PAGE = 1000


def due(
    session: Session, *, now: datetime, hours: int, limit: int = PAGE
) -> list[tuple[int, int, str, int, datetime, int, str]]:
    """(invite id, account id, e-mail, cents, expires at, test id, product type) of open invites ending within
    `hours` and not yet reminded, of running tests."""
    reminded = exists().where(
        Notification.account_id == Invite.account_id,
        Notification.kind == KIND,
        Notification.subject_key == "invite:" + cast(Invite.id, String),
    )
    rows = session.execute(
        select(
            Invite.id,
            Invite.account_id,
            Account.email,
            Invite.amount_cents,
            Invite.expires_at,
            Test.id,
            Test.product_type,
        )
        .join(Account, Account.id == Invite.account_id)
        .join(Test, Test.id == Invite.test_id)
        .where(
            Invite.status == invite_rules.OPEN,
            and_(Invite.expires_at > now, Invite.expires_at <= now + timedelta(hours=hours)),
            Test.status == "running",
            Account.removed_at.is_(None),
            Account.email.is_not(None),
            ~reminded,
        )
        .order_by(Invite.expires_at, Invite.id)
        .limit(limit)
    ).all()
    return [tuple(row) for row in rows]


def remind(session: Session, *, now: datetime | None = None, hours: int | None = None) -> int:
    """Queue the reminders due now (one page); how many were queued."""
    now = now or utcnow()
    hours = hours or settings.invite_reminder_hours
    settings_link = notifications.settings_link()
    pending = []
    for invite_id, account_id, email, cents, expires_at, test_id, product_type in due(session, now=now, hours=hours):
        ends = expires_at if expires_at.tzinfo else expires_at.replace(tzinfo=now.tzinfo)
        link = f"{settings.base_url}{invite_rules.rating_path(test_id)}"
        message = emails.invite_reminder(
            brand=settings.brand_name,
            test_label=invite_rules.product_type_label(product_type),
            payout=table_rules.format_money(cents),
            link=link,
            hours_left=round((ends - now).total_seconds() / 3600),
            settings_link=settings_link,
        )
        pending.append(notifications.Pending(account_id, email, rules.subject_key("invite", invite_id), message, link))
    return notifications.send(session, KIND, pending, now=now)


async def run_forever() -> None:
    while True:
        try:
            queued = await db.run(remind)
            if queued:
                log.info("queued %d invite reminders", queued)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the job alive whatever one round hits
            log.exception("invite reminders failed")
        await asyncio.sleep(EVERY_SECONDS)
