"""The one staff check of every staff service: who is calling, and may their role do this."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from portal.domain import api_keys as key_rules
from portal.domain.staff import roles
from portal.models import Account, ApiKey
from portal.services.errors import ServiceError
from portal.services.sessions import live_account_id
from portal.services.two_factor import enabled_for as two_factor_enabled

NOT_ALLOWED = "You do not have permission to do this."


class StaffRefused(ServiceError):
    """The caller is not staff, or their role lacks the permission."""


@dataclass(frozen=True)
class SessionCaller:
    """The caller of a staff event as the tab's session cookie names them. The staff service resolves it in
    its own transaction (`require_staff`), so who calls and what they do are read and written together."""

    token: str | None

    def __repr__(self) -> str:  # never the credential in a log line
        return "SessionCaller(…)"


@dataclass(frozen=True)
class ApiKeyCaller:
    """The caller of a REST API route, as its API key names them (issue 39): the key's creator, within the key's
    scopes. Resolved again in the service's own transaction, so a key revoked a moment ago acts no more."""

    key: str | None

    def __repr__(self) -> str:  # never the credential in a log line
        return "ApiKeyCaller(…)"


Caller = int | SessionCaller | ApiKeyCaller | None


@dataclass(frozen=True)
class Staff:
    account_id: int
    email: str
    role: str
    # A caller with an API key: the key's scopes bound the role's permissions, and its writes are audited under it.
    scopes: tuple[str, ...] | None = None
    api_key_id: int | None = None

    def may(self, permission: str) -> bool:
        if self.scopes is not None and not key_rules.permits(self.scopes, permission):
            return False
        return roles.may(self.role, permission)


def staff_of(session: Session, actor_id: object) -> Staff | None:
    """The staff member behind an account id or a tab's session (None for participants, removed or unknown
    accounts, and sessions that are not live)."""
    if isinstance(actor_id, ApiKeyCaller):
        return _staff_of_key(session, actor_id.key)
    from_a_tab = isinstance(actor_id, SessionCaller)
    if isinstance(actor_id, SessionCaller):
        actor_id = live_account_id(session=session, token=actor_id.token)
    if isinstance(actor_id, bool) or not isinstance(actor_id, int):
        return None
    account = session.get(Account, actor_id)
    if account is None or account.removed_at is not None or not roles.is_staff(account.staff_role):
        return None
    # A person at a browser acts as staff only with two-factor sign-in on (issue 40); jobs and the command line
    # name an account id.
    if from_a_tab and not two_factor_enabled(session, account_id=account.id):
        return None
    return Staff(account_id=account.id, email=account.email or "", role=account.staff_role)


def live_key(session: Session, key: object) -> ApiKey | None:
    """The unrevoked API key with this value (None for anything else)."""
    if not key_rules.looks_like_key(key):
        return None
    assert isinstance(key, str)
    found = session.exec(select(ApiKey).where(ApiKey.key_hash == key_rules.key_hash(key))).first()
    return found if found is not None and found.revoked_at is None else None


def _staff_of_key(session: Session, key: str | None) -> Staff | None:
    found = live_key(session, key)
    if found is None:
        return None
    account = session.get(Account, found.created_by_id)
    # A key works while its creator is staff who may hold keys (a removed or demoted creator's keys stop).
    if account is None or account.removed_at is not None or not roles.may(account.staff_role, roles.API_KEYS):
        return None
    return Staff(
        account_id=account.id,
        email=account.email or "",
        role=account.staff_role or "",
        scopes=tuple(found.scopes or ()),
        api_key_id=found.id,
    )


def require_staff(session: Session, actor_id: object, permission: str = roles.VIEW) -> Staff:
    """The caller as staff with `permission`, or StaffRefused (nothing is read or changed)."""
    staff = staff_of(session, actor_id)
    if staff is None or not staff.may(permission):
        raise StaffRefused(NOT_ALLOWED)
    return staff
