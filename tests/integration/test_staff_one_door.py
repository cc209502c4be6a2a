"""One door for staff: a participant's profile is changed by staff only through services/admin/profiles.py,
by roles the ranks allow (domain/staff/roles.py), with one audit row in the same transaction. SQLite and
PostgreSQL."""

from __future__ import annotations

import uuid

import pytest
from sqlmodel import select

from portal.domain.staff import roles
from portal.models import Account, AuditEntry
from portal.services import staff as staff_accounts
from portal.services.admin import audit
from portal.services.admin import participants as admin_participants
from portal.services.admin import profiles as admin_profiles
from portal.services.admin.guard import StaffRefused
from portal.services.errors import ServiceError
from portal.services.profile import current_form
from portal.services.seeding import seed_reference
from tests.support.factories import make_participant

TARGETS = ("participant", *roles.ROLES)


@pytest.fixture
def seeded(session):
    seed_reference(session)
    session.commit()
    return session


def _account(session, role: str) -> Account:
    account = make_participant(session, verified=False)
    account.staff_role = None if role == "participant" else role
    session.add(account)
    session.commit()
    return account


def _raw(session, account: Account, **changes) -> dict:
    """A valid form for the account (its current e-mails), with `changes`."""
    values = {
        "firstName": "Avery",
        "lastName": "Tester",
        "email": account.email,
        "workEmail": account.work_email,
        "languages": ["english"],
    }
    values.update(changes)
    return values


def _state(session, account_id: int) -> tuple:
    session.expire_all()
    account = session.get(Account, account_id)
    form = current_form(session, account)
    return account.email, account.verified, account.removed_at, form.firstName


def _audit_rows(session, account_id: int) -> list[AuditEntry]:
    return list(
        session.exec(
            select(AuditEntry).where(AuditEntry.target_type == "account", AuditEntry.target_id == str(account_id))
        ).all()
    )


@pytest.mark.parametrize("actor_role", roles.ROLES)
@pytest.mark.parametrize("target_role", TARGETS)
def test_staff_change_only_lower_roles_unless_super_admin(seeded, actor_role, target_role):
    session = seeded
    actor, target = _account(session, actor_role), _account(session, target_role)
    allowed = roles.may_change_account(actor_role, target.staff_role)
    before = _state(session, target.id)
    new_email = f"changed-{uuid.uuid4().hex[:8]}@example.com"
    changes = [({"firstName": "Mallory"}, False), ({"firstName": "Mallory", "email": new_email}, False)]
    if target_role == "participant":
        changes.append(({"firstName": "Mallory"}, True))
    email_allowed = roles.may_change_credentials(actor_role, target.staff_role, own=False)
    for change, verify in changes:
        session.expire_all()
        attempt = dict(raw=_raw(session, session.get(Account, target.id), **change), verify=verify)
        if allowed and "email" in change and not email_allowed:
            with pytest.raises(StaffRefused) as refused:
                admin_profiles.save_participant_profile(
                    session=session, actor_id=actor.id, participant_id=target.id, **attempt
                )
            session.rollback()
            assert refused.value.message == roles.STAFF_CREDENTIALS
        elif allowed:
            admin_profiles.save_participant_profile(
                session=session, actor_id=actor.id, participant_id=target.id, **attempt
            )
            session.commit()
        else:
            with pytest.raises(StaffRefused) as refused:
                admin_profiles.save_participant_profile(
                    session=session, actor_id=actor.id, participant_id=target.id, **attempt
                )
            session.rollback()
            assert refused.value.message == roles.HIGHER_ROLE
    after = _state(session, target.id)
    rows = _audit_rows(session, target.id)
    if allowed:
        assert after[3] == "Mallory" and after[0] == (new_email if email_allowed else before[0])
        assert after[1] is (target_role == "participant")  # 'Submit & Verify' is for participants
        # One row per change that changed something: the name, then the e-mail, then the verification.
        assert [r.action for r in rows] == [
            "participant.profile",
            *(["participant.profile"] if email_allowed else []),
            *(["participant.verify-profile"] if target_role == "participant" else []),
        ]
        assert rows[0].after["firstName"] == "Mallory"
        assert not email_allowed or rows[1].after == {"email": new_email}
        assert all(r.actor_id == actor.id and r.actor_role == actor_role for r in rows)
    else:
        assert after == before and rows == []
    # The staff view says what this caller may do, before they try.
    view = admin_profiles.participant_profile(session=session, actor_id=actor.id, participant_id=target.id)
    assert view.may_edit is allowed
    assert view.may_verify is (allowed and target_role == "participant")
    assert view.may_change_email is (allowed and email_allowed)


@pytest.mark.parametrize("target_role", roles.ROLES)
def test_a_staff_accounts_email_only_by_a_super_admin(seeded, target_role):
    """Even where the ranks allowed it, a staff account's e-mail is changed by its owner or a super-admin."""
    session = seeded
    owner = _account(session, roles.TEAM_OWNER)
    target = _account(session, target_role)
    assert not roles.may_change_credentials(roles.TEAM_OWNER, target.staff_role, own=False)
    with pytest.raises(StaffRefused):
        admin_profiles.save_participant_profile(
            session=session,
            actor_id=owner.id,
            participant_id=target.id,
            raw=_raw(session, target, email=f"x-{uuid.uuid4().hex[:6]}@example.com"),
        )
    session.rollback()
    assert _audit_rows(session, target.id) == []


def test_participants_and_strangers_are_refused_and_nothing_changes(seeded):
    session = seeded
    participant, target = _account(session, "participant"), _account(session, "participant")
    before = _state(session, target.id)
    for actor_id in (participant.id, None, 10**9, "1", True):
        for call in (
            lambda: admin_profiles.participant_profile(session=session, actor_id=actor_id, participant_id=target.id),
            lambda: admin_profiles.save_participant_profile(
                session=session,
                actor_id=actor_id,
                participant_id=target.id,
                raw=_raw(session, target, firstName="Mallory"),
                verify=True,
            ),
            lambda: admin_profiles.email_problem(
                session=session, actor_id=actor_id, participant_id=target.id, key="email", address="x@example.com"
            ),
        ):
            with pytest.raises(StaffRefused):
                call()
            session.rollback()
    assert _state(session, target.id) == before


def test_own_account_and_bad_ids(seeded):
    session = seeded
    admin = _account(session, roles.SUPER_ADMIN)
    with pytest.raises(StaffRefused):
        admin_profiles.save_participant_profile(
            session=session, actor_id=admin.id, participant_id=admin.id, raw=_raw(session, admin, firstName="Me")
        )
    session.rollback()
    for bad in (None, "", "abc", -1, 0, 10**12, [1], {"id": 1}):
        with pytest.raises(ServiceError) as refused:
            admin_profiles.participant_profile(session=session, actor_id=admin.id, participant_id=bad)
        assert refused.value.message == "This participant does not exist."
        session.rollback()


def test_deactivated_accounts_are_read_only(seeded):
    session = seeded
    admin, target = _account(session, roles.SUPER_ADMIN), _account(session, "participant")
    admin_participants.set_active(session=session, actor_id=admin.id, account_id=target.id, active=False)
    session.commit()
    view = admin_profiles.participant_profile(session=session, actor_id=admin.id, participant_id=target.id)
    assert view.deactivated and not view.may_edit
    with pytest.raises(ServiceError):
        admin_profiles.save_participant_profile(
            session=session, actor_id=admin.id, participant_id=target.id, raw=_raw(session, target, firstName="Mallory")
        )
    session.rollback()
    assert _state(session, target.id)[3] != "Mallory"


def test_create_staff_writes_its_audit_row(seeded):
    session = seeded
    email = f"new-staff-{uuid.uuid4().hex[:8]}@example.com"
    account, created = staff_accounts.create_staff(
        session, email=email, role=roles.TEAM_MANAGER, password="Str0ng!Passw0rd"
    )
    session.commit()
    assert created
    account, created = staff_accounts.create_staff(session, email=email, role=roles.TEAM_OWNER, password=None)
    session.commit()
    rows = _audit_rows(session, account.id)
    assert [r.action for r in rows] == ["staff.create", "staff.create"]
    assert all(r.actor_email == audit.SYSTEM.email for r in rows)
    assert rows[0].after["staff_role"] == roles.TEAM_MANAGER and rows[0].after["created"] is True
    assert rows[1].before["staff_role"] == roles.TEAM_MANAGER and rows[1].after["staff_role"] == roles.TEAM_OWNER
