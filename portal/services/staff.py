"""Create staff accounts (or give an existing account a staff role) from the command line."""

from __future__ import annotations

from sqlmodel import Session, select

from portal.domain.accounts import STAFF_ROLES, normalize_email
from portal.domain.password_policy import PASSWORD_INVALID, meets_requirements
from portal.domain.password_policy import normalize as normalize_password
from portal.domain.passwords_hashing import hash_password
from portal.models import Account
from portal.models._base import utcnow
from portal.services.admin import audit
from portal.services.errors import ServiceError


def create_staff(session: Session, *, email: str, role: str, password: str | None) -> tuple[Account, bool]:
    """(account, created). An existing account keeps its data and gets the role (and the password, if given)."""
    address = normalize_email(email)
    if "@" not in address:
        raise ServiceError("Please enter a valid e-mail address", field="email")
    if role not in STAFF_ROLES:
        raise ServiceError(f"Unknown staff role {role!r}; use one of {', '.join(STAFF_ROLES)}", field="role")
    if password is not None and not meets_requirements(password):
        raise ServiceError(PASSWORD_INVALID, field="password")
    now = utcnow()
    account = session.exec(select(Account).where(Account.email == address)).first()
    created = account is None
    if account is None:
        if password is None:
            raise ServiceError("A new staff account needs a password", field="password")
        account = Account(email=address, email_verified_at=now, is_registration_complete=True, stage="completed")
    before = {"staff_role": account.staff_role, "password_changed_at": account.password_changed_at}
    account.staff_role = role
    if password is not None:
        account.password_hash = hash_password(normalize_password(password))
        account.password_changed_at = now
    account.updated_at = now
    session.add(account)
    session.flush()
    # Written like every staff change, in the same transaction; the actor is the command line (the system).
    audit.record(
        session,
        audit.SYSTEM,
        "staff.create",
        "account",
        account.id,
        {} if created else before,
        {
            "email": account.email,
            "staff_role": role,
            "created": created,
            "password_changed_at": account.password_changed_at
            if password is not None
            else before["password_changed_at"],
        },
    )
    return account, created
