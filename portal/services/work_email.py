"""The e-mail checks of the onboarding and the profile that need the database.

`check_work_email` is the spec's validate-work-email call: the domain rule
(`portal.domain.work_email`: required, syntax, free-mail and disposable domains) plus "not used
by another account, as personal or as work e-mail". `email_taken` is the validate-email call:
is a personal e-mail used by another account. Addresses are compared lowercased; the account
asking is always excluded, so a user may keep (or reuse as work e-mail) an address of their own.
Removed accounts still hold their addresses (the unique indexes keep them), so they count.
"""

from __future__ import annotations

from sqlalchemy import or_
from sqlmodel import Session, select

from portal.domain.accounts import normalize_email
from portal.domain.work_email import WorkEmailCheck, check_syntax_and_domain, shown_message, taken
from portal.models import Account


def email_taken(session: Session, *, account_id: int | None, email: str) -> bool:
    """True when another account (not `account_id`) has `email` as personal or work e-mail."""
    address = normalize_email(email if isinstance(email, str) else "")
    if not address:
        return False
    statement = select(Account.id).where(or_(Account.email == address, Account.work_email == address))
    if account_id is not None:
        statement = statement.where(Account.id != account_id)
    return session.exec(statement.limit(1)).first() is not None


def check_work_email(session: Session, *, account_id: int | None, value: str) -> WorkEmailCheck:
    """Is `value` a work e-mail the account may use? valid / error (a reason code) / message (the text)."""
    check = check_syntax_and_domain(value)
    if not check.valid:
        return check
    if email_taken(session=session, account_id=account_id, email=check.value):
        return taken(check.value)
    return check


def work_email_problem(session: Session, *, work_email: str, exclude_account_id: int | None) -> str:
    """The text to show for an unusable work e-mail, '' when it is fine (for the profile service)."""
    return shown_message(check_work_email(session=session, account_id=exclude_account_id, value=work_email))
