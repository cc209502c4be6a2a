"""The rewards table of a participant (completed tests and their payouts): one page in SQL, with its total.

The account id always comes from the server-side session (the caller resolves it).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import ColumnElement, Integer, bindparam, func, not_, select
from sqlmodel import Session

from portal.domain import invites as invite_rules
from portal.domain import table as rules
from portal.domain.reference_data import PAYMENT_STATUSES
from portal.domain.staff import reviews as decisions
from portal.models import Review, Reward, Test
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

SORTABLE = {"createdOn": Reward.created_at, "testType": Reward.product_type}
FILTERS: dict[str, dict[str, Any]] = {
    "paymentStatus": {"type": "list", "options": PAYMENT_STATUSES},
    "createdOn": {"type": "range"},
}


def clean_query(**raw: Any) -> TableQuery:
    return clean(sortable=tuple(SORTABLE), filters_allowed=FILTERS, **raw)


def _conditions(searching: bool, search_id: bool, filters: tuple[Any, ...]) -> list[ColumnElement[bool]]:
    conditions: list[ColumnElement[bool]] = [Reward.account_id == bindparam("account_id", type_=Integer)]
    if searching:
        conditions.append(Reward.test_id.in_(tests_matching(search_id)))
    for index, (name, kind, values) in enumerate(filters):
        if name == "createdOn":
            conditions.append(date_range(Reward.created_at, index))
        elif name == "paymentStatus":
            chosen = Reward.status.in_(values)
            conditions.append(not_(chosen) if kind == "exclude" else chosen)
    return conditions


@lru_cache(maxsize=256)
def _statement(shape: Shape) -> AnySelect:
    """The page and its total for one request shape (see tables.shape_of); values are bound parameters.

    The reward row carries its test id and type (migration 0005): the page's ids are read from the
    reward indexes alone (created_at or product_type order; search through the matching tests),
    and only the page's rows are joined to their tests (for the link).
    """
    sort_by, direction, searching, search_id, filters = shape
    conditions = _conditions(searching, search_id, filters)
    column = SORTABLE[sort_by]
    ascending = direction == rules.ASCENDING
    order = (column.asc(), Reward.id.asc()) if ascending else (column.desc(), Reward.id.desc())
    page_ids = page_bounds(select(Reward.id).where(*conditions).order_by(*order)).scalar_subquery()
    rows = (
        select(Reward.id, Reward.amount_cents, Reward.status, Reward.paid_on, Reward.created_at,
               Reward.test_id, Reward.product_type, Test.url, Reward.approved_at, Review.status, Review.reject_reason)
        .join(Test, Test.id == Reward.test_id).join(Review, Review.id == Reward.review_id)
        .where(Reward.id.in_(page_ids), Reward.account_id == bindparam("account_id", type_=Integer))
    )
    total = select(func.count()).select_from(Reward).where(*conditions).scalar_subquery()
    return page_with_totals(rows, {"total": total}, column.key, ascending)


def list_rewards(session: Session, *, account_id: int, query: TableQuery) -> TablePage:
    """One page of the account's rewards, sorted and filtered in SQL, with totalAmount."""
    connection = session.connection()  # Core execution: no ORM entity loading
    plan_per_search(connection, query)
    result = fetch_page(connection, _statement(shape_of(query)), {"account_id": account_id, **bound_values(query)})
    page, (total,) = split_page(result, 1)
    return TablePage(rows=[_row(*r) for r in page], total=int(total))


def _row(reward_id: int, amount_cents: int, status: str | None, paid_on: Any, created_at: Any, test_id: int,
         product_type: str, url: str | None, approved_at: Any, review_status: str | None,
         reject_reason: str | None) -> dict[str, str]:
    """One row for the browser; the arguments are the columns of _statement's rows, in order."""
    stage = decisions.reward_stage(status, review_status, approved_at is not None)
    return {
        "stage": stage,
        "stage_detail": _stage_detail(stage, paid_on, approved_at, reject_reason),
        "id": str(reward_id),
        "test_id": str(test_id),
        "test_url": url or "",
        "test_type": invite_rules.product_type_label(product_type),
        "status_label": invite_rules.REWARD_STATUS,
        "date": rules.format_date(created_at),
        "payout": rules.format_money(amount_cents),
        "payment_status": status or "",
        "payment_label": rules.payment_status_label(status),
        "paid_on": rules.format_date(paid_on),
    }


def _stage_detail(stage: str, paid_on: Any, approved_at: Any, reject_reason: str | None) -> str:
    """What the participant reads under the stage: the payment date, when payment is expected, the reason."""
    if stage == decisions.STAGE_PAID:
        return f"Paid on {rules.format_date(paid_on)}" if paid_on else ""
    if stage == decisions.STAGE_APPROVED and approved_at is not None:
        _first, last = decisions.expected_payment(approved_at.date())
        return f"Expected by {rules.format_date(last)}"
    if stage == decisions.STAGE_REJECTED:
        return decisions.REJECTION_REASONS.get(reject_reason or "", "")
    if stage == decisions.STAGE_SUBMITTED:
        return "Waiting for review"
    return ""
