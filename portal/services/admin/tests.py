"""Staff: the tests list of /admin/tests with live counts; a new test, and a copy of one (portal/domain/staff/
new_tests.py)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, or_, select
from sqlmodel import Session

from portal.domain import invites as invite_rules
from portal.domain import table as rules
from portal.domain.reference_data import PRODUCT_TYPES
from portal.domain.staff import roles
from portal.domain.staff.editing import PANEL_LABELS, SESSION_LABELS, STATUS_LABELS, exclusion_text, quotas_text
from portal.domain.staff.new_tests import copy_base, copy_name, new_test_problems, starting_document
from portal.domain.taking.kinds import KINDS as KIND_REGISTRY
from portal.domain.taking.kinds import kind_of
from portal.models import Invite, Review, ReviewSession, Test, TestQualification
from portal.services.admin import audit
from portal.services.admin.editing import NAME_TAKEN, NO_TEST
from portal.services.admin.guard import Caller, require_staff
from portal.services.admin.ids import one_id
from portal.services.definition_import import document_for, find_test_by_name
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
        "exclusion": exclusion_text(test.exclusion_days),
    }


# --- a new test, and a copy of one ------------------------------------------------------------------------


@dataclass(frozen=True)
class Created:
    """A test made by 'New test' or 'Duplicate' (test_id), or the form's problems by field (nothing made)."""

    test_id: int = 0
    name: str = ""
    problems: dict[str, str] = field(default_factory=dict)


def _versioned_by(session: Session, account_id: int, source: str) -> None:
    """Who and what makes the new test's version 1 (portal/models/test.py)."""
    session.info["version_by"], session.info["version_source"] = account_id, source


def create_test(session: Session, *, actor_id: Caller, form: Any) -> Created:
    """A draft test of the chosen product type and panel: its row with the kind's empty content, and the
    starting definition in its builder's working copy (Test.draft_document); one audit row."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    form = form if isinstance(form, dict) else {}
    problems = new_test_problems(form)
    name = form["name"].strip() if "name" not in problems else ""
    if name and find_test_by_name(session, name) is not None:
        problems["name"] = NAME_TAKEN
    if problems:
        return Created(problems=problems)
    _versioned_by(session, staff.account_id, "new")
    test = Test(name=name, status="draft", product_type=form["productType"], panel=form["panel"])
    session.add(test)
    session.flush()
    test.draft_document = starting_document(document_for(session, test))
    session.add(test)
    session.flush()
    audit.record(
        session,
        staff,
        "test.create",
        "test",
        test.id,
        after={"name": name, "productType": test.product_type, "panel": test.panel},
    )
    return Created(test_id=test.id, name=name)


# What a copy never takes over from the test it copies: its identity, its life (status, launch, schedule),
# and the builder's unsaved working copy. Sessions, reviews and invites are rows of their own: never copied.
NOT_COPIED = frozenset(
    {"id", "name", "status", "created_at", "launched_at", "updated_at", "scheduled_at", "draft_document"}
)


def duplicate_test(session: Session, *, actor_id: Caller, test_id: Any) -> Created:
    """A draft copy of a test's whole definition and settings (qualifications too) named 'Copy of <name>'
    (' (2)' and so on when that is taken); never its sessions, reviews or invites. One audit row."""
    staff = require_staff(session, actor_id, roles.MANAGE_TESTS)
    original = session.get(Test, one_id(test_id, NO_TEST))
    if original is None:
        raise ServiceError(NO_TEST)
    base = copy_base(original.name)
    taken = session.execute(select(Test.name).where(Test.name.startswith(base, autoescape=True))).scalars()
    name = copy_name(original.name, taken)
    _versioned_by(session, staff.account_id, "duplicate")
    values = {k: v for k, v in original.model_dump().items() if k not in NOT_COPIED}
    test = Test(**copy.deepcopy(values), name=name, status="draft")
    session.add(test)
    session.flush()
    for (qualification_id,) in session.execute(
        select(TestQualification.qualification_id).where(TestQualification.test_id == original.id)
    ):
        session.add(TestQualification(test_id=test.id, qualification_id=qualification_id))
    session.flush()
    audit.record(
        session, staff, "test.duplicate", "test", test.id, before={"copyOf": original.id}, after={"name": name}
    )
    return Created(test_id=test.id, name=name)
