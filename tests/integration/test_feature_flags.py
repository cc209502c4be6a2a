"""Feature flags per user: the flags table, and GrowthBook's features endpoint when configured."""

from __future__ import annotations

import httpx
import pytest

from portal.models import FeatureFlag, FeatureFlagUser
from portal.services import flags as flag_service
from portal.services.flags import enabled_flags, fetch_growthbook_features
from portal.services.seeding import seed_reference
from tests.support.factories import make_participant

KEYS = ("referral-program", "pricing-test")


@pytest.fixture
def seeded(session):
    seed_reference(session)
    session.commit()
    return session


def test_table_flags_and_per_user_override(seeded):
    session = seeded
    account = make_participant(session)
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False) == {
        "referral-program": True, "pricing-test": False,
    }
    session.add(FeatureFlagUser(flag_key="pricing-test", account_id=account.id, enabled=True))
    session.commit()
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False)["pricing-test"] is True
    # Signed out: everything off.
    assert enabled_flags(session=session, account_id=None, keys=KEYS, growthbook=False) == dict.fromkeys(KEYS, False)


def test_percentage_rollout(seeded):
    session = seeded
    flag = session.get(FeatureFlag, "pricing-test")
    flag.enabled, flag.percentage = True, 0
    session.add(flag)
    session.commit()
    account = make_participant(session)
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=False)["pricing-test"] is False


def test_growthbook_decides_the_flags_it_defines(seeded):
    session = seeded
    account = make_participant(session)
    features = {
        "referral-program": {"defaultValue": False},
        "pricing-test": {"defaultValue": False, "rules": [{"condition": {"id": str(account.id)}, "force": True}]},
    }
    result = enabled_flags(session=session, account_id=account.id, keys=(*KEYS, "demo-product"),
                           growthbook=True, fetch=lambda: features)
    # GrowthBook turns referral off and pricing on for this user; demo-product is unknown to it: the table (off).
    assert result == {"referral-program": False, "pricing-test": True, "demo-product": False}
    # A per-user override in the table still wins.
    session.add(FeatureFlagUser(flag_key="referral-program", account_id=account.id, enabled=True))
    session.commit()
    assert enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=True, fetch=lambda: features)[
        "referral-program"] is True


def test_growthbook_failure_is_logged_and_off(seeded, caplog):
    session = seeded
    account = make_participant(session)

    def broken():
        raise httpx.ConnectError("down")

    result = enabled_flags(session=session, account_id=account.id, keys=KEYS, growthbook=True, fetch=broken)
    assert result == dict.fromkeys(KEYS, False)
    assert "GrowthBook features could not be fetched" in caplog.text


def test_fetch_reads_the_public_features_endpoint(monkeypatch):
    seen = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen["url"] = str(request.url)
        return httpx.Response(200, json={"status": 200, "features": {"referral-program": {"defaultValue": True}}})

    monkeypatch.setattr(flag_service, "settings", type("S", (), {
        "growthbook_api_host": "https://gb.example.com/", "growthbook_client_key": "sdk-abc",
    })())
    with httpx.Client(transport=httpx.MockTransport(handler)) as client:
        assert fetch_growthbook_features(client=client) == {"referral-program": {"defaultValue": True}}
    assert seen["url"] == "https://gb.example.com/api/features/sdk-abc"

    with httpx.Client(transport=httpx.MockTransport(lambda r: httpx.Response(200, json={"encryptedFeatures": "x"}))) as client:
        with pytest.raises(ValueError):
            fetch_growthbook_features(client=client)
