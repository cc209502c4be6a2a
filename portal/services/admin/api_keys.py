"""API keys (issue 39): a super-admin creates one with scopes and sees it once, lists keys with their last use,
revokes one; the API resolves the key of each request here."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import or_, update
from sqlmodel import Session, col, select

from portal.domain import api_keys as rules
from portal.domain.staff import roles
from portal.models import Account, ApiKey
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.admin.guard import ApiKeyCaller, Caller, require_staff, staff_of
from portal.services.admin.ids import one_id
from portal.services.errors import ServiceError


class KeyRefused(ServiceError):
    """The form's input is not a key that can be made, or the key cannot be revoked."""


@dataclass(frozen=True)
class CreatedKey:
    id: int
    name: str
    key: str  # shown once, never again


@dataclass(frozen=True)
class KeyInfo:
    """What the API needs to know of the key of a request before it runs the route's service."""

    id: int
    scopes: tuple[str, ...]
    rate_per_minute: int


def _when(value: datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value else ""


def _row(key: ApiKey, creator: str | None) -> dict[str, str]:
    return {
        "id": str(key.id),
        "name": key.name,
        "prefix": f"{key.prefix}…",
        "scopes": ", ".join(key.scopes or []),
        "rate": f"{key.rate_per_minute:,}/min",
        "created": _when(key.created_at),
        "creator": creator or "",
        "last_used": _when(key.last_used_at) or "Never",
        "status": "Revoked" if key.revoked_at else "Active",
        "revoked": _when(key.revoked_at),
    }


def list_keys(session: Session, *, actor_id: Caller) -> list[dict[str, str]]:
    require_staff(session, actor_id, roles.API_KEYS)
    rows = session.execute(
        select(ApiKey, Account.email)
        .join(Account, col(Account.id) == ApiKey.created_by_id, isouter=True)
        .order_by(col(ApiKey.revoked_at).is_not(None), col(ApiKey.id).desc())
    ).all()
    return [_row(key, email) for key, email in rows]


def create_key(
    session: Session, *, actor_id: Caller, name: Any, scopes: Any, rate_per_minute: Any = None
) -> CreatedKey:
    """A new key for the caller (a super-admin at a browser, never another key): its value is in the answer only."""
    staff = require_staff(session, actor_id, roles.API_KEYS)
    if staff.api_key_id is not None:  # a key does not make keys
        raise KeyRefused("API keys are created by a person at /admin/api-keys.")
    clean_name, problem = rules.clean_name(name)
    chosen, scope_problem = rules.clean_scopes(scopes)
    rate, rate_problem = rules.clean_rate(rate_per_minute)
    # Each message under its field (the form shows it there, the API names the field).
    fields = {"name": problem, "scopes": scope_problem, "rate_per_minute": rate_problem}
    errors = {field: message for field, message in fields.items() if message}
    if errors:
        field, message = next(iter(errors.items()))
        raise KeyRefused(message, field=field, errors=errors)
    value = rules.new_key()
    key = ApiKey(
        name=clean_name,
        prefix=rules.shown_prefix(value),
        key_hash=rules.key_hash(value),
        scopes=chosen,
        rate_per_minute=rate,
        created_by_id=staff.account_id,
    )
    session.add(key)
    session.flush()
    audit.record(
        session, staff, "api-key.create", "api-key", key.id, after={"name": clean_name, "scopes": ", ".join(chosen)}
    )
    return CreatedKey(id=key.id, name=clean_name, key=value)


def revoke_key(session: Session, *, actor_id: Caller, key_id: Any, now: datetime | None = None) -> str:
    """Revoke once (a second revoke, or one racing it, changes nothing and says so)."""
    staff = require_staff(session, actor_id, roles.API_KEYS)
    target = one_id(key_id, rules.KEY_NOT_FOUND)
    moved = session.execute(
        update(ApiKey)
        .where(col(ApiKey.id) == target, col(ApiKey.revoked_at).is_(None))
        .values(revoked_at=now or utcnow(), revoked_by_id=staff.account_id)
    ).rowcount  # type: ignore[attr-defined]
    if moved != 1:
        raise KeyRefused(rules.ALREADY_REVOKED if session.get(ApiKey, target) else rules.KEY_NOT_FOUND)
    audit.record(session, staff, "api-key.revoke", "api-key", target)
    return "Key revoked. Requests made with it are refused from now on."


def authenticate(session: Session, *, key: Any, now: datetime | None = None) -> KeyInfo | None:
    """The live key of a request (None: missing, unknown or revoked, or its creator no longer holds keys: removed
    or demoted), its last use noted at most once a minute."""
    staff = staff_of(session, ApiKeyCaller(key if isinstance(key, str) else None))
    found = session.get(ApiKey, staff.api_key_id) if staff is not None and staff.api_key_id is not None else None
    if found is None:
        return None
    now = now or utcnow()
    stale = now - timedelta(seconds=rules.LAST_USE_EVERY_SECONDS)
    if found.last_used_at is None or found.last_used_at.replace(tzinfo=now.tzinfo) < stale:
        session.execute(
            update(ApiKey)
            .where(
                col(ApiKey.id) == found.id,
                or_(col(ApiKey.last_used_at).is_(None), col(ApiKey.last_used_at) < stale),
            )
            .values(last_used_at=now)
        )
    return KeyInfo(id=found.id, scopes=tuple(found.scopes or ()), rate_per_minute=found.rate_per_minute)
