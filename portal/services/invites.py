"""The invites table of a participant: one page in SQL, with totals; and what a click on an invite does.

The account id always comes from the server-side session (the caller resolves it);
nothing the browser sends can widen the query beyond that account.
"""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Integer, and_, bindparam, func, not_, or_, select
from sqlmodel import Session
from sqlmodel.sql.sqltypes import UTCDateTime

from portal.domain import invites as rules
from portal.domain import table as table_rules
from portal.models import Invite, Test
from portal.services.tables import (
    AnySelect,
    Shape,
    TablePage,
    TableQuery,
    bound_values,
    clean,
    date_range,
    fetch_page,
    page_bounds,
    page_with_totals,
    plan_per_search,
    shape_of,
    split_page,
    tests_matching,
)

SORTABLE = {"createdOn": Invite.created_at}
FILTERS: dict[str, dict[str, Any]] = {
    "status": {"type": "list", "options": rules.STATUSES},
    "createdOn": {"type": "range"},
}


def clean_query(**raw: Any) -> TableQuery:
    return clean(sortable=tuple(SORTABLE), filters_allowed=FILTERS, **raw)


def _status_is(status: str) -> ColumnElement[bool]:
    now = bindparam("now", type_=UTCDateTime)
    if status == rules.OPEN:
        return and_(Invite.status == rules.OPEN, Invite.expires_at > now)
    if status == rules.EXPIRED:
        return or_(Invite.status == rules.EXPIRED, and_(Invite.status == rules.OPEN, Invite.expires_at <= now))
    return Invite.status == status


def _conditions(searching: bool, search_id: bool, filters: tuple[Any, ...]) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [Invite.account_id == bindparam("account_id", type_=Integer)]
    if searching:
        conditions.append(Invite.test_id.in_(tests_matching(search_id)))
    for index, (name, kind, values) in enumerate(filters):
        if name == "createdOn":
            conditions.append(date_range(Invite.created_at, index))
        elif name == "status":
            any_of = or_(*(_status_is(s) for s in values))
            conditions.append(not_(any_of) if kind == "exclude" else any_of)
    return conditions


@lru_cache(maxsize=256)
def _statement(shape: Shape) -> AnySelect:
    """The page and both totals for one request shape (see tables.shape_of); values are bound parameters.

    The page's ids first (an index-only scan of ix_invite_account_created_id), then its columns and tests.
    """
    sort_by, direction, searching, search_id, filters = shape
    conditions = _conditions(searching, search_id, filters)
    column = SORTABLE[sort_by]
    ascending = direction == table_rules.ASCENDING
    order = (column.asc(), Invite.id.asc()) if ascending else (column.desc(), Invite.id.desc())
    account = bindparam("account_id", type_=Integer)
    page_ids = page_bounds(select(Invite.id).where(*conditions).order_by(*order)).scalar_subquery()
    rows = (
        select(Invite.id, Invite.test_id, Invite.status, Invite.amount_cents, Invite.created_at, Invite.expires_at,
               Test.product_type)
        .join(Test, Test.id == Invite.test_id)
        .where(Invite.id.in_(page_ids), Invite.account_id == account)
    )
    total_open = (
        select(func.count()).select_from(Invite)
        .where(Invite.account_id == account, Invite.status == rules.OPEN,
               Invite.expires_at > bindparam("now", type_=UTCDateTime))
    ).scalar_subquery()
    total_matching = select(func.count()).select_from(Invite).where(*conditions).scalar_subquery()
    return page_with_totals(rows, {"total": total_matching, "total_open": total_open}, column.key, ascending)


def list_invites(session: Session, *, account_id: int, query: TableQuery, now: datetime | None = None) -> TablePage:
    """One page of the account's invites, sorted and filtered in SQL, with totalAmount and totalOpenInvites."""
    now = now or datetime.now(UTC)
    # Core execution (no ORM entity loading); the page and both totals in one round trip.
    connection = session.connection()
    plan_per_search(connection, query)
    values = {"account_id": account_id, "now": now, **bound_values(query)}
    page, (total, total_open) = split_page(fetch_page(connection, _statement(shape_of(query)), values), 2)
    return TablePage(rows=[_row(now, *r) for r in page], total=int(total), total_open=int(total_open))


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _row(now: datetime, invite_id: int, test_id: int, status: str, amount_cents: int, created_at: Any,
         expires_at: datetime | None, product_type: str) -> dict[str, str]:
    """One row for the browser; after `now`, the columns of _statement's rows, in order."""
    status = rules.effective_status(status, _aware(expires_at), now)
    return {
        "id": str(invite_id),
        "test_id": str(test_id),
        "test_type": rules.product_type_label(product_type),
        "date": table_rules.format_date(created_at),
        "payout": table_rules.format_money(amount_cents),
        "status": status,
        "status_label": rules.status_label(status),
        "open": "1" if status == rules.OPEN else "",
    }


def invite_click(session: Session, *, account_id: int, invite_id: Any, now: datetime | None = None) -> rules.InviteClick:
    """Where a click on one of the account's invites leads; anything not the account's is 'no longer valid'."""
    now = now or datetime.now(UTC)
    number = table_rules.clean_int(invite_id, 0, low=0, high=2**62)
    invite = session.execute(
        select(Invite.test_id, Invite.status, Invite.expires_at).where(Invite.id == number, Invite.account_id == account_id)
    ).first() if number else None
    if invite is None:
        return rules.InviteClick(message=rules.MSG_INVALID)
    status = rules.effective_status(invite.status, _aware(invite.expires_at), now)
    return rules.click_outcome(status, invite.test_id)
