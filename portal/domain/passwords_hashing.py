"""Password hashing: argon2 by default, bcrypt (older accounts) accepted and upgraded on sign-in."""

from __future__ import annotations

import secrets

from passlib.context import CryptContext

from portal.domain.password_policy import normalize

pwd_context = CryptContext(schemes=["argon2", "bcrypt"], deprecated="auto")

# Verified against when there is no account (or no password): the default scheme at the default
# cost, so it takes as long as a real account's hash. Its password is random and never kept.
DUMMY_HASH = pwd_context.hash(secrets.token_urlsafe(32))


def hash_password(password: str) -> str:
    return str(pwd_context.hash(password))


def verify_password(password: str, password_hash: str) -> tuple[bool, str | None]:
    """(matches, replacement hash when the stored one should be upgraded)."""
    try:
        matches, replacement = pwd_context.verify_and_update(password, password_hash)
        return bool(matches), replacement
    except (ValueError, TypeError):
        return False, None


def sign_in_candidates(password: str) -> list[str]:
    """What a typed password is tried as: trimmed (the rule), then as typed when it had surrounding
    spaces (a password set before the rule may have kept them). Depends on the typed text only."""
    trimmed = normalize(password)
    return [trimmed] if trimmed == password else [trimmed, password]


def verify_sign_in(password: str, password_hash: str | None) -> tuple[bool, str | None]:
    """Check a typed password against an account's hash, or against DUMMY_HASH when there is none.

    The number of hash verifications depends only on the typed password, never on whether the
    account exists, so a wrong password and an unknown e-mail take the same time. Returns
    (matches, replacement hash when the stored one should be upgraded).
    """
    target = password_hash or DUMMY_HASH
    for candidate in sign_in_candidates(password):
        ok, new_hash = verify_password(candidate, target)
        if ok and password_hash:
            return True, new_hash
    return False, None
