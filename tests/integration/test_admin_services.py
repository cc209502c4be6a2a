"""The staff services behind /admin (portal/services/admin) on a migrated database, SQLite and PostgreSQL:
who may call what (every cell of the permission matrix), and what each action does and records."""

from __future__ import annotations

import csv
import io
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import sqlalchemy as sa
from sqlalchemy import func, insert, select
from sqlmodel import Session

from portal.domain import table as table_rules
from portal.domain.staff import incentives, pending, roles
from portal.domain.staff import reviews as decisions
from portal.models import (
    Account,
    AuditEntry,
    AuthSession,
    Industry,
    Invite,
    InviteBatch,
    OutboxEmail,
    ParticipantProfile,
    ProfileChangeRequest,
    ProfileIndustry,
    ReferralMember,
    ReferralProgram,
    Review,
    ReviewSession,
    Reward,
    Test,
)
from portal.models._base import utcnow
from portal.services import profile as profile_service
from portal.services import rewards as participant_rewards
from portal.services.admin import api_keys as admin_api_keys
from portal.services.admin import (
    audit,
    change_requests,
    invites,
    participants,
    reviews,
    rewards,
    tests,
)
from portal.services.admin import messages as admin_messages
from portal.services.admin import profiles as admin_profiles
from portal.services.admin import webhooks as admin_webhooks
from portal.services.admin.guard import NOT_ALLOWED, SessionCaller, StaffRefused
from portal.services.admin.rewards import mark_reward_paid
from portal.services.errors import ServiceError
from portal.services.referrals import (
    create_member,
    ensure_referral_code,
)
from portal.services.seeding import seed_reference
from portal.services.sessions import create_session, resolve_user
from tests.support.factories import make_participant, unique_email

SA, TO, TM = roles.SUPER_ADMIN, roles.TEAM_OWNER, roles.TEAM_MANAGER
NOW = datetime.now(UTC)
QUESTIONS = [
    {"key": "q1", "type": "text", "text": "What do you think of the page?", "required": True},
    {
        "key": "q2",
        "type": "single",
        "text": "Which plan would you pick?",
        "options": [{"value": "a", "label": "Basic"}, {"value": "b", "label": "Pro"}],
    },
]


# --- data -----------------------------------------------------------------------------------------


def person(
    session: Session,
    *,
    role: str | None = None,
    verified: bool = True,
    levels: list[str] | None = None,
    country: str | None = None,
    **kwargs: Any,
) -> Account:
    """An account (a participant, or staff with `role`) without the cost of hashing a password."""
    account = make_participant(session, password_hash="!", verified=verified, **kwargs)
    account.staff_role = role
    session.add(account)
    profile = session.get(ParticipantProfile, account.id)
    profile.country = country
    if levels is not None:
        profile.experience_levels = levels
    session.add(profile)
    session.commit()
    session.refresh(account)
    return account


def a_test(
    session: Session,
    *,
    status: str = "running",
    product_type: str = "survey",
    launched_hours_ago: float = 1,
    **kwargs: Any,
) -> Test:
    test = Test(
        name=f"Test {unique_email()}",
        status=status,
        product_type=product_type,
        survey={"questions": QUESTIONS},
        launched_at=utcnow() - timedelta(hours=launched_hours_ago),
        **kwargs,
    )
    session.add(test)
    session.commit()
    return test


def a_review(
    session: Session,
    test: Test,
    account: Account,
    *,
    answers: dict | None = None,
    status: str = "submitted",
    reward_status: str = "PENDING",
    approved: bool = False,
    age_days: float = 1,
    cents: int = 2000,
) -> tuple[Review, Reward]:
    created = utcnow() - timedelta(days=age_days)
    review = Review(
        test_id=test.id,
        account_id=account.id,
        respondent_key=f"account:{account.id}",
        kind="survey",
        answers=answers if answers is not None else {"q1": {"value": "Fine"}},
        status=status,
        created_at=created,
    )
    session.add(review)
    session.flush()
    reward = Reward(
        review_id=review.id,
        account_id=account.id,
        amount_cents=cents,
        status=reward_status,
        created_at=created,
        approved_at=created + timedelta(hours=1) if approved else None,
        paid_on=created + timedelta(days=1) if reward_status == "EXECUTED" else None,
    )
    session.add(reward)
    session.commit()
    return review, reward


def audit_rows(session: Session, action: str | None = None) -> list[AuditEntry]:
    query = select(AuditEntry).order_by(AuditEntry.id)
    if action is not None:
        query = query.where(AuditEntry.action == action)
    return list(session.execute(query).scalars())


def count(session: Session, model: Any, *where: Any) -> int:
    return session.execute(select(func.count()).select_from(model).where(*where)).scalar_one()


def fresh(session: Session, model: Any, key: Any) -> Any:
    session.expire_all()
    return session.get(model, key)


def factory_of(session: Session) -> Callable[[], Session]:
    engine = session.get_bind()
    return lambda: Session(engine, expire_on_commit=False)


def participant_reward_row(session: Session, account_id: int, reward_id: int) -> dict[str, str]:
    page = participant_rewards.list_rewards(
        session=session, account_id=account_id, query=participant_rewards.clean_query()
    )
    [row] = [r for r in page.rows if r["id"] == str(reward_id)]
    return row


def read_csv(text: str) -> list[list[str]]:
    assert text.startswith("\ufeff")
    return list(csv.reader(io.StringIO(text[1:], newline="")))


# --- the permission matrix -------------------------------------------------------------------------


@dataclass
class World:
    """Everything the services need to succeed once, for any staff member."""

    staff: dict[str, int]
    participant: int
    removed_staff: int
    targets: list[int]
    test: int
    draft_test: int
    submitted_review: int
    payable_reward: int
    change_request: int
    batches: dict[int, int] = field(default_factory=dict)


def build_world(session: Session) -> World:
    staff = {role: person(session, role=role).id for role in roles.ROLES}
    removed = person(session, role=SA)
    removed.removed_at = utcnow()
    session.add(removed)
    participant = person(session, country="US")  # someone a batch for the test invites (its audience country)
    targets = [person(session, verified=False).id for _ in range(3)]
    test = a_test(session)
    draft = a_test(session, status="draft")
    submitted, _ = a_review(session, test, session.get(Account, targets[0]))
    _, payable = a_review(session, test, session.get(Account, targets[1]), status="approved", approved=True)
    request = ProfileChangeRequest(
        account_id=targets[2], payload={"firstName": "New"}, previous={"firstName": "Old"}, status="pending"
    )
    session.add(request)
    session.add(
        ReviewSession(
            test_id=test.id,
            account_id=participant.id,
            respondent_key=f"account:{participant.id}",
            deadline_at=utcnow() - timedelta(hours=1),
            status="active",
        )
    )
    session.commit()
    world = World(
        staff=staff,
        participant=participant.id,
        removed_staff=removed.id,
        targets=targets,
        test=test.id,
        draft_test=draft.id,
        submitted_review=submitted.id,
        payable_reward=payable.id,
        change_request=request.id,
    )
    for actor in staff.values():  # one running batch per staff member (run_chunk continues only one's own)
        world.batches[actor] = invites.start_batch(session=session, actor_id=actor, test_id=test.id, criteria={})["id"]
    session.commit()
    return world


def _batch(world: World, actor: Any) -> int:
    return world.batches.get(actor, world.batches[world.staff[SA]])


# (name, permission, call(session, actor_id, world)): every public staff function.
CALLS: list[tuple[str, str, Callable[[Session, Any, World], Any]]] = [
    (
        "participants.list_participants",
        roles.VIEW,
        lambda s, a, w: participants.list_participants(session=s, actor_id=a, query=participants.clean_query()),
    ),
    (
        "participants.set_verified",
        roles.VERIFY,
        lambda s, a, w: participants.set_verified(session=s, actor_id=a, account_ids=w.targets, verified=True),
    ),
    (
        "participants.set_active",
        roles.DEACTIVATE,
        lambda s, a, w: participants.set_active(session=s, actor_id=a, account_id=w.targets[0], active=False),
    ),
    (
        "participants.set_staff_role",
        roles.MANAGE_STAFF,
        lambda s, a, w: participants.set_staff_role(session=s, actor_id=a, account_id=w.targets[0], role=TM),
    ),
    (
        "change_requests.list_pending",
        roles.CHANGE_REQUESTS,
        lambda s, a, w: change_requests.list_pending(session=s, actor_id=a),
    ),
    (
        "change_requests.decide",
        roles.CHANGE_REQUESTS,
        lambda s, a, w: change_requests.decide(session=s, actor_id=a, request_id=w.change_request, approve=True),
    ),
    (
        "invites.audience",
        roles.INVITE,
        lambda s, a, w: invites.audience(session=s, actor_id=a, test_id=w.test, criteria={}),
    ),
    (
        "invites.start_batch",
        roles.INVITE,
        lambda s, a, w: invites.start_batch(session=s, actor_id=a, test_id=w.test, criteria={}),
    ),
    (
        "invites.run_chunk",
        roles.INVITE,
        lambda s, a, w: invites.run_chunk(session=s, actor_id=a, batch_id=_batch(w, a)),
    ),
    (
        "invites.send_all",
        roles.INVITE,
        lambda s, a, w: invites.send_all(session_factory=factory_of(s), actor_id=a, batch_id=_batch(w, a)),
    ),
    (
        "tests.list_tests",
        roles.VIEW,
        lambda s, a, w: tests.list_tests(session=s, actor_id=a, query=tests.clean_query()),
    ),
    ("tests.test_summary", roles.VIEW, lambda s, a, w: tests.test_summary(session=s, actor_id=a, test_id=w.test)),
    (
        "reviews.list_reviews",
        roles.VIEW,
        lambda s, a, w: reviews.list_reviews(session=s, actor_id=a, query=reviews.clean_query()),
    ),
    (
        "reviews.review_detail",
        roles.VIEW,
        lambda s, a, w: reviews.review_detail(session=s, actor_id=a, review_id=w.submitted_review),
    ),
    (
        "reviews.flags_checked",
        roles.VIEW,
        lambda s, a, w: reviews.flags_checked(session=s, actor_id=a, test_id=str(w.test)),
    ),
    (
        "reviews.check_flags",
        roles.VIEW,
        lambda s, a, w: reviews.check_flags(session=s, actor_id=a, test_id=str(w.test)),
    ),
    (
        "reviews.decide",
        roles.DECIDE_REVIEWS,
        lambda s, a, w: reviews.decide(
            session=s, actor_id=a, review_ids=[w.submitted_review], approve=False, reason="low-effort"
        ),
    ),
    (
        "reviews.exclude",
        roles.DECIDE_REVIEWS,
        lambda s, a, w: reviews.exclude(session=s, actor_id=a, review_ids=[w.submitted_review]),
    ),
    ("reviews.export_csv", roles.EXPORT, lambda s, a, w: reviews.export_csv(session=s, actor_id=a, test_id=w.test)),
    (
        "reviews.clear_expired_pending",
        roles.CLEAR_PENDING,
        lambda s, a, w: reviews.clear_expired_pending(session=s, actor_id=a),
    ),
    (
        "rewards.list_rewards",
        roles.VIEW,
        lambda s, a, w: rewards.list_rewards(session=s, actor_id=a, query=rewards.clean_query()),
    ),
    (
        "rewards.mark",
        roles.PAY,
        lambda s, a, w: rewards.mark(session=s, actor_id=a, reward_ids=[w.payable_reward], status="EXECUTED"),
    ),
    ("rewards.payout_csv", roles.PAY, lambda s, a, w: rewards.payout_csv(session=s, actor_id=a)),
    (
        "audit.list_audit",
        roles.AUDIT,
        lambda s, a, w: audit.list_audit(session=s, actor_id=a, query=audit.clean_query()),
    ),
    (
        "profiles.participant_profile",
        roles.VIEW,
        lambda s, a, w: admin_profiles.participant_profile(session=s, actor_id=a, participant_id=w.targets[2]),
    ),
    (
        "profiles.save_participant_profile",
        roles.EDIT_PROFILES,
        lambda s, a, w: admin_profiles.save_participant_profile(
            session=s,
            actor_id=a,
            participant_id=w.targets[2],
            raw=_profile_form(s.get(Account, w.targets[2]), firstName=f"Edited{a}"),
        ),
    ),
    (
        "messages.start",
        roles.MESSAGE,
        lambda s, a, w: admin_messages.start(
            session=s, actor_id=a, account_id=w.targets[1], subject="Hello", body=f"From {a}"
        ),
    ),
    # The REST API's keys and the webhook delivery log (issue 39).
    ("api_keys.list_keys", roles.API_KEYS, lambda s, a, w: admin_api_keys.list_keys(session=s, actor_id=a)),
    (
        "webhooks.list_deliveries",
        roles.WEBHOOKS,
        lambda s, a, w: admin_webhooks.list_deliveries(session=s, actor_id=a, query=admin_webhooks.clean_query()),
    ),
]


# Part 2's permissions (tests, flags, outbox) are checked by their own files the same way.
PART_TWO = {roles.MANAGE_TESTS, roles.FLAGS, roles.OUTBOX}


def test_the_calls_cover_every_permission_of_the_matrix():
    assert {permission for _name, permission, _call in CALLS} == set(roles.MATRIX) - PART_TWO


def _actors(world: World) -> list[tuple[str, Any, bool]]:
    """(who, actor id, expected to work) for one permission filled in by the caller."""
    return [
        ("participant", world.participant, False),
        ("unknown id", 987_654_321, False),
        ("None", None, False),
        ("removed super-admin", world.removed_staff, False),
        ("super-admin id as text", str(world.staff[SA]), False),
        ("bool", True, False),
        ("forged session", SessionCaller("x" * 43), False),
        ("no session", SessionCaller(None), False),
    ]


@pytest.mark.parametrize("name,permission,call", CALLS, ids=[c[0] for c in CALLS])
def test_every_cell_of_the_matrix_for_every_staff_function(session, name, permission, call):
    world = build_world(session)
    audit_before = count(session, AuditEntry)
    checked = []
    cases = [*_actors(world), *((role, world.staff[role], role in roles.MATRIX[permission]) for role in roles.ROLES)]
    for who, actor, works in cases:
        session.rollback()
        if works:
            result = call(session, actor, world)
            assert result is not None, (name, who)
        else:
            with pytest.raises(StaffRefused) as refused:
                call(session, actor, world)
            assert refused.value.message == NOT_ALLOWED
            assert count(session, AuditEntry) == audit_before, (name, who)  # nothing recorded
        checked.append((who, works))
    session.rollback()
    # Every staff role was tried, and the matrix's answer was the service's answer.
    assert [w for w, _ in checked[-3:]] == list(roles.ROLES)
    assert [ok for _, ok in checked[-3:]] == [role in roles.MATRIX[permission] for role in roles.ROLES]


# --- participants: verification -------------------------------------------------------------------


def test_bulk_verify_changes_each_participant_once_with_one_audit_row_each(session):
    admin = person(session, role=TM)
    chosen = [person(session, verified=False) for _ in range(3)]
    already = person(session, verified=True)
    colleague = person(session, role=TO, verified=False)
    ids = [a.id for a in chosen]

    changed = participants.set_verified(
        session=session,
        actor_id=admin.id,
        account_ids=[*map(str, ids), already.id, colleague.id, ids[0]],
        verified=True,
    )
    session.commit()

    assert changed == 3
    assert [fresh(session, Account, i).verified for i in ids] == [True, True, True]
    assert fresh(session, Account, colleague.id).verified is False  # staff are not participants to verify
    rows = audit_rows(session, "participant.verify")
    assert sorted(int(r.target_id) for r in rows) == sorted(ids)
    for row in rows:
        assert (row.actor_id, row.actor_email, row.actor_role, row.target_type) == (
            admin.id,
            admin.email,
            TM,
            "account",
        )
        assert (row.before, row.after) == ({"verified": False}, {"verified": True})

    assert participants.set_verified(session=session, actor_id=admin.id, account_ids=ids, verified=True) == 0
    assert participants.set_verified(session=session, actor_id=admin.id, account_ids=ids[:2], verified=False) == 2
    session.commit()
    assert [fresh(session, Account, i).verified for i in ids] == [False, False, True]
    assert len(audit_rows(session, "participant.unverify")) == 2


def test_id_filters_ignore_digits_that_are_not_ascii(session):
    manager = person(session, role=TM)
    test = a_test(session)
    a_review(session, test, person(session))
    a_review(session, a_test(session), person(session))
    for values, total in ((["²"], 2), (["٣"], 2), (["²", str(test.id)], 1)):
        raw = [{"name": "test", "type": "list", "values": values}]
        query = reviews.clean_query(filters=raw)
        assert [f.values for f in query.filters] == ([(str(test.id),)] if total == 1 else [])
        assert reviews.list_reviews(session=session, actor_id=manager.id, query=query).total == total
        assert (
            rewards.list_rewards(session=session, actor_id=manager.id, query=rewards.clean_query(filters=raw)).total
            == total
        )


def test_verification_and_its_audit_rows_share_one_transaction(session):
    admin = person(session, role=SA)
    ids = [person(session, verified=False).id for _ in range(3)]
    assert participants.set_verified(session=session, actor_id=admin.id, account_ids=ids, verified=True) == 3
    session.flush()
    assert len(audit_rows(session, "participant.verify")) == 3  # written in the transaction...
    session.rollback()
    assert audit_rows(session) == []  # ...and gone with it
    assert [fresh(session, Account, i).verified for i in ids] == [False, False, False]


@pytest.mark.parametrize(
    "ids,verified,message",
    [
        ([], True, participants.NOTHING_SELECTED),
        (["x", None, True, -3, "0"], True, participants.NOTHING_SELECTED),
        ("1,2,3", True, participants.NOTHING_SELECTED),
        (["²"], True, participants.NOTHING_SELECTED),
        (["1"], "yes", "Choose verify or unverify."),
        (list(range(1, participants.MAX_BULK + 2)), True, participants.TOO_MANY),
    ],
)
def test_verification_refuses_bad_input(session, ids, verified, message):
    admin = person(session, role=SA)
    with pytest.raises(ServiceError) as refused:
        participants.set_verified(session=session, actor_id=admin.id, account_ids=ids, verified=verified)
    assert refused.value.message == message
    assert audit_rows(session) == []


# --- participants: deactivation and roles ---------------------------------------------------------


def test_deactivate_signs_out_everywhere_and_is_audited(session):
    owner = person(session, role=TO)
    target = person(session)
    tokens = [create_session(session=session, account_id=target.id) for _ in range(2)]
    session.commit()
    assert resolve_user(session=session, token=tokens[0]) is not None

    assert participants.set_active(session=session, actor_id=owner.id, account_id=str(target.id), active=False) is True
    session.commit()

    stored = fresh(session, Account, target.id)
    assert stored.removed_at is not None
    sessions = session.execute(select(AuthSession).where(AuthSession.account_id == target.id)).scalars().all()
    assert len(sessions) == 2 and all(s.revoked_at is not None for s in sessions)
    assert [resolve_user(session=session, token=t) for t in tokens] == [None, None]
    [row] = audit_rows(session, "participant.deactivate")
    assert (row.actor_id, row.target_id, row.before) == (owner.id, str(target.id), {"removed_at": None})
    assert row.after["removed_at"] == stored.removed_at.isoformat()
    page = participants.list_participants(
        session=session,
        actor_id=owner.id,
        query=participants.clean_query(filters=[{"name": "status", "type": "list", "values": ["deactivated"]}]),
    )
    assert [r["id"] for r in page.rows] == [str(target.id)] and page.rows[0]["status"] == "Deactivated"
    assert page.rows[0]["can_reactivate"] == "yes" and page.rows[0]["can_deactivate"] == ""

    # Again: nothing changes. Reactivating: the account may sign in again (the old sessions stay ended).
    assert participants.set_active(session=session, actor_id=owner.id, account_id=target.id, active=False) is False
    assert participants.set_active(session=session, actor_id=owner.id, account_id=target.id, active=True) is True
    session.commit()
    assert fresh(session, Account, target.id).removed_at is None
    assert resolve_user(session=session, token=tokens[0]) is None
    assert len(audit_rows(session, "participant.reactivate")) == 1
    assert len(audit_rows(session, "participant.deactivate")) == 1


def test_cannot_deactivate_oneself_or_an_unknown_account(session):
    admin = person(session, role=SA)
    with pytest.raises(ServiceError) as own:
        participants.set_active(session=session, actor_id=admin.id, account_id=admin.id, active=False)
    assert own.value.message == participants.OWN_ROLE
    with pytest.raises(ServiceError) as unknown:
        participants.set_active(session=session, actor_id=admin.id, account_id=987_654_321, active=False)
    assert unknown.value.message == participants.NOT_FOUND
    session.commit()
    assert fresh(session, Account, admin.id).removed_at is None
    assert audit_rows(session) == []


def test_only_an_admin_deactivates_a_staff_account(session):
    owner, admin, other_admin = person(session, role=TO), person(session, role=SA), person(session, role=SA)
    session.commit()
    with pytest.raises(StaffRefused) as refused:
        participants.set_active(session=session, actor_id=owner.id, account_id=admin.id, active=False)
    assert refused.value.message == participants.STAFF_ACCOUNT
    rows = participants.list_participants(
        session=session, actor_id=owner.id, query=participants.clean_query(search=admin.email)
    ).rows
    assert [r["can_deactivate"] for r in rows] == [""]
    assert participants.set_active(session=session, actor_id=other_admin.id, account_id=admin.id, active=False) is True
    session.commit()
    assert fresh(session, Account, admin.id).removed_at is not None


def test_super_admin_sets_staff_roles_and_team_owner_may_not(session):
    admin = person(session, role=SA)
    owner = person(session, role=TO)
    target = person(session)

    assert participants.set_staff_role(session=session, actor_id=admin.id, account_id=target.id, role=TM) is True
    session.commit()
    assert fresh(session, Account, target.id).staff_role == TM
    [row] = audit_rows(session, "staff.role")
    assert (row.before, row.after, row.actor_role) == ({"staff_role": None}, {"staff_role": TM}, SA)
    # The new team manager now has a team manager's permissions, and no more.
    assert (
        participants.list_participants(session=session, actor_id=target.id, query=participants.clean_query()).total == 3
    )
    with pytest.raises(StaffRefused):
        rewards.payout_csv(session=session, actor_id=target.id)

    assert participants.set_staff_role(session=session, actor_id=admin.id, account_id=target.id, role=TM) is False
    assert (
        participants.set_staff_role(session=session, actor_id=admin.id, account_id=target.id, role="participant")
        is True
    )
    session.commit()
    assert fresh(session, Account, target.id).staff_role is None

    with pytest.raises(StaffRefused):
        participants.set_staff_role(session=session, actor_id=owner.id, account_id=target.id, role=SA)
    with pytest.raises(ServiceError) as own:
        participants.set_staff_role(session=session, actor_id=admin.id, account_id=admin.id, role="participant")
    assert own.value.message == participants.OWN_ROLE
    with pytest.raises(ServiceError):
        participants.set_staff_role(session=session, actor_id=admin.id, account_id=target.id, role="god")
    session.commit()
    assert fresh(session, Account, target.id).staff_role is None
    assert fresh(session, Account, admin.id).staff_role == SA
    assert len(audit_rows(session, "staff.role")) == 2


# --- change requests ----------------------------------------------------------------------------


@pytest.fixture
def seeded(session: Session) -> Session:
    seed_reference(session)
    session.commit()
    return session


def _profile_form(account: Account, **values: Any) -> dict[str, Any]:
    form = {
        "firstName": "Avery",
        "lastName": "Tester",
        "email": account.email,
        "workEmail": account.work_email,
        "languages": ["english"],
    }
    form.update(values)
    return form


def _save_profile(session: Session, account: Account, **values: Any) -> ProfileChangeRequest:
    profile_service.save_profile(
        session=session, actor_id=account.id, raw=_profile_form(account, **values), today=NOW.date()
    )
    session.commit()
    return (
        session.execute(
            select(ProfileChangeRequest)
            .where(ProfileChangeRequest.account_id == account.id)
            .order_by(ProfileChangeRequest.id.desc())
        )
        .scalars()
        .first()
    )


def test_a_participants_change_waits_for_staff_and_decline_puts_the_old_values_back(seeded):
    session = seeded
    manager = person(session, role=TM)
    account = person(session)
    old_email = account.email
    new_email = unique_email("moved")

    request = _save_profile(
        session,
        account,
        firstName="Avalon",
        jobTitle="Buyer",
        email=new_email,
        experience={"jobTitle": "Buyer", "experienceLevels": ["senior"]},
    )

    assert request.status == "pending" and request.decided_at is None and request.updated_by_admin is False
    assert request.previous["firstName"] == "Avery" and request.previous["jobTitle"] == ""
    assert request.previous["email"] == old_email and request.previous["experienceLevels"] == []
    assert "lastName" not in request.previous  # unchanged fields are not recorded
    # The participant sees the change at once.
    assert fresh(session, ParticipantProfile, account.id).first_name == "Avalon"

    page = change_requests.list_pending(session=session, actor_id=manager.id)
    assert page.total == 1
    [row] = page.rows
    assert row["id"] == str(request.id) and row["email"] == new_email
    changes = {c["field"]: (c["old"], c["new"]) for c in row["changes"]}
    assert changes["First name"] == ("Avery", "Avalon")
    assert changes["Job title"] == ("—", "Buyer")
    assert changes["Seniority"] == ("—", "senior")
    assert changes["E-mail"] == (old_email, new_email)

    assert (
        change_requests.decide(session=session, actor_id=manager.id, request_id=str(request.id), approve=False)
        == "declined"
    )
    session.commit()

    profile = fresh(session, ParticipantProfile, account.id)
    assert (profile.first_name, profile.job_title, profile.experience_levels) == ("Avery", None, [])
    assert fresh(session, Account, account.id).email == new_email  # e-mails follow their own verification
    decided = fresh(session, ProfileChangeRequest, request.id)
    assert (decided.status, decided.decided_by_id) == ("declined", manager.id) and decided.decided_at is not None
    [row] = audit_rows(session, "change-request.decline")
    # The form also set the languages the participant had left empty: back to empty too.
    assert row.after["status"] == "declined"
    assert set(row.after["restored"]) == {"firstName", "jobTitle", "experienceLevels", "languages"}
    assert profile.languages == []
    assert change_requests.list_pending(session=session, actor_id=manager.id).total == 0

    with pytest.raises(ServiceError) as twice:
        change_requests.decide(session=session, actor_id=manager.id, request_id=request.id, approve=True)
    assert twice.value.message == change_requests.ALREADY_DECIDED
    assert fresh(session, ProfileChangeRequest, request.id).status == "declined"


def test_decline_restores_every_kind_of_field(seeded):
    session = seeded
    manager = person(session, role=TM)
    account = person(session)
    industries = list(
        session.execute(
            select(Industry.id).where(Industry.active_for_testers.is_(True)).order_by(Industry.id).limit(3)
        ).scalars()
    )
    first = {
        "phoneNumber": "+1 415 555 0134",
        "birthYear": "1990",
        "country": "US",
        "state": "US-NY",
        "industries": industries[:1],
        "linkedin": "linkedin.com/in/avery",
        "hasAnonymizationEnabled": False,
        "gender": "Woman",
        "experience": {"jobTitle": "Buyer", "experienceLevels": ["middle"], "companySize": "small"},
        "company": {"name": "Initech"},
        "languages": ["english"],
    }
    original = _save_profile(session, account, **first)
    change_requests.decide(session=session, actor_id=manager.id, request_id=original.id, approve=True)
    session.commit()
    kept = fresh(session, ParticipantProfile, account.id).model_dump()
    kept_industries = sorted(
        session.execute(select(ProfileIndustry.industry_id).where(ProfileIndustry.account_id == account.id)).scalars()
    )

    request = _save_profile(
        session,
        account,
        phoneNumber="+1 212 555 0199",
        birthYear="1985",
        country="CA",
        state="",
        industries=industries[1:3],
        linkedin="linkedin.com/in/someone-else",
        hasAnonymizationEnabled=True,
        gender="Man",
        experience={
            "jobTitle": "Head of buying",
            "experienceLevels": ["senior", "founder"],
            "companySize": "enterprise",
        },
        company={"name": "Globex"},
        languages=["english", "dutch"],
    )
    assert fresh(session, ParticipantProfile, account.id).company_name == "Globex"
    assert len(request.previous) >= 12
    change_requests.decide(session=session, actor_id=manager.id, request_id=request.id, approve=False)
    session.commit()

    restored = fresh(session, ParticipantProfile, account.id).model_dump()
    for volatile in ("updated_at", "old_data"):
        restored.pop(volatile), kept.pop(volatile)
    assert restored == kept
    assert (
        sorted(
            session.execute(
                select(ProfileIndustry.industry_id).where(ProfileIndustry.account_id == account.id)
            ).scalars()
        )
        == kept_industries
    )


def test_approving_a_change_keeps_it(seeded):
    session = seeded
    owner = person(session, role=TO)
    account = person(session)
    request = _save_profile(session, account, firstName="Avalon", lastName="Quinn")
    assert change_requests.decide(session=session, actor_id=owner.id, request_id=request.id, approve=True) == "approved"
    session.commit()
    profile = fresh(session, ParticipantProfile, account.id)
    assert (profile.first_name, profile.last_name) == ("Avalon", "Quinn")
    assert fresh(session, ProfileChangeRequest, request.id).status == "approved"
    assert len(audit_rows(session, "change-request.approve")) == 1
    with pytest.raises(ServiceError) as twice:
        change_requests.decide(session=session, actor_id=owner.id, request_id=request.id, approve=False)
    assert twice.value.message == change_requests.ALREADY_DECIDED
    assert fresh(session, ParticipantProfile, account.id).first_name == "Avalon"


def test_decline_keeps_a_later_change_of_the_same_field(seeded):
    session = seeded
    manager = person(session, role=TM)
    account = person(session)
    first = _save_profile(session, account, firstName="Avalon", lastName="Quinn")
    _save_profile(session, account, firstName="Aurora", lastName="Quinn")  # changed again since
    change_requests.decide(session=session, actor_id=manager.id, request_id=first.id, approve=False)
    session.commit()
    profile = fresh(session, ParticipantProfile, account.id)
    assert (profile.first_name, profile.last_name) == ("Aurora", "Tester")


def test_staff_edits_are_not_queued(seeded):
    session = seeded
    admin = person(session, role=SA)
    account = person(session)
    admin_profiles.save_participant_profile(
        session=session,
        actor_id=admin.id,
        participant_id=account.id,
        raw=_profile_form(account, firstName="Edited", _id=account.id),
        today=NOW.date(),
    )
    session.commit()
    request = session.execute(
        select(ProfileChangeRequest).where(ProfileChangeRequest.account_id == account.id)
    ).scalar_one()
    assert (request.status, request.updated_by_admin, request.decided_by_id) == ("approved", True, admin.id)
    assert change_requests.list_pending(session=session, actor_id=admin.id).total == 0


# --- invites ---------------------------------------------------------------------------------------


def invitee(session: Session, **kwargs: Any) -> Account:
    """A participant in the United States, the tests' audience country (only such participants are invited)."""
    return person(session, **{"country": "US", **kwargs})


def invites_of(session: Session, test_id: int) -> list[Invite]:
    return list(session.execute(select(Invite).where(Invite.test_id == test_id).order_by(Invite.account_id)).scalars())


def send(session: Session, actor: Account, test: Test, criteria: Any = None, override: Any = None) -> dict[str, Any]:
    batch = invites.start_batch(
        session=session, actor_id=actor.id, test_id=test.id, criteria=criteria or {}, override_cents=override
    )
    session.commit()
    return invites.send_all(session_factory=factory_of(session), actor_id=actor.id, batch_id=batch["id"])


def test_audience_counts_matched_invited_and_reviewed(session):
    manager = invitee(session, role=TM)
    test = a_test(session)
    people = [invitee(session) for _ in range(6)]
    invitee(session, role=TO)  # staff are never invited
    gone = invitee(session)
    gone.removed_at = utcnow()
    session.add(gone)
    invitee(session, registration_complete=False)  # sign-up not finished
    for account in people[:2]:
        session.add(Invite(account_id=account.id, test_id=test.id, amount_cents=1000, expires_at=utcnow()))
    a_review(session, test, people[1])  # invited and reviewed: counted as invited
    a_review(session, test, people[2])
    session.commit()

    found = invites.audience(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    assert (found.matched, found.invited, found.reviewed, found.to_invite) == (6, 2, 1, 3)
    assert found.places is None
    assert found.payout_range == "$10 – $35 by seniority (day 1 rates)"

    narrowed = invites.audience(
        session=session, actor_id=manager.id, test_id=test.id, criteria={"search": people[3].email}
    )
    assert (narrowed.matched, narrowed.to_invite) == (1, 1)
    assert (
        invites.audience(
            session=session, actor_id=manager.id, test_id=test.id, criteria={}, override_cents=4250
        ).payout_range
        == "$42.50"
    )


@pytest.mark.parametrize("launched_hours_ago,day", [(1, 0), (30, 1)])
def test_invites_pay_by_the_incentive_table_and_seniority(session, launched_hours_ago, day):
    manager = invitee(session, role=TM)
    test = a_test(session, product_type="video-test", launched_hours_ago=launched_hours_ago)
    levels = {
        "specialist": ["specialist"],
        "middle": ["middle"],
        "senior": ["senior"],
        "founder": ["founder"],
        "none": [],
        "two": ["specialist", "senior"],
    }
    accounts = {name: invitee(session, levels=lv) for name, lv in levels.items()}
    before = utcnow()

    result = send(session, manager, test)

    assert (result["sent"], result["status"], result["requested"]) == (6, "done", 6)
    session.expire_all()
    by_account = {i.account_id: i for i in invites_of(session, test.id)}
    # video-test: specialist 20/25, middle 35/40, senior 65/75 (day 1 / day 2).
    expected = {
        "specialist": (2000, 2500),
        "middle": (3500, 4000),
        "senior": (6500, 7500),
        "founder": (3500, 4000),
        "none": (2000, 2500),
        "two": (6500, 7500),
    }
    assert {name: by_account[a.id].amount_cents for name, a in accounts.items()} == {
        name: pair[day] for name, pair in expected.items()
    }
    for invite in by_account.values():
        assert invite.status == "open" and invite.batch_id == result["id"]
        assert invite.expires_at - invite.created_at == timedelta(hours=24)
        assert before <= invite.created_at <= utcnow()
    mails = session.execute(select(OutboxEmail).where(OutboxEmail.kind == "invite")).scalars().all()
    assert sorted(m.to_address for m in mails) == sorted(a.email for a in accounts.values())
    senior_mail = next(m for m in mails if m.to_address == accounts["senior"].email)
    assert table_rules.format_money(expected["senior"][day]) in senior_mail.subject
    assert f"/test/{test.id}/" in senior_mail.body_text
    [row] = audit_rows(session, "invites.send")
    assert row.target_id == str(test.id) and row.after["participants"] == 6


def test_override_pays_every_invite_the_same_and_is_limited(session):
    manager = invitee(session, role=TM)
    test = a_test(session)
    for lv in (["specialist"], ["senior"]):
        invitee(session, levels=lv)
    for bad in (99, 50_001, 0, -500, "2500", 25.0, True):
        with pytest.raises(ServiceError) as refused:
            invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={}, override_cents=bad)
        assert refused.value.message == incentives.OVERRIDE_OUT_OF_RANGE
    session.commit()
    assert count(session, InviteBatch) == 0 and audit_rows(session) == []

    result = send(session, manager, test, override=4250)
    assert result["sent"] == 2
    session.expire_all()
    assert [i.amount_cents for i in invites_of(session, test.id)] == [4250, 4250]
    assert all("$42.50" in m.subject for m in session.execute(select(OutboxEmail)).scalars())


def test_limits_of_the_override_are_one_and_five_hundred_dollars(session):
    manager = invitee(session, role=TM)
    low, high = a_test(session), a_test(session)
    invitee(session)
    assert send(session, manager, low, override=100)["sent"] == 1
    assert send(session, manager, high, override=50_000)["sent"] == 1
    session.expire_all()
    assert [i.amount_cents for i in invites_of(session, low.id) + invites_of(session, high.id)] == [100, 50_000]


def test_sending_again_never_invites_anyone_twice(session):
    manager = invitee(session, role=TM)
    owner = invitee(session, role=TO)
    test = a_test(session)
    people = [invitee(session) for _ in range(4)]
    first = invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    second = invites.start_batch(session=session, actor_id=owner.id, test_id=test.id, criteria={})
    session.commit()

    assert invites.send_all(session_factory=factory_of(session), actor_id=manager.id, batch_id=first["id"])["sent"] == 4
    assert invites.send_all(session_factory=factory_of(session), actor_id=owner.id, batch_id=second["id"])["sent"] == 0
    with pytest.raises(ServiceError) as nobody:
        invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    assert nobody.value.message == invites.NOBODY
    with pytest.raises(ServiceError):  # a finished batch is not sent again
        invites.run_chunk(session=session, actor_id=manager.id, batch_id=first["id"])
    session.rollback()

    newcomer = invitee(session)
    assert send(session, manager, test)["sent"] == 1
    session.expire_all()
    invited = [i.account_id for i in invites_of(session, test.id)]
    assert sorted(invited) == sorted([p.id for p in people] + [newcomer.id])
    assert count(session, OutboxEmail, OutboxEmail.kind == "invite") == 5


def test_only_the_chosen_participants_are_invited(session):
    manager = invitee(session, role=TM)
    test = a_test(session)
    seniors = [invitee(session, levels=["senior"]) for _ in range(2)]
    invitee(session, levels=["middle"])
    invitee(session, verified=False, levels=["senior"])
    criteria = {
        "filters": [
            {"name": "seniority", "type": "list", "values": ["senior"]},
            {"name": "verified", "type": "list", "values": ["yes"]},
        ]
    }
    assert send(session, manager, test, criteria)["sent"] == 2
    session.expire_all()
    assert [i.account_id for i in invites_of(session, test.id)] == [a.id for a in seniors]


def test_participant_limit_counts_reviews_and_open_invites(session):
    manager = invitee(session, role=TM)
    test = a_test(session, participant_limit=4)
    reviewer, holder = invitee(session), invitee(session)
    a_review(session, test, reviewer)
    session.add(
        Invite(account_id=holder.id, test_id=test.id, amount_cents=1000, expires_at=utcnow() + timedelta(hours=3))
    )
    session.commit()
    others = [invitee(session) for _ in range(5)]

    found = invites.audience(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    assert (found.places, found.to_invite, found.over_quota) == (2, 2, 3)
    result = send(session, manager, test)

    assert (result["sent"], result["requested"], result["skipped"], result["status"]) == (2, 2, 0, "done")
    session.expire_all()
    assert [i.account_id for i in invites_of(session, test.id) if i.batch_id] == [a.id for a in others[:2]]


def test_quota_full_batch_fails_with_the_reason(session):
    manager = invitee(session, role=TM)
    test = a_test(session, participant_limit=1)
    a_review(session, test, invitee(session))
    invitee(session)
    with pytest.raises(ServiceError) as full:  # counted before anything is recorded: no batch, no audit row
        invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    assert full.value.message == "The test's quotas are full."
    session.rollback()
    assert (
        count(session, Invite) == 0 and count(session, InviteBatch) == 0 and audit_rows(session, "invites.send") == []
    )


@pytest.mark.parametrize("chunk", [500, 2])
def test_seniority_limits_are_respected(session, monkeypatch, chunk):
    monkeypatch.setattr(invites, "CHUNK", chunk)
    manager = invitee(session, role=TM)
    test = a_test(session, seniority_limits={"senior": 1, "middle": 2})
    seniors = [invitee(session, levels=["senior"]) for _ in range(3)]  # the first ids: they come first in every chunk
    middles = [invitee(session, levels=["middle"]) for _ in range(3)]
    specialists = [invitee(session, levels=["specialist"]) for _ in range(2)]  # no quota for their level

    result = send(session, manager, test)

    session.expire_all()
    invited = [i.account_id for i in invites_of(session, test.id)]
    assert invited == [seniors[0].id, middles[0].id, middles[1].id, *(a.id for a in specialists)]
    assert (result["sent"], result["requested"], result["skipped"], result["status"]) == (5, 5, 0, "done")
    assert count(session, OutboxEmail, OutboxEmail.kind == "invite") == 5


def test_invites_only_for_a_running_test(session):
    manager = invitee(session, role=TM)
    invitee(session)
    for status in ("draft", "stopped", "completed", "scheduled"):
        test = a_test(session, status=status)
        with pytest.raises(ServiceError) as refused:
            invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
        assert refused.value.message == invites.NOT_RUNNING
    with pytest.raises(ServiceError) as missing:
        invites.start_batch(session=session, actor_id=manager.id, test_id=987_654, criteria={})
    assert missing.value.message == invites.NO_TEST
    session.commit()
    assert count(session, InviteBatch) == 0 and count(session, Invite) == 0

    # A test stopped while its batch is being sent: the batch stops, nothing more is sent.
    test = a_test(session)
    batch = invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    test.status = "stopped"
    session.add(test)
    session.commit()
    result = invites.send_all(session_factory=factory_of(session), actor_id=manager.id, batch_id=batch["id"])
    assert (result["status"], result["error"], result["sent"]) == ("failed", invites.NOT_RUNNING, 0)
    assert count(session, Invite) == 0


def bulk_participants(session: Session, total: int) -> None:
    """`total` participants with finished sign-ups, inserted in two statements (the factory is too slow here);
    seniority specialist, middle, senior in turn."""
    now = utcnow()
    first_id = session.execute(select(func.coalesce(func.max(Account.id), 0))).scalar_one() + 1
    session.execute(
        insert(Account),
        [
            {
                "id": first_id + i,
                "email": f"bulk-{first_id + i}@example.com",
                "is_registration_complete": True,
                "stage": "completed",
                "verified": True,
                "email_verified_at": now,
                "staff_role": None,
                "is_subscribed_to_referral": False,
                "signup_tracking": {},
                "created_at": now,
                "updated_at": now,
            }
            for i in range(total)
        ],
    )
    session.execute(
        insert(ParticipantProfile),
        [
            {
                "account_id": first_id + i,
                "first_name": "Bulk",
                "last_name": str(i),
                "languages": ["english"],
                "country": "US",
                "experience_levels": [("specialist", "middle", "senior")[i % 3]],
                "old_data": {},
                "linkedin_profile": {},
                "updated_at": now,
            }
            for i in range(total)
        ],
    )
    if session.get_bind().dialect.name == "postgresql":
        session.execute(
            sa.text("SELECT setval(pg_get_serial_sequence('account', 'id'), (SELECT max(id) FROM account))")
        )
    session.commit()


def test_a_batch_of_ten_thousand_is_sent_in_chunks_without_duplicates(session):
    manager = invitee(session, role=TM)
    test = a_test(session, product_type="survey")
    total = 10_000
    bulk_participants(session, total)

    found = invites.audience(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    assert found.to_invite == total
    progress: list[int] = []
    batch = invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    session.commit()
    result = invites.send_all(
        session_factory=factory_of(session),
        actor_id=manager.id,
        batch_id=batch["id"],
        on_progress=lambda b: progress.append(b["sent"]),
    )

    assert (result["sent"], result["status"], result["skipped"]) == (total, "done", 0)
    assert len(progress) >= total // invites.CHUNK and progress == sorted(progress)
    assert progress[0] == invites.CHUNK  # sent in chunks, each committed on its own
    assert count(session, Invite, Invite.test_id == test.id) == total
    assert (
        session.execute(
            select(func.count(sa.distinct(Invite.account_id))).where(Invite.test_id == test.id)
        ).scalar_one()
        == total
    )
    assert count(session, OutboxEmail, OutboxEmail.kind == "invite") == total
    amounts = dict(session.execute(select(Invite.amount_cents, func.count()).group_by(Invite.amount_cents)).all())
    assert amounts == {1000: 3334, 2000: 3333, 3500: 3333}  # survey day 1: specialist, middle, senior
    with pytest.raises(ServiceError):
        invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})


@pytest.mark.parametrize("same_batch", [False, True], ids=["two batches", "one batch in two tabs"])
def test_batches_sent_at_the_same_time_invite_nobody_twice(session, monkeypatch, same_batch):
    """Two staff members send batches for one test at once (or one sends a batch from two tabs): each
    sender's first chunk waits for the other's after reading who is left, before writing."""
    manager = invitee(session, role=TM)
    owner = manager if same_batch else invitee(session, role=TO)
    test = a_test(session)
    bulk_participants(session, 1200)
    first = invites.start_batch(session=session, actor_id=manager.id, test_id=test.id, criteria={})
    second = (
        first if same_batch else invites.start_batch(session=session, actor_id=owner.id, test_id=test.id, criteria={})
    )
    session.commit()
    barrier = threading.Barrier(2)
    waited = threading.local()
    original = invites.emails.test_invite

    def meet_then_write(**kwargs: Any):  # each sender's first invite waits (2 s at most) for the other's
        if not getattr(waited, "done", False):
            waited.done = True
            try:
                barrier.wait(timeout=2)
            except threading.BrokenBarrierError:
                pass  # the other sender waits for this one's lock (PostgreSQL): go on
        return original(**kwargs)

    monkeypatch.setattr(invites.emails, "test_invite", meet_then_write)
    results: dict[int, Any] = {}

    def run(n: int, actor: int, batch: int) -> None:
        try:
            results[n] = invites.send_all(session_factory=factory_of(session), actor_id=actor, batch_id=batch)
        except ServiceError as err:  # the other tab finished the batch first
            results[n] = err.message
        except Exception as err:  # noqa: BLE001 - reported below
            results[n] = err

    threads = [
        threading.Thread(target=run, args=(0, manager.id, first["id"])),
        threading.Thread(target=run, args=(1, owner.id, second["id"])),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    session.expire_all()
    if same_batch:
        assert all(isinstance(r, dict) or r == "This batch is not being sent." for r in results.values()), results
        batch = session.get(InviteBatch, first["id"])
        assert (batch.sent, batch.status) == (1200, "done")  # both tabs' chunks counted
    else:
        assert all(isinstance(r, dict) for r in results.values()), results
        assert results[0]["sent"] + results[1]["sent"] == 1200
    invited = session.execute(select(Invite.account_id).where(Invite.test_id == test.id)).scalars().all()
    assert len(invited) == len(set(invited)) == 1200
    assert count(session, OutboxEmail, OutboxEmail.kind == "invite") == 1200


# --- reviews ---------------------------------------------------------------------------------------


def test_approving_a_review_makes_its_reward_payable(session):
    manager = person(session, role=TM)
    account = person(session)
    test = a_test(session)
    review, reward = a_review(session, test, account)
    assert participant_reward_row(session, account.id, reward.id)["stage"] == "Submitted"
    decided_at = datetime(2026, 11, 20, 15, tzinfo=UTC)  # a Friday

    assert (
        reviews.decide(session=session, actor_id=manager.id, review_ids=[review.id], approve=True, now=decided_at) == 1
    )
    session.commit()

    stored = fresh(session, Review, review.id)
    assert (stored.status, stored.decided_by_id, stored.reject_reason) == ("approved", manager.id, None)
    assert stored.decided_at == decided_at
    paid = fresh(session, Reward, reward.id)
    assert (paid.status, paid.approved_at) == ("PENDING", decided_at)
    row = participant_reward_row(session, account.id, reward.id)
    assert (row["stage"], row["stage_detail"]) == ("Approved", "Expected by Nov 27, 2026")
    [audit_row] = audit_rows(session, "review.approve")
    assert audit_row.before == {"status": "submitted", "reward": "PENDING"}
    assert audit_row.after == {"status": "approved", "reward": "PENDING"}
    staff_rows = rewards.list_rewards(
        session=session,
        actor_id=manager.id,
        query=rewards.clean_query(filters=[{"name": "payable", "type": "list", "values": ["yes"]}]),
    )
    assert [r["id"] for r in staff_rows.rows] == [str(reward.id)] and staff_rows.rows[0]["status_label"] == "Payable"

    with pytest.raises(ServiceError) as twice:
        reviews.decide(session=session, actor_id=manager.id, review_ids=[review.id], approve=False, reason="low-effort")
    assert twice.value.message == reviews.ALREADY_DECIDED
    assert fresh(session, Review, review.id).status == "approved"


def test_excluding_a_review_pays_it_like_an_approval_once_and_audits_it(session):
    manager = person(session, role=TM)
    account = person(session)
    test = a_test(session)
    review, reward = a_review(session, test, account)
    other, other_reward = a_review(session, test, person(session))
    decided_at = datetime(2026, 11, 20, 15, tzinfo=UTC)  # a Friday

    assert reviews.approval_preview(session=session, actor_id=manager.id, review_ids=[review.id, other.id]) == (
        2,
        4000,
    )
    assert reviews.exclude(session=session, actor_id=manager.id, review_ids=[review.id], now=decided_at) == 1
    session.commit()

    stored = fresh(session, Review, review.id)
    assert (stored.status, stored.decided_by_id, stored.reject_reason) == ("excluded", manager.id, None)
    paid = fresh(session, Reward, reward.id)
    assert (paid.status, paid.approved_at) == ("PENDING", decided_at)  # payable, exactly as on approval
    row = participant_reward_row(session, account.id, reward.id)
    assert (row["stage"], row["stage_detail"]) == ("Approved", "Expected by Nov 27, 2026")
    [audit_row] = audit_rows(session, "review.exclude")
    assert (audit_row.target_id, audit_row.before) == (str(review.id), {"status": "submitted", "reward": "PENDING"})
    assert audit_row.after == {"status": "excluded", "reward": "PENDING"}
    assert all(action in audit.ACTIONS for action in reviews.AUDIT_ACTIONS.values())  # the log's filter names it
    listed = reviews.list_reviews(
        session=session,
        actor_id=manager.id,
        query=reviews.clean_query(filters=[{"name": "status", "type": "list", "values": ["excluded"]}]),
    )
    assert [(r["id"], r["status_label"]) for r in listed.rows] == [(str(review.id), "Excluded")]

    with pytest.raises(ServiceError) as twice:
        reviews.exclude(session=session, actor_id=manager.id, review_ids=[review.id])
    assert twice.value.message == reviews.ALREADY_DECIDED
    with pytest.raises(ServiceError):
        reviews.decide(session=session, actor_id=manager.id, review_ids=[review.id], approve=True)
    # In bulk, a review decided already is left alone and not counted.
    assert reviews.exclude(session=session, actor_id=manager.id, review_ids=[review.id, other.id]) == 1
    session.commit()
    assert fresh(session, Review, other.id).status == "excluded"
    assert fresh(session, Reward, other_reward.id).approved_at is not None
    assert len(audit_rows(session, "review.exclude")) == 2
    with pytest.raises(ServiceError):
        reviews.exclude(session=session, actor_id=manager.id, review_ids=[])


def test_rejecting_needs_a_listed_reason_and_cancels_the_reward(session):
    manager = person(session, role=TM)
    account = person(session)
    test = a_test(session)
    review, reward = a_review(session, test, account)
    for reason in (None, "", "rude", "Low effort answers"):
        with pytest.raises(ServiceError) as refused:
            reviews.decide(session=session, actor_id=manager.id, review_ids=[review.id], approve=False, reason=reason)
        assert refused.value.message == decisions.REASON_REQUIRED
    with pytest.raises(ServiceError) as long_note:
        reviews.decide(
            session=session,
            actor_id=manager.id,
            review_ids=[review.id],
            approve=False,
            reason="off-topic",
            note="x" * 1001,
        )
    assert long_note.value.message == decisions.NOTE_TOO_LONG
    session.commit()
    assert fresh(session, Review, review.id).status == "submitted" and audit_rows(session) == []

    assert (
        reviews.decide(
            session=session,
            actor_id=manager.id,
            review_ids=[str(review.id)],
            approve=False,
            reason="ai-generated",
            note="  Same text as another review  ",
        )
        == 1
    )
    session.commit()

    stored = fresh(session, Review, review.id)
    assert (stored.status, stored.reject_reason, stored.reject_note) == (
        "rejected",
        "ai-generated",
        "Same text as another review",
    )
    assert fresh(session, Reward, reward.id).status == "CANCELED"
    row = participant_reward_row(session, account.id, reward.id)
    assert (row["stage"], row["stage_detail"]) == ("Rejected", "AI-generated answers")
    [audit_row] = audit_rows(session, "review.reject")
    assert audit_row.after == {
        "status": "rejected",
        "reward": "CANCELED",
        "reason": "ai-generated",
        "note": "Same text as another review",
        "flags": None,
        "evidence": None,
    }
    detail = reviews.review_detail(session=session, actor_id=manager.id, review_id=review.id)
    assert (detail["status_label"], detail["reason"], detail["note"], detail["evidence"]) == (
        "Rejected",
        "AI-generated answers",
        "Same text as another review",
        "",
    )
    assert session.execute(sa.text(f"SELECT reject_flags FROM review WHERE id = {review.id}")).scalar() is None


def test_a_rejection_carries_the_evidence_it_rests_on(session):
    manager = person(session, role=TM)
    test = a_test(session)
    review, _ = a_review(session, test, person(session))
    for flags, evidence, message in (
        ("speeder", None, decisions.BAD_FLAGS),
        (["Speeder!"], None, decisions.BAD_FLAGS),
        ([1], None, decisions.BAD_FLAGS),
        (["speeder"] * 21, None, decisions.BAD_FLAGS),
        (["speeder"], "x" * 501, decisions.EVIDENCE_TOO_LONG),
        (None, 42, decisions.EVIDENCE_TOO_LONG),
    ):
        with pytest.raises(ServiceError) as refused:
            reviews.decide(
                session=session,
                actor_id=manager.id,
                review_ids=[review.id],
                approve=False,
                reason="low-effort",
                flags=flags,
                evidence=evidence,
            )
        assert (refused.value.message, refused.value.field) == (message, "evidence")
    assert fresh(session, Review, review.id).status == "submitted"

    reviews.decide(
        session=session,
        actor_id=manager.id,
        review_ids=[review.id],
        approve=False,
        reason="low-effort",
        flags=["speeder", "pasted", "speeder"],
        evidence="  43 seconds for a 15-minute test.  ",
    )
    session.commit()
    stored = fresh(session, Review, review.id)
    assert (stored.reject_flags, stored.reject_evidence) == (["speeder", "pasted"], "43 seconds for a 15-minute test.")
    [row] = audit_rows(session, "review.reject")
    assert (row.after["flags"], row.after["evidence"]) == (["speeder", "pasted"], "43 seconds for a 15-minute test.")
    detail = reviews.review_detail(session=session, actor_id=manager.id, review_id=review.id)
    assert detail["evidence"] == (
        "Finished far faster than most participants; Pasted most of the written answers. "
        "43 seconds for a 15-minute test."
    )


def test_bulk_decision_counts_only_undecided_reviews(session):
    manager = person(session, role=TM)
    test = a_test(session)
    waiting = [a_review(session, test, person(session))[0] for _ in range(3)]
    done = a_review(session, test, person(session), status="rejected", reward_status="CANCELED")[0]
    assert (
        reviews.decide(
            session=session, actor_id=manager.id, review_ids=[*(r.id for r in waiting), done.id], approve=True
        )
        == 3
    )
    session.commit()
    assert fresh(session, Review, done.id).status == "rejected"
    assert len(audit_rows(session, "review.approve")) == 3


def test_auto_approve_only_reviews_older_than_the_days(session):
    test = a_test(session)
    old, old_reward = a_review(session, test, person(session), age_days=15)
    young, young_reward = a_review(session, test, person(session), age_days=13)
    rejected, _ = a_review(session, test, person(session), age_days=30, status="rejected", reward_status="CANCELED")

    assert reviews.auto_approve(session=session, days=14) == 1
    session.commit()

    assert [fresh(session, Review, r.id).status for r in (old, young, rejected)] == [
        "approved",
        "submitted",
        "rejected",
    ]
    assert fresh(session, Reward, old_reward.id).approved_at is not None
    assert fresh(session, Reward, young_reward.id).approved_at is None
    [row] = audit_rows(session, "review.auto-approve")
    assert (row.target_id, row.actor_id, row.actor_role, row.actor_email) == (str(old.id), None, "", "system")
    assert reviews.auto_approve(session=session, days=14) == 0
    assert reviews.auto_approve(session=session, days=12) == 1


def test_export_csv_one_row_per_review_one_column_per_question(session):
    manager = person(session, role=TM)
    test = a_test(session)
    first, second = person(session), person(session)
    r1, _ = a_review(
        session, test, first, age_days=2, answers={"q1": {"value": '=HYPERLINK("http://evil")'}, "q2": {"value": "b"}}
    )
    r2, _ = a_review(session, test, second, age_days=1, answers={"q1": {"value": "Clear and short"}})
    other_test = a_test(session)
    a_review(session, other_test, first)

    name, text = reviews.export_csv(session=session, actor_id=manager.id, test_id=str(test.id))
    session.commit()

    assert name == f"reviews-test-{test.id}.csv"
    header, *rows = read_csv(text)
    assert len(rows) == 2
    assert header[:9] == [
        "review_id",
        "test_version",
        "participant",
        "submitted_at",
        "status",
        "rejection_reason",
        "time_taken",
        "words",
        "pasted_answers",
    ]
    assert sorted(header[9:]) == sorted(q["text"] for q in QUESTIONS)
    table = [dict(zip(header, row, strict=True)) for row in rows]
    assert [t["review_id"] for t in table] == [str(r1.id), str(r2.id)]
    assert [t["participant"] for t in table] == [first.email, second.email]
    assert table[0][QUESTIONS[0]["text"]] == '\'=HYPERLINK("http://evil")'
    assert table[0][QUESTIONS[1]["text"]] == "Pro"
    assert table[1][QUESTIONS[0]["text"]] == "Clear and short" and table[1][QUESTIONS[1]["text"]] == ""
    assert table[1]["words"] == "3" and table[1]["status"] == "submitted"
    [row] = audit_rows(session, "reviews.export")
    assert row.after == {"rows": 2}


def test_clear_expired_pending_reviews_messages(session):
    manager = person(session, role=TM)
    test = a_test(session)
    account = person(session)

    def started(deadline: timedelta, status: str = "active") -> ReviewSession:
        row = ReviewSession(
            test_id=test.id,
            account_id=account.id,
            respondent_key=f"account:{account.id}",
            deadline_at=utcnow() + deadline,
            status=status,
        )
        session.add(row)
        session.commit()
        return row

    assert (
        reviews.clear_expired_pending(session=session, actor_id=manager.id)
        == "There are no expired pending reviews to clear."
    )
    running = started(timedelta(minutes=30))
    submitted = started(-timedelta(hours=2), "submitted")
    assert reviews.clear_expired_pending(session=session, actor_id=manager.id) == pending.NONE_TO_CLEAR
    expired = started(-timedelta(minutes=1))

    assert (
        reviews.clear_expired_pending(session=session, actor_id=manager.id) == "Pending reviews successfully cleared."
    )
    session.commit()

    assert [fresh(session, ReviewSession, r.id).status for r in (running, submitted, expired)] == [
        "active",
        "submitted",
        "cleared",
    ]
    [row] = audit_rows(session, "pending-reviews.clear")
    assert row.after == {"status": "cleared", "count": 1}
    assert reviews.clear_expired_pending(session=session, actor_id=manager.id) == pending.NONE_TO_CLEAR


# --- rewards ---------------------------------------------------------------------------------------


def test_mark_paid_only_approved_rewards(session):
    owner = person(session, role=TO)
    account = person(session)
    test = a_test(session)
    _, unapproved = a_review(session, test, account)
    _, approved = a_review(session, a_test(session), account, status="approved", approved=True)
    _, canceled = a_review(session, a_test(session), account, status="rejected", reward_status="CANCELED")

    for reward in (unapproved, canceled):
        with pytest.raises(ServiceError):
            rewards.mark(session=session, actor_id=owner.id, reward_ids=[reward.id], status="EXECUTED")
    with pytest.raises(ServiceError):
        rewards.mark(session=session, actor_id=owner.id, reward_ids=[approved.id], status="PAID")
    session.commit()
    assert [fresh(session, Reward, r.id).status for r in (unapproved, canceled)] == ["PENDING", "CANCELED"]

    assert (
        rewards.mark(
            session=session, actor_id=owner.id, reward_ids=[unapproved.id, approved.id, canceled.id], status="EXECUTED"
        )
        == 1
    )
    session.commit()

    paid = fresh(session, Reward, approved.id)
    assert paid.status == "EXECUTED" and paid.paid_on is not None
    assert fresh(session, Reward, unapproved.id).status == "PENDING"
    row = participant_reward_row(session, account.id, approved.id)
    assert (row["stage"], row["stage_detail"]) == ("Paid", f"Paid on {table_rules.format_date(paid.paid_on)}")
    assert row["payment_label"] == "Paid"
    [audit_row] = audit_rows(session, "reward.pay")
    assert audit_row.before == {"status": "PENDING", "paid_on": None}
    assert audit_row.after == {"status": "EXECUTED", "paid_on": paid.paid_on.isoformat()}
    # Paid once: not again.
    with pytest.raises(ServiceError):
        rewards.mark(session=session, actor_id=owner.id, reward_ids=[approved.id], status="EXECUTED")


def test_a_failed_payment_can_be_paid_later(session):
    owner = person(session, role=TO)
    account = person(session)
    review, unapproved = a_review(session, a_test(session), account)
    with pytest.raises(ServiceError):  # not due yet: it cannot have failed
        rewards.mark(session=session, actor_id=owner.id, reward_ids=[unapproved.id], status="FAILED")
    reviews.decide(session=session, actor_id=owner.id, review_ids=[review.id], approve=True)
    assert rewards.mark(session=session, actor_id=owner.id, reward_ids=[unapproved.id], status="EXECUTED") == 1
    session.rollback()
    _, reward = a_review(session, a_test(session), account, status="approved", approved=True)
    assert rewards.mark(session=session, actor_id=owner.id, reward_ids=[reward.id], status="FAILED") == 1
    session.commit()
    assert participant_reward_row(session, account.id, reward.id)["stage"] == "Failed"
    assert rewards.mark(session=session, actor_id=owner.id, reward_ids=[reward.id], status="EXECUTED") == 1
    session.commit()
    assert fresh(session, Reward, reward.id).status == "EXECUTED"
    assert [r.action for r in audit_rows(session)] == ["reward.fail", "reward.pay"]


def test_cancel_a_pending_or_failed_reward_never_a_paid_one(session):
    owner = person(session, role=TO)
    account = person(session)
    _, failed = a_review(session, a_test(session), account, status="approved", approved=True, reward_status="FAILED")
    _, paid = a_review(session, a_test(session), account, status="approved", approved=True, reward_status="EXECUTED")
    _, waiting = a_review(session, a_test(session), account)
    assert (
        rewards.mark(session=session, actor_id=owner.id, reward_ids=[failed.id, paid.id, waiting.id], status="CANCELED")
        == 2
    )
    session.commit()
    assert [fresh(session, Reward, r.id).status for r in (failed, paid, waiting)] == [
        "CANCELED",
        "EXECUTED",
        "CANCELED",
    ]
    assert participant_reward_row(session, account.id, waiting.id)["stage"] == "Canceled"
    with pytest.raises(ServiceError):
        rewards.mark(session=session, actor_id=owner.id, reward_ids=[paid.id], status="CANCELED")
    assert len(audit_rows(session, "reward.cancel")) == 2


def test_mark_paid_credits_the_referral_bonus_once(seeded):
    session = seeded
    owner = person(session, role=TO)
    program = session.execute(select(ReferralProgram)).scalar_one()
    referrer, referee = person(session), person(session)
    ensure_referral_code(session=session, account_id=referrer.id)
    create_member(session=session, program=program, referrer=referrer, referee=referee)
    session.commit()
    _, first = a_review(session, a_test(session), referee, status="approved", approved=True)
    _, second = a_review(session, a_test(session), referee, status="approved", approved=True)

    assert rewards.mark(session=session, actor_id=owner.id, reward_ids=[first.id], status="EXECUTED") == 1
    session.commit()
    session.expire_all()
    member = session.execute(select(ReferralMember).where(ReferralMember.referee_account_id == referee.id)).scalar_one()
    assert member.reward_cents == program.bonus_cents and member.reward_paid_at is not None
    paid_at = member.reward_paid_at
    [row] = audit_rows(session, "reward.pay")
    assert row.after["referral_bonus_to"] == referrer.id

    assert rewards.mark(session=session, actor_id=owner.id, reward_ids=[second.id], status="EXECUTED") == 1
    session.commit()
    session.expire_all()
    member = session.execute(select(ReferralMember).where(ReferralMember.referee_account_id == referee.id)).scalar_one()
    assert (member.reward_cents, member.reward_paid_at) == (program.bonus_cents, paid_at)
    assert "referral_bonus_to" not in audit_rows(session, "reward.pay")[-1].after


def test_cli_mark_paid_credits_a_missing_bonus_of_an_already_paid_reward(seeded):
    """mark-reward-paid on a reward already EXECUTED (paid before the bonus existed) still credits the bonus."""
    session = seeded
    program = session.execute(select(ReferralProgram)).scalar_one()
    referrer, referee = person(session), person(session)
    ensure_referral_code(session=session, account_id=referrer.id)
    create_member(session=session, program=program, referrer=referrer, referee=referee)
    session.commit()
    _, reward = a_review(session, a_test(session), referee, status="approved", reward_status="EXECUTED", approved=True)

    _, bonus = mark_reward_paid(session=session, reward_id=reward.id)
    session.commit()
    # The bonus is a payable reward of the referrer's own (issue 37), credited once.
    assert bonus is not None and (bonus.account_id, bonus.amount_cents) == (referrer.id, program.bonus_cents)
    assert (bonus.kind, bonus.review_id, bonus.approved_at is not None) == ("referral-bonus", None, True)
    _, again = mark_reward_paid(session=session, reward_id=reward.id)
    assert again is None


def test_cli_mark_paid_is_recorded_as_the_system(session):
    account = person(session)
    review, reward = a_review(session, a_test(session), account, age_days=20)
    paid, _ = rewards.mark_paid_by_system(session=session, reward_id=reward.id)
    session.commit()
    assert paid.status == "EXECUTED" and paid.approved_at == paid.paid_on
    # Paying accepted the review (as migration 0007 did for rewards paid before it): it is not waiting for staff.
    decided = fresh(session, Review, review.id)
    assert (decided.status, decided.decided_at) == ("approved", paid.paid_on)
    assert reviews.auto_approve(session=session, days=14) == 0
    [row] = audit_rows(session, "reward.pay")
    assert (row.actor_id, row.actor_role, row.actor_email) == (None, "", "system")
    _, canceled = a_review(session, a_test(session), account, reward_status="CANCELED")
    with pytest.raises(ServiceError):
        rewards.mark_paid_by_system(session=session, reward_id=canceled.id)


def test_payout_csv_lists_payable_rewards_by_participant(session):
    owner = person(session, role=TO)
    ann, bob, cid = person(session), person(session), person(session)
    _, a1 = a_review(session, a_test(session), ann, status="approved", approved=True, cents=2000)
    _, a2 = a_review(session, a_test(session), ann, status="approved", approved=True, cents=2550)
    _, b1 = a_review(session, a_test(session), bob, status="approved", approved=True, cents=1000)
    a_review(session, a_test(session), bob)  # not approved yet
    a_review(session, a_test(session), cid, status="approved", approved=True, reward_status="EXECUTED")  # paid
    bob.email = "=cmd|'/c calc'!A1@example.com"  # a hostile address is not a formula in the sheet
    session.add(bob)
    session.commit()

    name, text = rewards.payout_csv(session=session, actor_id=owner.id)
    session.commit()

    assert name == "payouts.csv"
    header, *rows = read_csv(text)
    assert header == ["participant_id", "payment_email", "amount_usd", "reward_ids"]
    assert rows == [
        [str(ann.id), ann.email, "45.50", f"{a1.id} {a2.id}"],
        [str(bob.id), "'=cmd|'/c calc'!A1@example.com", "10.00", str(b1.id)],
    ]
    [row] = audit_rows(session, "rewards.export")
    assert row.after == {"participants": 2}


# --- the audit log ---------------------------------------------------------------------------------


def test_audit_log_refuses_update_and_delete(session):
    admin = person(session, role=SA)
    target = person(session, verified=False)
    participants.set_verified(session=session, actor_id=admin.id, account_ids=[target.id], verified=True)
    session.commit()
    [entry] = audit_rows(session)

    for statement in ("UPDATE audit_log SET action = 'participant.unverify'", "DELETE FROM audit_log"):
        with pytest.raises(sa.exc.DBAPIError, match="append-only"):
            session.execute(sa.text(statement))
            session.flush()
        session.rollback()
    entry = fresh(session, AuditEntry, entry.id)
    entry.after = {"verified": False}
    session.add(entry)
    with pytest.raises(sa.exc.DBAPIError, match="append-only"):
        session.commit()
    session.rollback()
    session.delete(fresh(session, AuditEntry, entry.id))
    with pytest.raises(sa.exc.DBAPIError, match="append-only"):
        session.commit()
    session.rollback()
    [kept] = audit_rows(session)
    assert (kept.action, kept.after) == ("participant.verify", {"verified": True})


def test_list_audit_filters_by_action(session):
    admin = person(session, role=SA)
    owner = person(session, role=TO)
    targets = [person(session, verified=False).id for _ in range(2)]
    participants.set_verified(session=session, actor_id=admin.id, account_ids=targets, verified=True)
    participants.set_active(session=session, actor_id=owner.id, account_id=targets[0], active=False)
    session.commit()

    def listed(**raw: Any) -> list[dict[str, str]]:
        return audit.list_audit(session=session, actor_id=owner.id, query=audit.clean_query(**raw)).rows

    assert len(listed()) == 3
    verified = listed(filters=[{"name": "action", "type": "list", "values": ["participant.verify"]}])
    assert [r["action"] for r in verified] == ["Verified participant"] * 2
    assert {r["target"] for r in verified} == {f"account {t}" for t in targets}
    assert verified[0]["actor"] == admin.email and verified[0]["role"] == "Admin"
    others = listed(filters=[{"name": "action", "type": "exclude", "values": ["participant.verify"]}])
    assert [(r["action"], r["role"]) for r in others] == [("Deactivated account", "Team Owner")]
    assert listed(filters=[{"name": "action", "type": "list", "values": ["reward.pay"]}]) == []
    by_role = listed(filters=[{"name": "role", "type": "list", "values": [TO]}])
    assert [r["action"] for r in by_role] == ["Deactivated account"]
    assert len(listed(search=admin.email)) == 2
