"""Participants for the REST API (issue 39): a keyset list searched as the staff table searches (e-mail, work e-mail,
name) and filtered by verification; one participant's profile as staff read it (admin/profiles.py); verify and
unverify through the staff service (admin/participants.py `set_verified`). Participants are the accounts without a
staff role; a staff account is not one (NotFound). Never a password hash, a token or any other secret."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlmodel import Session

from portal.api.errors import NotFound
from portal.domain import table as table_rules
from portal.domain.geography import country_name
from portal.domain.ids import MAX_VALUE
from portal.domain.staff import roles
from portal.models import Account, ParticipantProfile
from portal.services.admin import participants as staff_participants
from portal.services.admin import profiles as staff_profiles
from portal.services.admin.guard import Caller, require_staff
from portal.services.api import keyset
from portal.services.tables import like_pattern

NO_PARTICIPANT = "This participant does not exist."
SEARCH_MAX = table_rules.MAX_SEARCH_LENGTH


def _status(account: Account) -> str:
    return (
        "deleted" if account.deleted_at is not None else "deactivated" if account.removed_at is not None else "active"
    )


def _item(account: Account, profile: ParticipantProfile | None) -> dict[str, Any]:
    first, last = (profile.first_name, profile.last_name) if profile else ("", "")
    code = profile.country if profile else None
    return {
        "id": account.id,
        "name": " ".join(p for p in (first, last) if p),
        "email": account.email or None,
        "work_email": account.work_email or None,
        "country": code or None,
        "country_name": (country_name(code) or code) if code else None,
        "verified": account.verified,
        "status": _status(account),
        "created_at": account.created_at,
    }


def _rows(session: Session, ids: list[int]) -> list[dict[str, Any]]:
    if not ids:
        return []
    found = session.execute(
        select(Account, ParticipantProfile)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(Account.id.in_(ids))
        .execution_options(populate_existing=True)
    ).all()
    by_id = {account.id: (account, profile) for account, profile in found}
    return [_item(*by_id[i]) for i in ids if i in by_id]


def list_participants(
    session: Session,
    *,
    actor_id: Caller,
    search: str | None = None,
    verified: bool | None = None,
    after: int | None = None,
    limit: int = 50,
) -> keyset.Listed[dict[str, Any]]:
    """Participants newest first (by id): those whose e-mail, work e-mail or name contains `search`, verified or
    not when asked."""
    require_staff(session, actor_id, roles.VIEW)
    statement = (
        select(Account.id)
        .select_from(Account)
        .outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
        .where(Account.staff_role.is_(None))
    )
    # As the staff table cleans it; characters no one types (a NUL, which PostgreSQL refuses) are left out.
    text = table_rules.clean_search("".join(c for c in search or "" if c.isprintable() or c.isspace()))
    if text:
        condition = staff_participants._search(staff_participants._has_trigram(text))
        statement = statement.where(condition).params(pattern=like_pattern(text))
    if verified is not None:
        statement = statement.where(Account.verified.is_(verified))
    after = None if after is None else min(after, MAX_VALUE)
    ids = [row[0] for row in keyset.page(session, statement, Account.id, after=after, limit=limit)]
    chosen = keyset.listed(ids, ids, limit)
    return keyset.Listed(rows=_rows(session, chosen.rows), next_after=chosen.next_after)


def _participant(session: Session, participant_id: int) -> Account:
    account = session.get(Account, participant_id)
    if account is None or account.staff_role is not None:
        raise NotFound(NO_PARTICIPANT)
    return account


def read_participant(session: Session, *, actor_id: Caller, participant_id: int) -> dict[str, Any]:
    """One participant: the list's fields, and the profile the staff page shows (its form's values, the values
    before the last change, and the page's notes)."""
    require_staff(session, actor_id, roles.VIEW)
    _participant(session, participant_id)
    shown = staff_profiles.participant_profile(session, actor_id=actor_id, participant_id=participant_id)
    view = shown.profile
    return {
        **_rows(session, [participant_id])[0],
        "email_verified": view.email_verified,
        "work_email_verified": view.work_email_verified,
        "profile": view.values,
        "previous_values": view.old_data,
        "industries": sorted(view.industry_names.values()),
        "roles": sorted(view.role_names.values()),
        "audiences": sorted(view.audience_names.values()),
        "linkedin_title": view.linkedin_title or None,
        "notes": shown.notes,
    }


def set_verified(session: Session, *, actor_id: Caller, participant_id: int, verified: bool) -> dict[str, Any]:
    """Verify or unverify one participant (staff_participants.set_verified: one audit row when it changes):
    `{"id", "verified", "changed"}` (changed is false when they were so already)."""
    require_staff(session, actor_id, roles.VERIFY)
    _participant(session, participant_id)
    changed = staff_participants.set_verified(
        session, actor_id=actor_id, account_ids=[participant_id], verified=verified
    )
    return {**_rows(session, [participant_id])[0], "changed": bool(changed)}
