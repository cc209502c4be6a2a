"""The rewards table of a participant (completed tests and their payouts): one page in SQL, with its total.

The account id always comes from the server-side session (the caller resolves it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, not_, select
from sqlmodel import Session

from portal.domain import invites as invite_rules
from portal.domain import table as rules
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.models import Reward, Test
from portal.services.tables import (
    TablePage,
    TableQuery,
    clean,
    date_range,
    page_with_totals,
    plan_per_search,
    split_page,
    tests_matching,
)

SORTABLE = {"createdOn": Reward.created_at, "testType": Reward.product_type}
FILTERS: dict[str, dict[str, Any]] = {
    "paymentStatus": {"type": "list", "options": PAYMENT_STATUSES},
    "createdOn": {"type": "range"},
}


def clean_query(**raw: Any) -> TableQuery:
    return clean(sortable=tuple(SORTABLE), filters_allowed=FILTERS, **raw)


def _conditions(account_id: int, query: TableQuery) -> list:
    conditions = [Reward.account_id == account_id]
    if query.search:
        conditions.append(Reward.test_id.in_(tests_matching(query.search)))
    for f in query.filters:
        if f.name == "createdOn":
            conditions.append(date_range(Reward.created_at, f.values))
        elif f.name == "paymentStatus":
            chosen = Reward.status.in_(f.values)
            conditions.append(not_(chosen) if f.type == "exclude" else chosen)
    return conditions


def list_rewards(*, session: Session, account_id: int, query: TableQuery) -> TablePage:
    """One page of the account's rewards, sorted and filtered in SQL, with totalAmount.

    The reward row carries its test id and type (migration 0005): the page's ids are read from the
    reward indexes alone (created_at or product_type order; search through the matching tests),
    and only the page's 50 rows are joined to their tests (for the link).
    """
    conditions = _conditions(account_id, query)
    column = SORTABLE[query.sort_by]
    ascending = query.sort_direction == rules.ASCENDING
    order = (column.asc(), Reward.id.asc()) if ascending else (column.desc(), Reward.id.desc())
    page_ids = (
        select(Reward.id).where(*conditions).order_by(*order).limit(query.page_size).offset(query.offset)
    ).scalar_subquery()
    rows = (
        select(Reward.id, Reward.amount_cents, Reward.status, Reward.paid_on, Reward.created_at,
               Reward.test_id, Reward.product_type, Test.url)
        .join(Test, Test.id == Reward.test_id)
        .where(Reward.id.in_(page_ids), Reward.account_id == account_id)
    )
    total = select(func.count()).select_from(Reward).where(*conditions).scalar_subquery()
    stmt = page_with_totals(rows, {"total": total}, column.key, ascending)
    connection = session.connection()  # Core execution: no ORM entity loading
    plan_per_search(connection, query)
    page, totals = split_page(connection.execute(stmt).all())
    return TablePage(rows=[_row(r) for r in page], total=int(totals.total or 0) if totals else 0)


def _row(r: Any) -> dict[str, str]:
    return {
        "id": str(r.id),
        "test_id": str(r.test_id),
        "test_url": r.url or "",
        "test_type": invite_rules.product_type_label(r.product_type),
        "status_label": invite_rules.REWARD_STATUS,
        "date": rules.format_date(r.created_at),
        "payout": rules.format_money(r.amount_cents),
        "payment_status": r.status or "",
        "payment_label": rules.payment_status_label(r.status),
        "paid_on": rules.format_date(r.paid_on),
    }
