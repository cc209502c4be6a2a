"""What queues a notification besides invites (issue 38): verification granted, a review decided, a reward sent or
failed. Each is called in the transaction of the change it announces, only for the rows that change moved (so a
change made twice notifies once), and the notification's subject key makes a repeat queue nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import select
from sqlmodel import Session

from portal.domain import emails
from portal.domain import invites as invite_rules
from portal.domain import notifications as rules
from portal.domain import table as table_rules
from portal.domain.staff import reviews as decisions
from portal.models import Account, Review, Reward, Test
from portal.services import notifications
from portal.settings import settings

HOME = "/"
PROFILE = "/profile"


def _link(path: str) -> str:
    return f"{settings.base_url}{path}"


def account_verified(session: Session, account_ids: Iterable[int]) -> int:
    """Each account just verified (once per account)."""
    found = notifications.recipients(session, account_ids)
    message = emails.account_verified(
        brand=settings.brand_name, link=_link(PROFILE), settings_link=notifications.settings_link()
    )
    pending = [
        notifications.Pending(account_id, email, rules.subject_key("account", account_id), message)
        for account_id, email in found.items()
    ]
    return notifications.send(session, "verified", pending)


def reviews_decided(
    session: Session, review_ids: Iterable[int], status: str, reason: str | None, note: str | None
) -> int:
    """Each review just approved or rejected (with the reason); an exclusion pays like an approval and says so."""
    kind = "review-rejected" if status == decisions.REJECTED else "review-approved"
    rows = session.execute(
        select(Review.id, Review.account_id, Test.product_type, Reward.amount_cents)
        .join(Test, Test.id == Review.test_id)
        .outerjoin(Reward, Reward.review_id == Review.id)
        .where(Review.id.in_(sorted(set(review_ids))), Review.account_id.is_not(None))
    ).all()
    found = notifications.recipients(session, [row[1] for row in rows])
    settings_link = notifications.settings_link()
    pending = []
    for review_id, account_id, product_type, cents in rows:
        label = invite_rules.product_type_label(product_type)
        if kind == "review-rejected":
            message = emails.review_rejected(
                brand=settings.brand_name,
                test_label=label,
                reason=decisions.REJECTION_REASONS.get(reason or "", reason or "not given"),
                note=note or "",
                link=_link(HOME),
                settings_link=settings_link,
            )
        else:
            message = emails.review_approved(
                brand=settings.brand_name,
                test_label=label,
                payout=table_rules.format_money(cents),
                link=_link(HOME),
                settings_link=settings_link,
            )
        if account_id in found:
            pending.append(
                notifications.Pending(account_id, found[account_id], rules.subject_key("review", review_id), message)
            )
    return notifications.send(session, kind, pending)


def reward_moved(session: Session, reward_id: int, *, sent: bool, reason: str = "") -> bool:
    """A reward's payout was sent, or failed (each attempt's outcome once: a resend may be told again)."""
    reward = session.get(Reward, reward_id, populate_existing=True)  # after the Core UPDATE that moved it
    if reward is None or reward.account_id is None:
        return False
    account = session.get(Account, reward.account_id)
    if account is None:
        return False
    what = (
        f"the {invite_rules.product_type_label(reward.product_type)} test"
        if reward.product_type
        else "a referral bonus"
    )
    payout = table_rules.format_money(reward.amount_cents)
    settings_link = notifications.settings_link()
    if sent:
        message = emails.reward_sent(
            brand=settings.brand_name,
            payout=payout,
            what=what,
            email=reward.payment_email or account.payment_email or account.email or "your e-mail",
            link=_link(HOME),
            settings_link=settings_link,
        )
    else:
        message = emails.reward_failed(
            brand=settings.brand_name,
            payout=payout,
            what=what,
            reason=reason,
            link=_link(HOME),
            settings_link=settings_link,
        )
    return notifications.notify(
        session,
        kind="reward-sent" if sent else "reward-failed",
        account_id=account.id,
        subject_key=rules.subject_key("reward", f"{reward.id}:{reward.attempts}"),
        message=message,
    )
