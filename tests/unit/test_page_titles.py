"""Page titles: test pages 'name (status) | pricing tier | launched or updated date | brand'."""

from __future__ import annotations

from datetime import UTC, date, datetime

from portal.domain import titles

BRAND = "Participants Portal"


def test_full_title_with_launch_date():
    assert (
        titles.test_page_title(
            name="Acme homepage", status="Live", pricing_tier="landing-page", launched_on=date(2026, 3, 4), brand=BRAND
        )
        == "Acme homepage (Live) | Landing page | Launched Mar 4, 2026 | Participants Portal"
    )


def test_update_date_wins_when_later():
    assert (
        titles.test_page_title(
            name="Pricing",
            status="Draft",
            pricing_tier="Pricing page",
            launched_on=datetime(2026, 3, 4, 10, tzinfo=UTC),
            updated_on=datetime(2026, 11, 1, 9, tzinfo=UTC),
            brand=BRAND,
        )
        == "Pricing (Draft) | Pricing page | Updated Nov 1, 2026 | Participants Portal"
    )


def test_update_not_later_than_launch_shows_launch():
    assert (
        titles.test_page_title(name="T", launched_on=date(2026, 5, 1), updated_on=date(2026, 5, 1), brand=BRAND)
        == "T | Launched May 1, 2026 | Participants Portal"
    )


def test_only_update_date():
    assert (
        titles.test_page_title(name="T", updated_on=date(2026, 1, 9), brand=BRAND)
        == "T | Updated Jan 9, 2026 | Participants Portal"
    )


def test_missing_parts_are_left_out():
    assert titles.test_page_title(name="Survey", brand=BRAND) == "Survey | Participants Portal"
    assert (
        titles.test_page_title(name="  Survey \n one ", status=" ", pricing_tier="", brand=BRAND)
        == "Survey one | Participants Portal"
    )
    assert titles.test_page_title(name="", brand=BRAND) == "Test | Participants Portal"
    assert titles.test_page_title(name="Survey", status="Closed", brand="") == "Survey (Closed)"


def test_tier_labels():
    assert (
        titles.test_page_title(name="T", pricing_tier="pricing_test", brand=BRAND)
        == "T | Pricing test | Participants Portal"
    )
    assert titles.test_page_title(name="T", pricing_tier="B2B Pro", brand=BRAND) == "T | B2B Pro | Participants Portal"


def test_portal_page_title():
    assert titles.portal_page_title("Referral", BRAND) == "Referral | Participants Portal"


def test_not_collected_as_a_test():
    assert titles.test_page_title.__test__ is False
