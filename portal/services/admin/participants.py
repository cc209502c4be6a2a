"""Staff: the participants table, bulk verification, deactivation, and staff roles."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sqlalchemy import String, cast, exists, false, literal_column, or_, outerjoin, select, union_all, update
from sqlalchemy.orm import aliased
from sqlmodel import Session

from portal.domain import table as rules
from portal.domain.geography import countries, country_name
from portal.domain.reference_data import AUDIENCES, INDUSTRIES, SENIORITY_KEYS, SENIORITY_OPTIONS
from portal.domain.staff import roles
from portal.models import (
    Account,
    Audience,
    AuthSession,
    Industry,
    ParticipantProfile,
    ProfileAudience,
    ProfileChangeRequest,
    ProfileIndustry,
)
from portal.models._base import utcnow
from portal.services import notification_events, transitions
from portal.services.admin import audit
from portal.services.admin.guard import Caller, StaffRefused, require_staff
from portal.services.admin.ids import nothing_selected, one_id, parse_ids, too_many
from portal.services.errors import ServiceError
from portal.services.tables import Dates, Options, Own, TablePage, TableQuery, TableSpec, contains

MAX_BULK = 1000
NOTHING_SELECTED = nothing_selected("participant")
TOO_MANY = too_many(MAX_BULK, "participants")
NOT_FOUND = "This account does not exist."
OWN_ROLE = "You cannot change your own role or deactivate yourself."
STAFF_ACCOUNT = "Only an admin can deactivate or reactivate a staff account."
DELETED = "This account was deleted at the person's request: it cannot be reactivated."


SENIORITY_LABELS = {o.value: o.label.split(" (")[0] for o in SENIORITY_OPTIONS}


def _has_trigram(text: str) -> bool:
    """The search's form: whether a word has 3 characters or more (a trigram to look up, see _search)."""
    return any(len(word) >= 3 for word in re.split(r"\W+", text))


def _search(trigram: bool) -> Any:
    """E-mail, work e-mail, 'first last' or last name containing the search (the bound `pattern`).

    With a word of 3 characters or more, the ids matching in each table are read through its trigram indexes
    (migration 0007, PostgreSQL) and then joined: an OR across the outer join read every account and profile
    (bench/admin_tables.py). A shorter search has no trigram to look up: the OR, in one reading, is cheaper.
    """
    if not trigram:
        full_name = ParticipantProfile.first_name + " " + ParticipantProfile.last_name
        return or_(
            contains(Account.email),
            contains(Account.work_email),
            contains(full_name),
            contains(ParticipantProfile.last_name),
        )
    account, profile = aliased(Account), aliased(ParticipantProfile)
    full_name = (
        profile.first_name + literal_column("' '") + profile.last_name
    )  # as ix_participant_profile_full_name_trgm
    return Account.id.in_(
        union_all(
            select(account.id).where(or_(contains(account.email), contains(account.work_email))),
            select(profile.account_id).where(or_(contains(full_name), contains(profile.last_name))),
        )
    )


def _verified(chosen: tuple[str, ...]) -> Any:
    wanted = {v == "yes" for v in chosen}
    if len(wanted) != 1:
        return None
    return Account.verified.is_(True) if wanted.pop() else Account.verified.is_(False)


def _seniority(chosen: tuple[str, ...]) -> Any:
    levels = cast(ParticipantProfile.experience_levels, String)
    return or_(*(levels.like(f'%"{level}"%') for level in chosen))


def _industry(chosen: tuple[str, ...]) -> Any:
    return exists().where(
        ProfileIndustry.account_id == Account.id, ProfileIndustry.industry_id == Industry.id, Industry.name.in_(chosen)
    )


def _audience(chosen: tuple[str, ...]) -> Any:
    return exists().where(
        ProfileAudience.account_id == Account.id, ProfileAudience.audience_id == Audience.id, Audience.name.in_(chosen)
    )


def _change_request(_chosen: tuple[str, ...]) -> Any:
    return exists().where(ProfileChangeRequest.account_id == Account.id, ProfileChangeRequest.status == "pending")


def _active(chosen: tuple[str, ...]) -> Any:
    wanted = set(chosen)
    if len(wanted) != 1:
        return None
    return Account.removed_at.is_(None) if "active" in wanted else Account.removed_at.is_not(None)


def _role(chosen: tuple[str, ...]) -> Any:
    staff = [v for v in chosen if v != "participant"]
    return or_(
        Account.staff_role.in_(staff) if staff else false(),
        Account.staff_role.is_(None) if "participant" in chosen else false(),
    )


# Over Account outer-joined to its profile. Shared by the table and the invite audience (services/admin/invites.py).
TABLE = TableSpec(
    key=Account.id,
    sortable={
        "createdOn": Account.created_at,
        "email": Account.email,
        "name": ParticipantProfile.last_name,
        "country": ParticipantProfile.country,
    },
    filters=(
        Own("verified", ("yes", "no"), _verified),
        Options("country", ParticipantProfile.country, tuple(code for code, _ in countries())),
        Own("seniority", SENIORITY_KEYS, _seniority),
        Own("industry", INDUSTRIES, _industry),
        Own("audience", tuple(a.name for a in AUDIENCES), _audience),
        Own("changeRequest", ("pending",), _change_request),
        Own("status", ("active", "deactivated"), _active),
        Own("role", ("participant", *roles.ROLES), _role),
        Dates("createdOn", Account.created_at),
    ),
    search=_search,
    search_form=_has_trigram,
    source=outerjoin(Account, ParticipantProfile, ParticipantProfile.account_id == Account.id),
    page_sizes=(100, 200),
)
clean_query = TABLE.clean


def list_participants(session: Session, *, actor_id: Caller, query: TableQuery) -> TablePage:
    staff = require_staff(session, actor_id, roles.VIEW)
    values, chosen = TABLE.values(query), TABLE.select(query)
    total = session.execute(chosen.total(), values).scalar_one()
    column = TABLE.sortable[query.sort_by]
    if column.class_ is ParticipantProfile:
        page_ids = _page_by_profile_column(session, chosen.matching(), column, chosen.shape.ascending, query, values)
    else:
        page_ids = [r[0] for r in session.execute(chosen.page(), values)]
    if not page_ids:
        return TablePage(rows=[], total=int(total))
    pending = set(
        session.execute(
            select(ProfileChangeRequest.account_id).where(
                ProfileChangeRequest.account_id.in_(page_ids), ProfileChangeRequest.status == "pending"
            )
        ).scalars()
    )
    found = session.execute(
        select(Account, ParticipantProfile)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(Account.id.in_(page_ids))
    ).all()
    by_id = {account.id: (account, profile) for account, profile in found}
    return TablePage(rows=[_row(*by_id[i], i in pending, staff) for i in page_ids], total=int(total))


def _page_by_profile_column(
    session: Session, base: Any, column: Any, ascending: bool, query: TableQuery, values: dict[str, Any]
) -> list[int]:
    """The page's ids sorted by a profile column (name, country): the same rows in the same order as sorting the
    outer join by (column, id), which PostgreSQL can only do by joining and sorting every account.

    The rows fall into three parts, each read in page order through an index: with a value (`IS NOT NULL` makes
    the outer join inner: the profile's (column, account_id) index), without a profile (an anti-join along the
    two primary keys), with a profile but no value (the same index). The first offset + page size rows of each
    part hold the page, which is taken from them sorted again (wherever the database sorts NULLs).
    """
    step: Callable[[Any], Any] = (lambda c: c.asc()) if ascending else (lambda c: c.desc())
    enough = query.offset + query.page_size
    keyed = base.add_columns(column.label("sort_key"))
    profile_id = ParticipantProfile.account_id
    parts = [
        keyed.where(column.is_not(None)).order_by(step(column), step(Account.id)),
        keyed.where(profile_id.is_(None)).order_by(step(Account.id)),
        keyed.where(profile_id.is_not(None), column.is_(None)).order_by(step(Account.id)),
    ]
    both = union_all(
        *(select(part.c.id, part.c.sort_key) for part in (p.limit(enough).subquery() for p in parts))
    ).subquery()
    page = (
        select(both.c.id).order_by(step(both.c.sort_key), step(both.c.id)).limit(query.page_size).offset(query.offset)
    )
    return [r[0] for r in session.execute(page, values)]


def _row(account: Account, profile: ParticipantProfile | None, pending: bool, staff: Any) -> dict[str, str]:
    """One row; the action fields are non-empty where the caller's role may use the action on this row."""
    others = account.id != staff.account_id
    active = account.removed_at is None
    name = " ".join(p for p in ((profile.first_name if profile else ""), (profile.last_name if profile else "")) if p)
    levels = (profile.experience_levels if profile else None) or []
    return {
        "id": str(account.id),
        "name": name or "—",
        "email": account.email or "",
        "work_email": account.work_email or "",
        "country": (country_name(profile.country) or profile.country) if profile and profile.country else "",
        "seniority": ", ".join(SENIORITY_LABELS.get(level, level) for level in levels),
        "verified": "Verified" if account.verified else "Not verified",
        "joined": rules.format_date(account.created_at),
        "change_request": "Pending" if pending else "",
        "status": "Deleted" if account.deleted_at is not None else "Deactivated" if not active else "Active",
        "role": roles.role_label(account.staff_role) or "Participant",
        "profile_url": f"/admin/participants/{account.id}",
        "role_key": account.staff_role or "participant",
        "can_deactivate": "yes" if others and active and _may_deactivate(staff, account) else "",
        "can_reactivate": "yes"
        if others and not active and account.deleted_at is None and _may_deactivate(staff, account)
        else "",
        "can_change_role": "yes" if others and active and staff.may(roles.MANAGE_STAFF) else "",
    }


def _may_deactivate(staff: Any, account: Account) -> bool:
    """Participants: who may deactivate; staff accounts: only who may manage staff."""
    return staff.may(roles.DEACTIVATE) and (account.staff_role is None or staff.may(roles.MANAGE_STAFF))


def set_verified(session: Session, *, actor_id: Caller, account_ids: Any, verified: Any) -> int:
    """Verify (or unverify) the chosen participants; returns how many changed. One audit row each."""
    staff = require_staff(session, actor_id, roles.VERIFY)
    if not isinstance(verified, bool):
        raise ServiceError("Choose verify or unverify.")
    ids = parse_ids(account_ids, MAX_BULK, noun="participant")
    # The write names the state it expects: of two staff verifying at once, each account moves (and is audited) once.
    changing = transitions.move(
        session,
        Account,
        Account.id.in_(ids),
        Account.verified.is_(not verified),
        Account.staff_role.is_(None),
        values={"verified": verified, "updated_at": utcnow()},
    )
    action = "participant.verify" if verified else "participant.unverify"
    for account_id in changing:
        audit.record(session, staff, action, "account", account_id, {"verified": not verified}, {"verified": verified})
    if verified:
        notification_events.account_verified(session, changing)
    return len(changing)


def set_active(session: Session, *, actor_id: Caller, account_id: Any, active: Any) -> bool:
    """Deactivate (sign out everywhere, no new sign-in; history kept) or reactivate an account."""
    staff = require_staff(session, actor_id, roles.DEACTIVATE)
    if not isinstance(active, bool):
        raise ServiceError("Choose deactivate or reactivate.")
    target_id = one_id(account_id, NOT_FOUND)
    if target_id == staff.account_id:
        raise ServiceError(OWN_ROLE)
    account = session.get(Account, target_id, with_for_update=True)
    if account is None:
        raise ServiceError(NOT_FOUND)
    if account.staff_role is not None and not staff.may(roles.MANAGE_STAFF):
        raise StaffRefused(STAFF_ACCOUNT)
    if account.deleted_at is not None:
        raise ServiceError(DELETED)
    if (account.removed_at is None) == active:
        return False
    now = utcnow()
    before = {"removed_at": account.removed_at}
    account.removed_at = None if active else now
    account.updated_at = now
    session.add(account)
    if not active:
        session.execute(
            update(AuthSession)
            .where(AuthSession.account_id == account.id, AuthSession.revoked_at.is_(None))
            .values(revoked_at=now)
        )
    audit.record(
        session,
        staff,
        "participant.reactivate" if active else "participant.deactivate",
        "account",
        account.id,
        before,
        {"removed_at": account.removed_at},
    )
    return True


def set_staff_role(session: Session, *, actor_id: Caller, account_id: Any, role: Any) -> bool:
    """Make an account staff with `role`, change its role, or ('participant') take it away. Super-admin only."""
    staff = require_staff(session, actor_id, roles.MANAGE_STAFF)
    if role != "participant" and not roles.is_staff(role):
        raise ServiceError("Choose a role.")
    target_id = one_id(account_id, NOT_FOUND)
    if target_id == staff.account_id:
        raise ServiceError(OWN_ROLE)
    account = session.get(Account, target_id, with_for_update=True)
    if account is None or account.removed_at is not None:
        raise ServiceError(NOT_FOUND)
    new_role = None if role == "participant" else role
    if account.staff_role == new_role:
        return False
    before = {"staff_role": account.staff_role}
    account.staff_role = new_role
    account.updated_at = utcnow()
    session.add(account)
    audit.record(session, staff, "staff.role", "account", account.id, before, {"staff_role": new_role})
    return True
