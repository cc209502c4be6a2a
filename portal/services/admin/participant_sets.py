"""A set of participants chosen on a staff page: the participants table's search and filters, or rows picked by
hand. The invite page (services/admin/invites.py) and the group message (services/admin/messages.py) choose with
the same criteria, so both reach exactly the people the table shows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, select

from portal.domain.ids import whole_number
from portal.models import Account, ParticipantProfile
from portal.services.admin.participants import TABLE as PARTICIPANTS
from portal.services.errors import ServiceError

MAX_PICKED = 1000
TOO_MANY_PICKED = f"Select at most {MAX_PICKED:,} participants at a time."


def picked(raw: Any) -> list[int]:
    """The account ids picked by hand in the criteria (none: the search and filters choose)."""
    ids = raw.get("ids") if isinstance(raw, dict) else None
    if not isinstance(ids, (list, tuple)) or not ids:
        return []
    if len(ids) > MAX_PICKED:
        raise ServiceError(TOO_MANY_PICKED)
    out: list[int] = []
    for item in ids:
        number = whole_number(item)
        if number and number not in out:
            out.append(number)
    return out


def criteria(raw: Any) -> dict[str, Any]:
    """The criteria as a batch keeps them: the cleaned search and filters, and the picked ids if any."""
    raw = raw if isinstance(raw, dict) else {}
    query = PARTICIPANTS.clean(search=raw.get("search", ""), filters=raw.get("filters", []))
    out: dict[str, Any] = {
        "search": query.search,
        "filters": [{"name": f.name, "type": f.type, "values": list(f.values)} for f in query.filters],
    }
    chosen = picked(raw)
    if chosen:
        out["ids"] = chosen
    return out


def matching(chosen: dict[str, Any], values: dict[str, Any]) -> list[Any]:
    """The WHERE of the participants chosen: active participants with a finished sign-up, picked or matching the
    search and filters (over Account outer-joined to ParticipantProfile)."""
    people = [Account.removed_at.is_(None), Account.staff_role.is_(None), Account.is_registration_complete.is_(True)]
    if chosen.get("ids"):
        return [*people, Account.id.in_(chosen["ids"])]
    query = PARTICIPANTS.clean(search=chosen.get("search", ""), filters=chosen.get("filters", []))
    values.update(PARTICIPANTS.values(query))
    return [*people, *PARTICIPANTS.select(query).where]


def people(*columns: Any) -> Select[Any]:
    """SELECT `columns` over Account outer-joined to ParticipantProfile (for `matching`'s WHERE)."""
    return (
        select(*columns).select_from(Account).outerjoin(ParticipantProfile, ParticipantProfile.account_id == Account.id)
    )
