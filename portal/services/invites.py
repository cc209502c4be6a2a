"""The invites table of a participant: one page in SQL, with totals; and what a click on an invite does.

The account id always comes from the server-side session (the caller resolves it);
nothing the browser sends can widen the query beyond that account.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Integer, and_, bindparam, func, or_, select
from sqlmodel import Session
from sqlmodel.sql.sqltypes import UTCDateTime

from portal.domain import invites as rules
from portal.domain import table as table_rules
from portal.models import Invite, ScreenerResponse, Test
from portal.services.tables import (
    Dates,
    Own,
    TablePage,
    TableQuery,
    TableSpec,
    read_page,
    searches_an_id,
    tests_matching,
)

_ACCOUNT = bindparam("account_id", type_=Integer)
_NOW = bindparam("now", type_=UTCDateTime)


# The screening question of the invite's test said no to this participant (issue 40: the invite leaves the open list).
_SCREENED_OUT = (
    select(ScreenerResponse.id)
    .where(
        ScreenerResponse.test_id == Invite.test_id,
        ScreenerResponse.account_id == Invite.account_id,
        ScreenerResponse.is_passed.is_(False),
    )
    .exists()
)


def _status_is(status: str) -> ColumnElement[bool]:
    if status == rules.OPEN:
        return and_(Invite.status == rules.OPEN, Invite.expires_at > _NOW, ~_SCREENED_OUT)
    if status == rules.EXPIRED:
        return or_(Invite.status == rules.EXPIRED, and_(Invite.status == rules.OPEN, Invite.expires_at <= _NOW))
    return Invite.status == status


# The page's ids first (an index-only scan of ix_invite_account_created_id), then its columns and tests.
TABLE = TableSpec(
    key=Invite.id,
    sortable={"createdOn": Invite.created_at},
    filters=(
        Own("status", rules.STATUSES, lambda chosen: or_(*(_status_is(s) for s in chosen))),
        Dates("createdOn", Invite.created_at),
    ),
    search=lambda by_id: Invite.test_id.in_(tests_matching(by_id)),
    search_form=searches_an_id,
    scope=(Invite.account_id == _ACCOUNT,),
    rows=select(
        Invite.id,
        Invite.test_id,
        Invite.status,
        Invite.amount_cents,
        Invite.created_at,
        Invite.expires_at,
        Test.product_type,
        Test.status,
        Test.name,
        _SCREENED_OUT,
    ).join(Test, Test.id == Invite.test_id),
    totals={
        "total_open": select(func.count())
        .select_from(Invite)
        .where(Invite.account_id == _ACCOUNT, Invite.status == rules.OPEN, Invite.expires_at > _NOW, ~_SCREENED_OUT)
        .scalar_subquery()
    },
)
clean_query = TABLE.clean


def list_invites(session: Session, *, account_id: int, query: TableQuery, now: datetime | None = None) -> TablePage:
    """One page of the account's invites, sorted and filtered in SQL, with totalAmount and totalOpenInvites."""
    now = now or datetime.now(UTC)
    page, (total, total_open) = read_page(session=session, table=TABLE, query=query, account_id=account_id, now=now)
    return TablePage(rows=[_row(now, *r) for r in page], total=int(total), total_open=int(total_open))


def _aware(value: datetime | None) -> datetime | None:
    if value is not None and value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value


def _row(
    now: datetime,
    invite_id: int,
    test_id: int,
    status: str,
    amount_cents: int,
    created_at: Any,
    expires_at: datetime | None,
    product_type: str,
    test_status: str | None = None,
    test_name: str | None = None,
    screened_out: bool = False,
) -> dict[str, str]:
    """One row for the browser; after `now`, the columns of TABLE.rows, in order. An open invite to a test that is
    not running (paused by reports, stopped, removed) reads so and offers no 'Start test'."""
    status = rules.effective_status(status, _aware(expires_at), now)
    blocked = rules.test_blocks(status, test_status, bool(screened_out))
    return {
        "id": str(invite_id),
        "test_id": str(test_id),
        "test_name": test_name or "",
        "time_left": "" if blocked else rules.time_left(status, _aware(expires_at), now),
        "test_type": rules.product_type_label(product_type),
        "date": table_rules.format_date(created_at),
        "payout": table_rules.format_money(amount_cents),
        "status": status,
        "status_label": blocked or rules.status_label(status),
        "open": "1" if status == rules.OPEN and not blocked else "",
    }


def invite_click(
    session: Session, *, account_id: int, invite_id: Any, now: datetime | None = None
) -> rules.InviteClick:
    """Where a click on one of the account's invites leads; anything not the account's is 'no longer valid'."""
    now = now or datetime.now(UTC)
    number = table_rules.clean_int(invite_id, 0, low=0, high=2**62)
    invite = (
        session.execute(
            select(Invite.test_id, Invite.status, Invite.expires_at).where(
                Invite.id == number, Invite.account_id == account_id
            )
        ).first()
        if number
        else None
    )
    if invite is None:
        return rules.InviteClick(message=rules.MSG_INVALID)
    status = rules.effective_status(invite.status, _aware(invite.expires_at), now)
    return rules.click_outcome(status, invite.test_id)
