"""Sign-in does as much hashing for an unknown e-mail as for a known one, whatever the password looks like.

The verifications are counted (the CryptContext's verify calls are wrapped), never timed.
"""

from __future__ import annotations

import itertools

import bcrypt
import pytest

from portal.domain.passwords_hashing import DUMMY_HASH, pwd_context
from portal.services.errors import SignInError
from portal.services.sign_in import sign_in_with_password
from tests.support.factories import make_participant, unique_email

PASSWORD = "Correct-Horse-42!"
_ips = (f"198.18.{n // 250}.{n % 250}" for n in itertools.count())

WRONG_PASSWORDS = {
    "plain": "Wrong-Horse-42!",
    "spaces around": "  Wrong-Horse-42!\t",
    "only spaces": "   ",
    "very long": "x" * 4000,
    "very long with spaces": " " + "x" * 4000 + " ",
    "longer than passlib accepts": " " + "y" * 5000 + " ",
}


@pytest.fixture
def verifications(monkeypatch):
    """Every hash verification the CryptContext runs, as the hash it was checked against."""
    checked: list[str] = []

    def counting(name):
        original = getattr(pwd_context, name)

        def wrapper(secret, hash, *args, **kwargs):  # noqa: A002 - passlib's own name
            checked.append(hash)
            return original(secret, hash, *args, **kwargs)

        monkeypatch.setattr(pwd_context, name, wrapper)

    counting("verify")
    counting("verify_and_update")
    return checked


def _failed_sign_in(session, email, password) -> None:
    with pytest.raises(SignInError) as err:
        sign_in_with_password(session=session, email=email, password=password, ip_address=next(_ips))
    session.commit()
    assert err.value.message == "Incorrect email or password."


def _count(session, verifications, email, password) -> int:
    before = len(verifications)
    _failed_sign_in(session, email, password)
    return len(verifications) - before


@pytest.mark.parametrize("password", list(WRONG_PASSWORDS.values()), ids=list(WRONG_PASSWORDS))
def test_unknown_email_runs_as_many_verifications_as_a_wrong_password(session, verifications, password):
    known = make_participant(session, password=PASSWORD).email
    unknown = unique_email("nobody")
    for_known = _count(session, verifications, known, password)
    for_unknown = _count(session, verifications, unknown, password)
    assert for_known == for_unknown >= 1
    # The unknown e-mail was checked against the dummy hash (same scheme and cost as a real one).
    assert verifications[-for_unknown:] == [DUMMY_HASH] * for_unknown
    assert pwd_context.identify(DUMMY_HASH) == pwd_context.default_scheme()


def test_surrounding_spaces_cost_the_same_for_known_and_unknown(session, verifications):
    known = make_participant(session, password=PASSWORD).email
    counts = {
        (who, spaced): _count(session, verifications, email, "  Wrong-Horse-42!  " if spaced else "Wrong-Horse-42!")
        for who, email in (("known", known), ("unknown", unique_email("nobody")))
        for spaced in (False, True)
    }
    assert counts[("known", False)] == counts[("unknown", False)] == 1
    assert counts[("known", True)] == counts[("unknown", True)] == 2  # trimmed, then as typed


def test_removed_and_passwordless_accounts_cost_the_same_as_unknown(session, verifications):
    removed = make_participant(session, password=PASSWORD)
    removed.removed_at = removed.created_at
    passwordless = make_participant(session)
    passwordless.password_hash = None
    session.add_all([removed, passwordless])
    session.commit()
    for password in ("Wrong-Horse-42!", f" {PASSWORD} "):
        counts = {
            _count(session, verifications, email, password)
            for email in (removed.email, passwordless.email, unique_email("nobody"))
        }
        assert len(counts) == 1


def test_empty_password_runs_no_verification_for_anyone(session, verifications):
    known = make_participant(session).email
    for email in (known, unique_email("nobody")):
        with pytest.raises(SignInError) as err:
            sign_in_with_password(session=session, email=email, password="", ip_address=next(_ips))
        assert err.value.errors == {"password": "Password is required"}
    assert verifications == []


def test_real_accounts_still_sign_in_and_older_hashes_are_upgraded(session, verifications):
    # An older bcrypt account whose password kept its surrounding spaces.
    spaced = f" {PASSWORD} "
    legacy = make_participant(session, password_hash=bcrypt.hashpw(spaced.encode(), bcrypt.gensalt(rounds=4)).decode())
    result = sign_in_with_password(session=session, email=legacy.email, password=spaced, ip_address=next(_ips))
    session.commit()
    assert result.account_id == legacy.id
    session.refresh(legacy)
    assert legacy.password_hash.startswith("$argon2")
    # A current account: the typed password is trimmed.
    current = make_participant(session, password=PASSWORD)
    assert (
        sign_in_with_password(
            session=session, email=current.email, password=f"\t{PASSWORD} ", ip_address=next(_ips)
        ).account_id
        == current.id
    )
