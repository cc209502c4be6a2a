"""The one staff check of every staff service: who is calling, and may their role do this."""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session

from portal.domain.staff import roles
from portal.models import Account
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


Caller = int | SessionCaller | None


@dataclass(frozen=True)
class Staff:
    account_id: int
    email: str
    role: str

    def may(self, permission: str) -> bool:
        return roles.may(self.role, permission)


def staff_of(session: Session, actor_id: object) -> Staff | None:
    """The staff member behind an account id or a tab's session (None for participants, removed or unknown
    accounts, and sessions that are not live)."""
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


def require_staff(session: Session, actor_id: object, permission: str = roles.VIEW) -> Staff:
    """The caller as staff with `permission`, or StaffRefused (nothing is read or changed)."""
    staff = staff_of(session, actor_id)
    if staff is None or not staff.may(permission):
        raise StaffRefused(NOT_ALLOWED)
    return staff
