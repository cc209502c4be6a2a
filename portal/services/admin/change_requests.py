"""Staff: the queue of participants' profile changes, old and new values side by side.

A participant's change is saved when they submit it (they see it at once); it waits here until staff
approve it, or decline it, which puts back the old value of every field the change still holds.
E-mail addresses are not put back: they follow their own verification links.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import Session, SQLModel

from portal.domain import profile_rules as rules
from portal.domain import table as table_rules
from portal.domain.staff import roles
from portal.models import (
    Account,
    ParticipantProfile,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
    ProfileRole,
)
from portal.models._base import utcnow
from portal.services import profile as profile_service
from portal.services import transitions
from portal.services.admin import audit
from portal.services.admin.guard import Caller, StaffRefused, require_staff
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError
from portal.services.tables import TablePage, TableSpec

PAGE_SIZE = 20
# The queue: the pending requests, oldest first, PAGE_SIZE a page; no search or filters.
TABLE = TableSpec(
    key=ProfileChangeRequest.id,
    sortable={"createdOn": ProfileChangeRequest.created_at},
    scope=(ProfileChangeRequest.status == "pending",),
)
ALREADY_DECIDED = "This change request was already decided."
NOT_RESTORED = ("email", "workEmail")
LABELS = {
    "firstName": "First name",
    "lastName": "Last name",
    "hasAnonymizationEnabled": "Keep my name private",
    "email": "E-mail",
    "workEmail": "Work e-mail",
    "phoneNumber": "Phone number",
    "linkedin": "LinkedIn",
    "linkedinPrivacy": "LinkedIn privacy",
    "hasExperience": "Has experience",
    "birthYear": "Birth year",
    "country": "Country",
    "state": "State",
    "industries": "Industries",
    "jobTitle": "Job title",
    "roles": "Roles",
    "experienceLevels": "Seniority",
    "companySize": "Company size",
    "companyName": "Company",
    "languages": "Languages",
    "audiences": "Audiences",
}


def _new_values(request: ProfileChangeRequest) -> dict[str, Any]:
    form, _errors = rules.parse_payload(request.payload or {})
    return rules.flat_values(form)


def _shown(value: Any) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    return str(value)


def list_pending(session: Session, *, actor_id: Caller, page: Any = 1) -> TablePage:
    """Pending change requests, oldest first, each with its changes as {field, old, new} rows."""
    require_staff(session, actor_id, roles.CHANGE_REQUESTS)
    query = TABLE.clean(page=page, page_size=PAGE_SIZE, sort_direction=table_rules.ASCENDING)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total()).scalar_one()
    columns = (
        select(ProfileChangeRequest, Account.email, ParticipantProfile.first_name, ParticipantProfile.last_name)
        .join(Account, Account.id == ProfileChangeRequest.account_id)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
    )
    found = session.execute(chosen.page(columns), values).all()
    rows = []
    for request, email, first, last in found:
        new = _new_values(request)
        changes = [
            {"field": LABELS.get(k, k), "old": _shown(old), "new": _shown(new.get(k))}
            for k, old in (request.previous or {}).items()
        ]
        rows.append(
            {
                "id": str(request.id),
                "account_id": str(request.account_id),
                "who": " ".join(p for p in (first, last) if p) or (email or ""),
                "email": email or "",
                "submitted": table_rules.format_date(request.created_at),
                "changes": changes or [{"field": "Changes", "old": "not recorded", "new": "see profile"}],
            }
        )
    return TablePage(rows=rows, total=int(total))


def decide(session: Session, *, actor_id: Caller, request_id: Any, approve: Any) -> str:
    """Approve (keep the change) or decline (put the old values back). Returns the new status."""
    staff = require_staff(session, actor_id, roles.CHANGE_REQUESTS)
    if not isinstance(approve, bool):
        raise ServiceError("Choose approve or decline.")
    rid = one_id(request_id, "This change request does not exist.")
    request = session.get(ProfileChangeRequest, rid)
    if request is None:
        raise ServiceError("This change request does not exist.")
    owner = session.get(Account, request.account_id)
    if (
        owner is not None
        and owner.id != staff.account_id
        and not roles.may_change_account(staff.role, owner.staff_role)
    ):
        raise StaffRefused(roles.HIGHER_ROLE)
    # Decided once: the write expects 'pending' (two staff tabs deciding at once: the second is told).
    status = "approved" if approve else "declined"
    if not transitions.move(
        session,
        ProfileChangeRequest,
        ProfileChangeRequest.id == rid,
        ProfileChangeRequest.status == "pending",
        values={"status": status, "decided_at": utcnow(), "decided_by_id": staff.account_id},
    ):
        raise ServiceError(ALREADY_DECIDED)
    restored: dict[str, Any] = {}
    if not approve:
        restored = _restore(session, request)
    audit.record(
        session,
        staff,
        "change-request.approve" if approve else "change-request.decline",
        "change-request",
        request.id,
        {"status": "pending", "account_id": request.account_id},
        {"status": status, "restored": restored},
    )
    return status


def _restore(session: Session, request: ProfileChangeRequest) -> dict[str, Any]:
    """Put back the old value of every changed field that still holds the requested value."""
    account = session.get(Account, request.account_id)
    if account is None:
        return {}
    current_form = profile_service.current_form(session, account)
    current, new = rules.flat_values(current_form), _new_values(request)
    back = {
        k: old
        for k, old in (request.previous or {}).items()
        if k not in NOT_RESTORED and k in current and current[k] == new.get(k)
    }
    if not back:
        return {}
    form = current_form.with_values(**{k: tuple(v) if isinstance(v, list) else v for k, v in back.items()})
    profile = session.get(ParticipantProfile, account.id) or ParticipantProfile(account_id=account.id)
    profile_service.write_profile(profile, form)
    profile.updated_at = utcnow()
    session.add(profile)
    session.flush()
    links: dict[str, tuple[type[SQLModel], str]] = {
        "industries": (ProfileIndustry, "industry_id"),
        "roles": (ProfileRole, "role_id"),
        "audiences": (ProfileAudience, "audience_id"),
    }
    for key, (model, column) in links.items():
        if key in back:
            profile_service.replace_links(session, model, column, account.id, tuple(back[key] or ()))
    return back
