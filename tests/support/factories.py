"""Test data made through the models, each test making its own (unique e-mails)."""

from __future__ import annotations

import uuid
from datetime import timedelta
from functools import lru_cache

from sqlmodel import Session

from portal.domain.passwords_hashing import hash_password
from portal.models import Account, ParticipantProfile
from portal.models._base import utcnow


@lru_cache(maxsize=64)
def password_hash_of(password: str) -> str:
    """One real argon2 hash per test password and process: each account made with it verifies the
    same way as a fresh hash would (its salt is shared between test accounts, which only tests do),
    and the suite does not spend a tenth of a second of CPU on every account it makes."""
    return hash_password(password)


def unique_email(prefix: str = "user") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.com"


def make_participant(
    session: Session,
    *,
    email: str | None = None,
    password: str = "Correct-Horse-42!",
    first_name: str = "Avery",
    last_name: str = "Tester",
    registration_complete: bool = True,
    email_verified: bool = True,
    work_email_verified: bool = True,
    verified: bool = True,
    password_hash: str | None = None,
) -> Account:
    now = utcnow()
    email = email or unique_email()
    account = Account(
        email=email,
        password_hash=password_hash or password_hash_of(password),
        is_registration_complete=registration_complete,
        email_verified_at=now - timedelta(days=1) if email_verified else None,
        work_email=("work-" + email) if registration_complete else None,
        work_email_verified_at=now - timedelta(days=1) if work_email_verified and registration_complete else None,
        stage="completed" if registration_complete else "new",
        verified=verified,
    )
    session.add(account)
    session.flush()
    session.add(ParticipantProfile(account_id=account.id, first_name=first_name, last_name=last_name))
    session.commit()
    session.refresh(account)
    return account
