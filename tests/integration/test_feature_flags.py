"""Feature flags per user: the flags table, and GrowthBook through its official SDK when configured.

GrowthBook is a stand-in API on loopback (tests/support/growthbook_api.py) serving real SDK payloads, plain
and encrypted; the portal fetches them with the SDK and evaluates them with the SDK. SQLite and PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from portal.models import FeatureFlag, FeatureFlagUser, ParticipantProfile
from portal.services import growthbook_features
from portal.services.admin import flags as admin_flags
from portal.services.flags import enabled_flags, growthbook_values, user_attributes
from portal.services.seeding import seed_reference
from portal.settings import settings
from tests.integration.test_admin_services import person
from tests.support.factories import make_participant, unique_email
from tests.support.growthbook_api import (
    CLIENT_KEY,
    GrowthBookApi,
    encrypted_payload,
    new_decryption_key,
    plain_payload,
)

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("referral-program", "pricing-test")
ON_FOR_EVERYONE = {"defaultValue": True}
OFF_FOR_EVERYONE = {"defaultValue": False}
FETCH_FAILED = "GrowthBook features could not be fetched"


@pytest.fixture
def seeded(session):
    seed_reference(session)  # the table: referral-program on, the others off
    session.commit()
    return session


@pytest.fixture
def gb_api():
    api = GrowthBookApi().start()
    yield api
    api.stop()


@pytest.fixture
def configure(monkeypatch, gb_api):
    """Point the portal at the stand-in (a fresh per-process store): configure(decryption_key=..., refresh=...)."""

    def apply(
        *, decryption_key: str = "", refresh: float = 3600, api_host: str | None = None, timeout: float = 2
    ) -> None:
        growthbook_features.reset()
        monkeypatch.setattr(
            growthbook_features,
            "settings",
            dataclasses.replace(
                settings,
                growthbook_client_key=CLIENT_KEY,
                growthbook_api_host=api_host or gb_api.url,
                growthbook_decryption_key=decryption_key,
                growthbook_cache_seconds=refresh,
                growthbook_timeout_seconds=timeout,
            ),
        )

    yield apply
    growthbook_features.reset()


def participant(
    session,
    *,
    country: str | None = None,
    levels: list[str] | None = None,
    domain: str = "example.com",
    verified: bool = True,
):
    account = make_participant(
        session,
        password_hash="!",
        email=unique_email().replace("example.com", domain),
        verified=verified,
        work_email_verified=verified,
    )
    profile = session.get(ParticipantProfile, account.id)
    profile.country, profile.experience_levels = country, levels or []
    session.add(profile)
    session.commit()
    return account


def flag(session, account, key: str) -> bool:
    return enabled_flags(session=session, account_id=account.id, keys=(key,))[key]


# --- the table alone ------------------------------------------------------------------------------------


def test_table_flags_and_per_user_override(seeded):
    session = seeded
    account = person(session)
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False) == {
        "referral-program": True,
        "pricing-test": False,
    }
    session.add(FeatureFlagUser(flag_key="pricing-test", account_id=account.id, enabled=True))
    session.commit()
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False)["pricing-test"] is True
    # Signed out: everything off.
    assert enabled_flags(session=session, account_id=None, keys=KEYS, growthbook=False) == dict.fromkeys(KEYS, False)


def test_percentage_rollout(seeded):
    session = seeded
    row = session.get(FeatureFlag, "pricing-test")
    row.enabled, row.percentage = True, 0
    session.add(row)
    session.commit()
    account = person(session)
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False)["pricing-test"] is False


def test_without_a_client_key_the_table_decides_and_growthbook_is_never_asked(seeded, gb_api, monkeypatch):
    growthbook_features.reset()
    monkeypatch.setattr(
        growthbook_features,
        "settings",
        dataclasses.replace(settings, growthbook_client_key="", growthbook_api_host=gb_api.url),
    )
    gb_api.serve(plain_payload({"referral-program": OFF_FOR_EVERYONE}))
    account = person(seeded)
    assert enabled_flags(session=seeded, account_id=account.id, keys=KEYS) == {
        "referral-program": True,
        "pricing-test": False,
    }
    assert gb_api.requests == 0


# --- GrowthBook through the SDK -------------------------------------------------------------------------


def test_growthbook_decides_the_flags_it_defines_with_attribute_conditions(seeded, gb_api, configure):
    session = seeded
    gb_api.serve(
        plain_payload(
            {
                "referral-program": OFF_FOR_EVERYONE,
                # country $in and a verified participant
                "pricing-test": {
                    "defaultValue": False,
                    "rules": [{"condition": {"country": {"$in": ["US", "CA"]}, "verified": True}, "force": True}],
                },
                # $or: the company's e-mail domain, or a seniority among the profile's levels
                "chat-with-your-icp": {
                    "defaultValue": False,
                    "rules": [
                        {
                            "condition": {
                                "$or": [{"emailDomain": "acme.test"}, {"seniority": {"$elemMatch": {"$eq": "c-level"}}}]
                            },
                            "force": True,
                        }
                    ],
                },
                # a saved group (the payload's savedGroups) of countries
                "live-interviews": {
                    "defaultValue": False,
                    "rules": [{"condition": {"country": {"$inGroup": "grp_dach"}}, "force": True}],
                },
            },
            saved_groups={"grp_dach": ["DE", "AT", "CH"]},
        )
    )
    configure()
    us_verified = participant(session, country="US")
    us_unverified = participant(session, country="US", verified=False)
    german = participant(session, country="DE")
    acme = participant(session, domain="acme.test")
    chief = participant(session, levels=["c-level"])

    assert flag(session, us_verified, "pricing-test") is True
    assert flag(session, us_unverified, "pricing-test") is False
    assert flag(session, german, "pricing-test") is False
    assert [flag(session, a, "chat-with-your-icp") for a in (acme, chief, us_verified)] == [True, True, False]
    assert [flag(session, a, "live-interviews") for a in (german, us_verified)] == [True, False]
    # GrowthBook turns referral off (the table has it on); demo-product is unknown to it: the table (off).
    assert enabled_flags(session=session, account_id=us_verified.id, keys=(*KEYS, "demo-product")) == {
        "referral-program": False,
        "pricing-test": True,
        "demo-product": False,
    }
    # Signed out: everything off, GrowthBook or not.
    assert enabled_flags(session=session, account_id=None, keys=KEYS) == dict.fromkeys(KEYS, False)


def test_the_attributes_hold_the_email_domain_not_the_address(seeded):
    account = participant(seeded, country="US", domain="acme.test", levels=["senior"])
    attributes = user_attributes(seeded, account.id)
    assert attributes["id"] == str(account.id)
    assert attributes["emailDomain"] == "acme.test" and attributes["country"] == "US"
    assert attributes["verified"] is True and attributes["seniority"] == ["senior"]
    assert account.email not in json.dumps(attributes)


ROLLOUT = {
    "pricing-test": {
        "defaultValue": False,
        "rules": [
            {
                "id": "fr_1",
                "coverage": 0.3,
                "force": True,
                "hashAttribute": "id",
                "seed": "pricing-test",
                "hashVersion": 2,
            }
        ],
    }
}
IDS = [str(n) for n in range(1, 2001)]


def _on_ids(snapshot) -> list[str]:
    return [i for i in IDS if growthbook_values(snapshot, {"id": i}, ("pricing-test",))["pricing-test"]]


def test_a_percentage_rollout_is_stable_per_user_across_calls_and_processes(seeded, gb_api, configure):
    gb_api.serve(plain_payload(ROLLOUT))
    configure()
    snapshot = growthbook_features.store().snapshot()
    on = _on_ids(snapshot)
    assert 0.25 < len(on) / len(IDS) < 0.35  # about the 30 % of users
    assert _on_ids(snapshot) == on  # the same users on every call
    # Another process fetching the same payload from the stand-in puts the same users in.
    script = (
        "import json, sys\n"
        "from portal.services import growthbook_features\n"
        "from portal.services.flags import growthbook_values\n"
        "snapshot = growthbook_features.store().snapshot()\n"
        "ids = [str(n) for n in range(1, 2001)]\n"
        "print(json.dumps([i for i in ids "
        "if growthbook_values(snapshot, {'id': i}, ('pricing-test',))['pricing-test']]))\n"
    )
    env = {**os.environ, "GROWTHBOOK_CLIENT_KEY": CLIENT_KEY, "GROWTHBOOK_API_HOST": gb_api.url}
    out = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == on
    # A real account gets the answer its id gets.
    account = person(seeded)
    assert flag(seeded, account, "pricing-test") is (str(account.id) in on)


def test_an_experiment_splits_users_by_its_weights_within_its_condition(seeded, gb_api, configure):
    gb_api.serve(
        plain_payload(
            {
                "pricing-test": {
                    "defaultValue": False,
                    "rules": [
                        {
                            "key": "pricing-page-2026",
                            "variations": [False, True],
                            "weights": [0.5, 0.5],
                            "coverage": 1,
                            "hashAttribute": "id",
                            "seed": "pricing-page-2026",
                            "hashVersion": 2,
                            "condition": {"country": "US"},
                            "meta": [{"key": "control"}, {"key": "new-pricing"}],
                            "phase": "0",
                            "name": "Pricing page",
                        }
                    ],
                }
            }
        )
    )
    configure()
    snapshot = growthbook_features.store().snapshot()
    treated = [
        i for i in IDS if growthbook_values(snapshot, {"id": i, "country": "US"}, ("pricing-test",))["pricing-test"]
    ]
    assert 0.45 < len(treated) / len(IDS) < 0.55
    assert treated == [
        i for i in IDS if growthbook_values(snapshot, {"id": i, "country": "US"}, ("pricing-test",))["pricing-test"]
    ]
    # Outside the experiment's condition: the default value.
    assert not any(
        growthbook_values(snapshot, {"id": i, "country": "FR"}, ("pricing-test",))["pricing-test"] for i in IDS[:200]
    )
    # A US participant gets their variation through the portal.
    account = participant(seeded, country="US")
    assert flag(seeded, account, "pricing-test") is (str(account.id) in treated)


def test_an_encrypted_payload_is_read_with_the_decryption_key(seeded, gb_api, configure, caplog):
    key = new_decryption_key()
    gb_api.serve(encrypted_payload({"pricing-test": ON_FOR_EVERYONE, "referral-program": OFF_FOR_EVERYONE}, key))
    account = person(seeded)
    configure(decryption_key=key)
    assert enabled_flags(session=seeded, account_id=account.id, keys=KEYS) == {
        "referral-program": False,
        "pricing-test": True,
    }
    assert gb_api.requests == 1

    # A payload encrypted with another key later: logged, the last known features stay.
    gb_api.serve(encrypted_payload({"pricing-test": OFF_FOR_EVERYONE}, new_decryption_key()))
    with caplog.at_level(logging.INFO):
        assert growthbook_features.store().refresh() is False
    assert FETCH_FAILED in caplog.text and "stay in force" in caplog.text
    assert enabled_flags(session=seeded, account_id=account.id, keys=KEYS) == {
        "referral-program": False,
        "pricing-test": True,
    }


@pytest.mark.parametrize("decryption_key", ["wrong", ""], ids=["wrong-key", "no-key"])
def test_an_encrypted_payload_with_a_wrong_or_no_key_leaves_growthbook_flags_off(
    seeded, gb_api, configure, caplog, decryption_key
):
    gb_api.serve(encrypted_payload({"pricing-test": ON_FOR_EVERYONE}, new_decryption_key()))
    configure(decryption_key=new_decryption_key() if decryption_key == "wrong" else "")
    account = person(seeded)
    with caplog.at_level(logging.INFO):
        result = enabled_flags(session=seeded, account_id=account.id, keys=KEYS)
    # Nothing ever fetched: GrowthBook's flags count as off (not the table's referral-program on).
    assert result == dict.fromkeys(KEYS, False)
    assert FETCH_FAILED in caplog.text and "count as off" in caplog.text
    assert "Traceback" not in caplog.text


def test_an_outage_after_a_good_fetch_keeps_the_last_known_features_and_warns_once(seeded, gb_api, configure, caplog):
    gb_api.serve(plain_payload({"pricing-test": ON_FOR_EVERYONE}))
    configure()
    account = person(seeded)
    assert flag(seeded, account, "pricing-test") is True
    store = growthbook_features.store()
    with caplog.at_level(logging.INFO):
        gb_api.fail(status=500)
        assert store.refresh() is False
        gb_api.fail(raw=b"<html>Bad gateway</html>")  # 200 but not JSON
        assert store.refresh() is False
        gb_api.fail(raw=b'{"status": 200}')  # JSON without features
        assert store.refresh() is False
        assert flag(seeded, account, "pricing-test") is True
        gb_api.stop()  # host down
        assert store.refresh() is False
    assert flag(seeded, account, "pricing-test") is True
    warnings = [r for r in caplog.records if r.name == growthbook_features.__name__ and r.levelno == logging.WARNING]
    assert len(warnings) == 1 and FETCH_FAILED in warnings[0].getMessage()
    assert "status code 500" in warnings[0].getMessage()  # the SDK's reason, folded into the one warning
    assert not [r for r in caplog.records if r.name == "growthbook"]  # not a line of its own per attempt
    assert "Traceback" not in caplog.text
    page = admin_flags.list_flags(session=seeded, actor_id=person(seeded, role="super-admin").id)
    assert page.growthbook == "stale" and {f.key for f in page.flags if f.source == "growthbook"} == {"pricing-test"}


def test_with_growthbook_unreachable_from_the_start_its_flags_are_off(seeded, configure, caplog):
    # A host that accepts the connection and never answers: the first fetch gives up after the timeout.
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen()
    try:
        configure(api_host=f"http://127.0.0.1:{silent.getsockname()[1]}", timeout=0.5)
        account = person(seeded)
        assert enabled_flags(session=seeded, account_id=account.id, keys=KEYS) == dict.fromkeys(KEYS, False)
    finally:
        silent.close()
    assert FETCH_FAILED in caplog.text
    page = admin_flags.list_flags(session=seeded, actor_id=person(seeded, role="super-admin").id)
    assert page.growthbook == "unreachable"


def test_a_per_user_override_wins_over_growthbook(seeded, gb_api, configure):
    gb_api.serve(plain_payload({"pricing-test": ON_FOR_EVERYONE, "referral-program": OFF_FOR_EVERYONE}))
    configure()
    account, other = person(seeded), person(seeded)
    seeded.add(FeatureFlagUser(flag_key="pricing-test", account_id=account.id, enabled=False))
    seeded.add(FeatureFlagUser(flag_key="referral-program", account_id=account.id, enabled=True))
    seeded.commit()
    assert enabled_flags(session=seeded, account_id=account.id, keys=KEYS) == {
        "referral-program": True,
        "pricing-test": False,
    }
    assert enabled_flags(session=seeded, account_id=other.id, keys=KEYS) == {
        "referral-program": False,
        "pricing-test": True,
    }
    page = admin_flags.list_flags(session=seeded, actor_id=person(seeded, role="super-admin").id)
    assert page.growthbook == "on"


def test_features_are_fetched_once_per_process_not_per_evaluation(seeded, gb_api, configure):
    gb_api.serve(plain_payload({"pricing-test": ON_FOR_EVERYONE}))
    configure(refresh=3600)
    account = person(seeded)
    for _ in range(5):
        assert flag(seeded, account, "pricing-test") is True
    assert gb_api.requests == 1


def test_the_background_refresh_picks_up_a_changed_payload(seeded, gb_api, configure):
    gb_api.serve(plain_payload({"pricing-test": OFF_FOR_EVERYONE}))
    configure(refresh=0.1)
    account = person(seeded)
    assert flag(seeded, account, "pricing-test") is False
    gb_api.serve(plain_payload({"pricing-test": ON_FOR_EVERYONE}))
    deadline = time.monotonic() + 30  # a generous wait for the refresher on a busy machine, not a timing claim
    while not flag(seeded, account, "pricing-test") and time.monotonic() < deadline:
        time.sleep(0.05)
    assert flag(seeded, account, "pricing-test") is True
    assert gb_api.requests >= 2
