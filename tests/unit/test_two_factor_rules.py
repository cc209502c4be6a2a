"""Two-factor sign-in's pure rules (portal/domain/two_factor.py): which step a code is for, and recovery codes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pyotp

from portal.domain import two_factor as rules

SECRET = "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
NOW = datetime(2026, 12, 2, 7, 0, 10, tzinfo=UTC)


def code_at(moment: datetime) -> str:
    return pyotp.TOTP(SECRET).at(moment)


def test_a_code_of_this_step_or_one_either_side_matches_its_step():
    step = rules.step_of(NOW)
    assert rules.matching_step(SECRET, code_at(NOW), NOW) == step
    assert rules.matching_step(SECRET, code_at(NOW - timedelta(seconds=30)), NOW) == step - 1
    assert rules.matching_step(SECRET, code_at(NOW + timedelta(seconds=30)), NOW) == step + 1
    assert rules.matching_step(SECRET, code_at(NOW - timedelta(seconds=60)), NOW) is None
    assert rules.matching_step(SECRET, " " + code_at(NOW)[:3] + " " + code_at(NOW)[3:], NOW) == step  # as typed


def test_anything_else_matches_nothing():
    for typed in ("", "12345", "1234567", "abcdef", None, 123456, ["123456"], {"$ne": ""}):
        assert rules.matching_step(SECRET, typed, NOW) is None


def test_ten_distinct_recovery_codes_read_off_paper_and_hashed_as_typed():
    codes = rules.new_recovery_codes()
    assert len(codes) == len(set(codes)) == rules.RECOVERY_CODES
    for code in codes:
        assert len(code) == 11 and code[5] == "-"
        assert rules.looks_like_recovery_code(code)
        assert rules.recovery_hash(code) == rules.recovery_hash(code.upper().replace("-", " "))
    assert not rules.looks_like_recovery_code("123456")
    assert not rules.looks_like_recovery_code(None)


def test_the_qr_address_names_the_portal_and_the_account():
    uri = rules.provisioning_uri(SECRET, account_name="dana@example.com", issuer="Participants Portal")
    assert uri.startswith("otpauth://totp/Participants%20Portal:dana%40example.com?secret=" + SECRET)
    assert "issuer=Participants%20Portal" in uri
