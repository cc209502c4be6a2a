"""PAYOUT_PROVIDER: Tremendous when a key is set, its local stand-in on a loopback BASE_URL without one (the
key, campaign, funding source, webhook key and address derived from SECRET_KEY and BASE_URL), the manual
provider elsewhere; and the settings a real Tremendous needs."""

from __future__ import annotations

import pytest

from portal.domain.payout_choice import Choice, PayoutSettingRefused, choose, host
from portal.services.providers.payouts import ManualProvider, TremendousProvider, build
from portal.settings import Settings

PAYOUT_VARIABLES = (
    "PAYOUT_PROVIDER",
    "TREMENDOUS_API_KEY",
    "TREMENDOUS_ENVIRONMENT",
    "TREMENDOUS_API_URL",
    "TREMENDOUS_CAMPAIGN_ID",
    "TREMENDOUS_FUNDING_SOURCE_ID",
    "TREMENDOUS_WEBHOOK_KEY",
)


@pytest.fixture
def env(monkeypatch):
    monkeypatch.setenv("SECRET_KEY", "unit")
    for name in PAYOUT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


@pytest.mark.parametrize(
    "mode,key,base_url,expected",
    [
        ("auto", "", "http://localhost:3000", Choice("tremendous", True)),
        ("auto", "", "http://127.0.0.1:8000", Choice("tremendous", True)),
        ("auto", "KEY", "http://localhost:3000", Choice("tremendous", False)),
        ("auto", "KEY", "https://portal.example.com", Choice("tremendous", False)),
        ("auto", "", "https://portal.example.com", Choice("manual", False)),
        ("", "", "https://portal.example.com", Choice("manual", False)),
        ("tremendous", "", "http://localhost:3000", Choice("tremendous", True)),
        ("Tremendous", "KEY", "https://portal.example.com", Choice("tremendous", False)),
        ("manual", "KEY", "https://portal.example.com", Choice("manual", False)),
        ("manual", "", "http://localhost:3000", Choice("manual", False)),
    ],
)
def test_the_provider_chosen(mode, key, base_url, expected):
    assert choose(mode, key, base_url) == expected


def test_tremendous_without_a_key_away_from_this_machine_is_refused():
    with pytest.raises(PayoutSettingRefused, match="needs TREMENDOUS_API_KEY"):
        choose("tremendous", "", "https://portal.example.com")


def test_an_unknown_mode_is_refused():
    with pytest.raises(PayoutSettingRefused, match="must be one of auto, tremendous, manual"):
        choose("paypal", "", "http://localhost:3000")


def test_the_environment_names_the_host():
    assert host("sandbox", "") == "https://testflight.tremendous.com/api/v2"
    assert host("production", "") == "https://api.tremendous.com/api/v2"
    assert host("production", "https://proxy.example.com/api/v2/") == "https://proxy.example.com/api/v2"
    with pytest.raises(PayoutSettingRefused):
        host("live", "")


def test_a_local_run_uses_the_stand_in_with_derived_values(env):
    env.setenv("BASE_URL", "http://localhost:3000")
    env.setenv("TREMENDOUS_CAMPAIGN_ID", "IGNORED00001")
    config = Settings()
    assert (config.payout_provider_name, config.local_payouts_active) == ("tremendous", True)
    assert config.tremendous_host == "http://localhost:3000/local-payouts/api/v2"
    assert config.tremendous_funding_source_id == "BALANCE"
    assert config.tremendous_campaign_id.startswith("LOCAL") and len(config.tremendous_campaign_id) == 12
    assert config.tremendous_campaign_id.isalnum() and config.tremendous_campaign_id.isupper()
    assert len({config.tremendous_api_key, config.tremendous_webhook_key}) == 2
    env.setenv("SECRET_KEY", "another")
    other = Settings()
    assert other.tremendous_api_key != config.tremendous_api_key
    assert other.tremendous_webhook_key != config.tremendous_webhook_key
    assert isinstance(build(config), TremendousProvider)


def test_a_configured_key_uses_tremendous_as_configured(env):
    env.setenv("BASE_URL", "https://portal.example.com")
    env.setenv("TREMENDOUS_API_KEY", "PROD_KEY")
    env.setenv("TREMENDOUS_ENVIRONMENT", "production")
    env.setenv("TREMENDOUS_CAMPAIGN_ID", "CAMPAIGN00001")
    env.setenv("TREMENDOUS_WEBHOOK_KEY", "whk")
    config = Settings()
    assert (config.payout_provider_name, config.local_payouts_active) == ("tremendous", False)
    assert config.tremendous_host == "https://api.tremendous.com/api/v2"
    assert (config.tremendous_api_key, config.tremendous_campaign_id) == ("PROD_KEY", "CAMPAIGN00001")
    assert (config.tremendous_funding_source_id, config.tremendous_webhook_key) == ("BALANCE", "whk")


def test_a_public_address_without_a_key_pays_by_hand(env):
    env.setenv("BASE_URL", "https://portal.example.com")
    config = Settings()
    assert (config.payout_provider_name, config.local_payouts_active) == ("manual", False)
    assert isinstance(build(config), ManualProvider)


@pytest.mark.parametrize(
    "variables,message",
    [
        ({"PAYOUT_PROVIDER": "tremendous"}, "needs TREMENDOUS_API_KEY"),
        ({"PAYOUT_PROVIDER": "venmo"}, "must be one of"),
        (
            {"TREMENDOUS_API_KEY": "K", "TREMENDOUS_CAMPAIGN_ID": "C0000001", "TREMENDOUS_ENVIRONMENT": "live"},
            "sandbox",
        ),
        ({"TREMENDOUS_API_KEY": "K"}, "TREMENDOUS_CAMPAIGN_ID is required"),
    ],
)
def test_settings_that_cannot_work_stop_the_start(env, variables, message):
    env.setenv("BASE_URL", "https://portal.example.com")
    for name, value in variables.items():
        env.setenv(name, value)
    with pytest.raises(SystemExit, match=message):
        Settings()
