"""Password hashing: argon2 by default, bcrypt (older accounts) accepted and upgraded on sign-in."""

from __future__ import annotations

from passlib.context import CryptContext

pwd_context = CryptContext(schemes=["argon2", "bcrypt"], deprecated="auto")

# Verified against when the e-mail is unknown, so both answers take the same time.
DUMMY_HASH = pwd_context.hash("not-a-real-password-used-for-timing-only")


def hash_password(password: str) -> str:
    return pwd_context.hash(password)


def verify_password(password: str, password_hash: str) -> tuple[bool, str | None]:
    """(matches, replacement hash when the stored one should be upgraded)."""
    try:
        return pwd_context.verify_and_update(password, password_hash)
    except (ValueError, TypeError):
        return False, None
