"""Staff: one participant's profile at /admin/participants/{id}: read it, change it, 'Submit & Verify'.

The one door for staff to a participant's profile. Each call starts with `require_staff` (edit-profiles;
verify too for 'Submit & Verify'), refuses an account of the same or a higher role (except for a
super-admin; a staff account's e-mail only by its owner or a super-admin), and writes one audit row in
the transaction of the change. The form's rules and the save are the profile's own (services/profile.py).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from sqlmodel import Session

from portal.domain import profile_rules as rules
from portal.domain.accounts import normalize_email
from portal.domain.staff import profiles as staff_profiles
from portal.domain.staff import roles
from portal.models import Account
from portal.services import notification_events
from portal.services import profile as profiles
from portal.services.admin import audit
from portal.services.admin.guard import Caller, Staff, StaffRefused, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError


@dataclass(frozen=True)
class StaffProfileView:
    """What the staff page shows: the form's view, and what this staff member may do with it."""

    profile: profiles.ProfileView
    email: str
    role_label: str  # '' for a participant
    deactivated: bool
    deleted: bool  # 'Delete my account' (issue 40): the person's data is erased
    may_edit: bool
    may_verify: bool
    may_change_email: bool
    notes: list[str] = field(default_factory=list)


def _target(session: Session, participant_id: Any, *, lock: bool = False) -> Account:
    number = one_id(participant_id, staff_profiles.NOT_FOUND)
    account = session.get(Account, number, with_for_update=lock)
    if account is None:
        raise ServiceError(staff_profiles.NOT_FOUND)
    return account


def _may_edit(staff: Staff, target: Account) -> bool:
    own = staff.account_id == target.id
    return (
        not own
        and target.removed_at is None
        and staff.may(roles.EDIT_PROFILES)
        and roles.may_change_account(staff.role, target.staff_role)
    )


def participant_profile(session: Session, *, actor_id: Caller, participant_id: Any) -> StaffProfileView:
    """A participant's profile as staff see it: internal fields, the values before the last change."""
    staff = require_staff(session, actor_id, roles.VIEW)
    target = _target(session, participant_id)
    may_edit = _may_edit(staff, target)
    notes = []
    if target.removed_at is not None:
        notes.append(staff_profiles.DEACTIVATED)
    elif staff.account_id == target.id:
        notes.append(staff_profiles.OWN_ACCOUNT)
    elif not may_edit:
        notes.append(roles.HIGHER_ROLE)
    if roles.is_staff(target.staff_role):
        notes.append(staff_profiles.STAFF_NOT_VERIFIED)
        if may_edit and not roles.may_change_credentials(staff.role, target.staff_role, own=False):
            notes.append(roles.STAFF_CREDENTIALS)
    return StaffProfileView(
        profile=profiles.profile_view(session, target, staff_view=True),
        email=target.email or "",
        role_label=roles.role_label(target.staff_role),
        deactivated=target.removed_at is not None,
        deleted=target.deleted_at is not None,
        may_edit=may_edit,
        may_verify=may_edit and staff.may(roles.VERIFY) and not roles.is_staff(target.staff_role),
        may_change_email=may_edit and roles.may_change_credentials(staff.role, target.staff_role, own=False),
        notes=notes,
    )


def save_participant_profile(
    session: Session,
    *,
    actor_id: Caller,
    participant_id: Any,
    raw: Any,
    verify: Any = False,
    today: dt.date | None = None,
) -> profiles.SaveOutcome:
    """Store staff's change of a participant's profile ('Submit', or 'Submit & Verify' with `verify`)."""
    verify = verify is True
    staff = require_staff(session, actor_id, roles.EDIT_PROFILES)
    if verify:
        staff = require_staff(session, actor_id, roles.VERIFY)
    target = _target(session, participant_id, lock=True)
    if staff.account_id == target.id:
        raise StaffRefused(staff_profiles.OWN_ACCOUNT)
    if target.removed_at is not None:
        raise ServiceError(staff_profiles.DEACTIVATED)
    if not roles.may_change_account(staff.role, target.staff_role):
        raise StaffRefused(roles.HIGHER_ROLE)
    if verify and roles.is_staff(target.staff_role):
        raise ServiceError(staff_profiles.STAFF_NOT_VERIFIED)
    before_email, before_work = target.email, target.work_email
    form, _errors = rules.parse_payload(raw)
    email_changes = normalize_email(form.email) != normalize_email(before_email or "") or normalize_email(
        form.workEmail
    ) != normalize_email(before_work or "")
    if email_changes and not roles.may_change_credentials(staff.role, target.staff_role, own=False):
        raise StaffRefused(roles.STAFF_CREDENTIALS)
    was_verified = target.verified
    actor = session.get(Account, staff.account_id)
    assert actor is not None  # require_staff read it in this transaction
    outcome = profiles.store_profile(
        session, actor=actor, target=target, raw=raw, staff_view=True, verify=verify, today=today
    )
    after = {
        key: _plain(value)
        for key, value in rules.flat_values(profiles.current_form(session, target)).items()
        if key in outcome.changed
    }
    before = {key: _plain(value) for key, value in outcome.changed.items()}
    if verify and not was_verified:
        before["verified"], after["verified"] = False, True
        notification_events.account_verified(session, [target.id])
    audit.record(
        session,
        staff,
        "participant.verify-profile" if verify else "participant.profile",
        "account",
        target.id,
        before,
        after,
    )
    return outcome


def _plain(value: Any) -> Any:
    return list(value) if isinstance(value, tuple) else value


def email_problem(session: Session, *, actor_id: Caller, participant_id: Any, key: str, address: Any) -> str:
    """The live check of the staff page's e-mail fields (staff may add any e-mail; still one account each)."""
    require_staff(session, actor_id, roles.EDIT_PROFILES)
    target = _target(session, participant_id)
    return profiles.check_email(session, target=target, key=key, address=address, staff_view=True)


def roles_page(session: Session, *, actor_id: Caller, page: int = 1) -> profiles.PickerPage:
    require_staff(session, actor_id, roles.VIEW)
    return profiles.roles_page(session=session, page=page)


def audiences_page(session: Session, *, actor_id: Caller) -> profiles.PickerPage:
    require_staff(session, actor_id, roles.VIEW)
    return profiles.audiences_page(session=session)
