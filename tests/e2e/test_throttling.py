"""Brute force: 50 wrong sign-ins are throttled per account and per client address."""

from __future__ import annotations

import httpx
import pytest

from tests.support.factories import make_participant

WRONG = "Incorrect email or password."


@pytest.fixture
def client(app_server):
    with httpx.Client(base_url=app_server.url, timeout=30) as c:
        yield c


def _sign_in(client, email, password, ip):
    return client.post(
        "/api/account/sign-in", json={"email": email, "password": password}, headers={"X-Forwarded-For": ip}
    )


def test_fifty_wrong_passwords_on_one_account(client, db):
    victim = make_participant(db)
    answers = [_sign_in(client, victim.email, f"Wrong-Guess-{i}!", f"198.51.100.{i}") for i in range(50)]
    statuses = [r.status_code for r in answers]
    assert statuses[:10] == [400] * 10 and all(r.json()["errors"][0]["message"] == WRONG for r in answers[:10])
    assert statuses[10:] == [429] * 40
    assert "Too many sign-in attempts. Please wait" in answers[-1].json()["errors"][0]["message"]
    # Even the right password waits now: the attacker cannot learn it by guessing on.
    assert _sign_in(client, victim.email, "Correct-Horse-42!", "192.0.2.200").status_code == 429
    # Other accounts are not affected.
    other = make_participant(db)
    assert _sign_in(client, other.email, "Correct-Horse-42!", "192.0.2.201").status_code == 200


def test_fifty_wrong_sign_ins_from_one_address(client, db):
    accounts = [make_participant(db) for _ in range(6)]
    attacker = "203.0.113.66"
    statuses = [_sign_in(client, accounts[i % 6].email, f"Wrong-{i}!", attacker).status_code for i in range(30)]
    assert set(statuses) == {400}  # 5 per account, 30 for the address: not yet blocked
    statuses = [_sign_in(client, f"sprayed-{i}@example.com", "Wrong-1!", attacker).status_code for i in range(20)]
    assert statuses == [429] * 20
    # The owners, from their own addresses, still get in.
    assert _sign_in(client, accounts[0].email, "Correct-Horse-42!", "192.0.2.10").status_code == 200
    # ...but not from the blocked address.
    assert _sign_in(client, accounts[1].email, "Correct-Horse-42!", attacker).status_code == 429
