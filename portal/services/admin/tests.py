"""Staff: the tests list of /admin/tests with live counts (part 2 adds editing and import)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, or_, select
from sqlmodel import Session

from portal.domain import invites as invite_rules
from portal.domain import table as rules
from portal.domain.reference_data import PRODUCT_TYPES
from portal.domain.staff import roles
from portal.domain.staff.editing import PANEL_LABELS, SESSION_LABELS, STATUS_LABELS, quotas_text
from portal.domain.taking.kinds import KINDS as KIND_REGISTRY
from portal.domain.taking.kinds import kind_of
from portal.models import Invite, Review, ReviewSession, Test
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.tables import Options, Own, TablePage, TableQuery, TableSpec, contains

STATUSES = ("draft", "ready-to-launch", "scheduled", "running", "stopped", "completed", "removed")
KINDS = tuple(KIND_REGISTRY)
# The product types of each kind (the kind is not a column: it follows from the product type).
PRODUCT_TYPES_OF: dict[str, tuple[str, ...]] = {
    k: tuple(p for p in PRODUCT_TYPES if kind_of(p).name == k) for k in KINDS
}


def _of_kinds(chosen: tuple[str, ...]) -> Any:
    return Test.product_type.in_([p for k in chosen if k in PRODUCT_TYPES_OF for p in PRODUCT_TYPES_OF[k]])


TABLE = TableSpec(
    key=Test.id,
    sortable={"createdOn": Test.created_at, "name": Test.name, "payout": Test.payout_cents, "status": Test.status},
    filters=(Options("status", Test.status, STATUSES), Own("kind", KINDS, _of_kinds)),
    search=lambda _: or_(contains(Test.name), contains(Test.product_type)),
)
clean_query = TABLE.clean


def list_tests(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    require_staff(session, actor_id, roles.VIEW)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    tests = session.execute(chosen.page(select(Test)), values).scalars().all()
    ids = [t.id for t in tests]
    invited = dict(
        session.execute(
            select(Invite.test_id, func.count()).where(Invite.test_id.in_(ids)).group_by(Invite.test_id)
        ).all()
    )
    reviews = dict(
        session.execute(
            select(Review.test_id, func.count()).where(Review.test_id.in_(ids)).group_by(Review.test_id)
        ).all()
    )
    waiting = dict(
        session.execute(
            select(Review.test_id, func.count())
            .where(Review.test_id.in_(ids), Review.status == "submitted")
            .group_by(Review.test_id)
        ).all()
    )
    approved = dict(
        session.execute(
            select(Review.test_id, func.count())
            .where(Review.test_id.in_(ids), Review.status == "approved")
            .group_by(Review.test_id)
        ).all()
    )
    started = dict(
        session.execute(
            select(ReviewSession.test_id, func.count(func.distinct(ReviewSession.respondent_key)))
            .where(ReviewSession.test_id.in_(ids))
            .group_by(ReviewSession.test_id)
        ).all()
    )
    return TablePage(
        rows=[
            {
                "id": str(t.id),
                "name": t.name,
                "kind": kind_of(t.product_type).name.capitalize(),
                "type": invite_rules.product_type_label(t.product_type),
                "status": STATUS_LABELS.get(t.status, t.status),
                "panel": PANEL_LABELS.get(t.panel, t.panel),
                "session": SESSION_LABELS.get(t.session_seconds, f"{t.session_seconds // 60} minutes"),
                "payout": rules.format_money(t.payout_cents),
                "quotas": quotas_text(t.participant_limit, t.seniority_limits),
                "invited": str(invited.get(t.id, 0)),
                "started": str(started.get(t.id, 0)),
                "reviews": str(reviews.get(t.id, 0)),
                "approved": str(approved.get(t.id, 0)),
                "waiting": str(waiting.get(t.id, 0)),
                "created": rules.format_date(t.created_at),
                "running": "yes" if t.status == "running" else "",
            }
            for t in tests
        ],
        total=int(total),
    )


def test_summary(session: Session, *, actor_id: Caller, test_id: Any) -> dict[str, str]:
    require_staff(session, actor_id, roles.VIEW)
    tid = one_id(test_id, "This test does not exist.")
    test = session.get(Test, tid)
    if test is None:
        raise ServiceError("This test does not exist.")
    return {
        "id": str(test.id),
        "name": test.name,
        "status": test.status,
        "type": invite_rules.product_type_label(test.product_type),
        "limit": str(test.participant_limit) if test.participant_limit is not None else "No limit",
    }
