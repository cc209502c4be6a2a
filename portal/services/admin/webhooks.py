"""Staff: the webhook delivery log (/admin/webhooks) and 'Replay' (issue 39, item 4).

Each row is one event for one subscription: the event, where it goes (the subscription's URL and its key), its
status, attempts, the receiver's last answer and when the next attempt is due. The payload is not shown (the
subscriber reads it); the signing secrets never are. Replay makes a delivery due now, whatever its status: the
same event id is sent again (the receiver deduplicates by it).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import and_, or_, select, update
from sqlmodel import Session, col

from portal.domain import webhooks as rules
from portal.domain.ids import whole_number
from portal.domain.staff import roles
from portal.models import ApiKey, WebhookDelivery, WebhookSubscription
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import Caller, require_staff
from portal.services.errors import ServiceError
from portal.services.tables import Dates, Options, Own, TablePage, TableQuery, TableSpec, contains

ERROR_SHOWN = 300


def _status_condition(value: str) -> Any:
    delivered, given_up = col(WebhookDelivery.delivered_at), col(WebhookDelivery.given_up_at)
    if value == rules.DELIVERED:
        return delivered.is_not(None)
    if value == rules.FAILED:
        return and_(delivered.is_(None), given_up.is_not(None))
    waiting = and_(delivered.is_(None), given_up.is_(None))
    attempts = col(WebhookDelivery.attempts)
    return and_(waiting, attempts > 0 if value == rules.RETRYING else attempts == 0)


def _of_statuses(chosen: tuple[str, ...]) -> Any:
    return or_(*(_status_condition(v) for v in chosen))


SOURCE = WebhookDelivery.__table__.join(  # type: ignore[attr-defined]
    WebhookSubscription.__table__,  # type: ignore[attr-defined]
    WebhookSubscription.id == WebhookDelivery.subscription_id,
).join(ApiKey.__table__, ApiKey.id == WebhookSubscription.api_key_id)  # type: ignore[attr-defined]

TABLE = TableSpec(
    key=WebhookDelivery.id,
    sortable={"createdOn": WebhookDelivery.created_at},
    filters=(
        Own("status", rules.STATUSES, _of_statuses),
        Options("event", WebhookDelivery.event_type, tuple(rules.EVENTS)),
        Dates("createdOn", WebhookDelivery.created_at),
    ),
    search=lambda _: or_(contains(WebhookDelivery.event_id), contains(WebhookSubscription.url)),
    source=SOURCE,
)
clean_query = TABLE.clean


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else ""


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def list_deliveries(session: Session, *, actor_id: Caller, query: TableQuery, now: datetime | None = None) -> TablePage:
    require_staff(session, actor_id, roles.WEBHOOKS)
    now = now or utcnow()
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    columns = (
        WebhookDelivery.id,
        WebhookDelivery.event_id,
        WebhookDelivery.event_type,
        WebhookDelivery.created_at,
        WebhookDelivery.attempts,
        WebhookDelivery.next_attempt_at,
        WebhookDelivery.claimed_until,
        WebhookDelivery.delivered_at,
        WebhookDelivery.given_up_at,
        WebhookDelivery.last_status,
        WebhookDelivery.last_error,
        WebhookSubscription.url,
        ApiKey.name,
    )
    found = session.execute(chosen.page(select(*columns).select_from(SOURCE)), values).all()
    return TablePage(rows=[_row(r, now) for r in found], total=int(total))


def _row(found: Any, now: datetime) -> dict[str, str]:
    (
        delivery_id,
        event_id,
        event_type,
        created,
        attempts,
        next_at,
        claimed_until,
        delivered_at,
        given_up_at,
        last_status,
        error,
        url,
        key_name,
    ) = found
    status = rules.status_of(delivered=delivered_at is not None, given_up=given_up_at is not None, attempts=attempts)
    next_try = ""
    if status in (rules.PENDING, rules.RETRYING):
        next_try = "due now" if _aware(next_at) <= now else _when(next_at)
    sending = claimed_until is not None and _aware(claimed_until) > now
    return {
        "id": str(delivery_id),
        "event_id": event_id,
        "event": event_type,
        "event_label": rules.EVENTS.get(event_type, event_type),
        "url": url,
        "key": key_name,
        "created": _when(created),
        "status": status,
        "status_label": "Sending" if sending else rules.STATUS_LABELS[status],
        "attempts": str(attempts),
        "last_status": str(last_status) if last_status is not None else "",
        "last_error": (error or "")[:ERROR_SHOWN],
        "next_try": next_try,
        "delivered": _when(delivered_at),
        "replay": "" if sending else "yes",  # the row's 'Replay' shows where set
    }


def replay(session: Session, *, actor_id: Caller, delivery_id: Any, now: datetime | None = None) -> str:
    """A new attempt now of the same event (same event id): the delivery is due again, whatever its status, unless
    a worker is sending it right now."""
    staff = require_staff(session, actor_id, roles.WEBHOOKS)
    target = whole_number(delivery_id)
    row = session.get(WebhookDelivery, target) if target is not None else None
    if row is None:
        raise ServiceError(rules.DELIVERY_NOT_FOUND)
    now = now or utcnow()
    before = {
        "status": rules.status_of(
            delivered=row.delivered_at is not None, given_up=row.given_up_at is not None, attempts=row.attempts
        ),
        "attempts": row.attempts,
    }
    moved = session.execute(
        update(WebhookDelivery)
        .where(
            col(WebhookDelivery.id) == row.id,
            or_(col(WebhookDelivery.claimed_until).is_(None), col(WebhookDelivery.claimed_until) <= now),
        )
        .values(delivered_at=None, given_up_at=None, next_attempt_at=now, claimed_until=None)
        .execution_options(synchronize_session=False)
    ).rowcount  # type: ignore[attr-defined]
    if moved != 1:
        raise ServiceError(rules.BEING_SENT)
    audit.record(
        session,
        staff,
        "webhook.replay",
        "webhook-delivery",
        row.id,
        before,
        {"event_id": row.event_id, "next_attempt_at": now},
    )
    return "The event is due again now: the sender posts it in its next round, with the same event id."
