"""The payout ledger's rules (issue 37): the spec's payment status each state mirrors, what a participant and staff
read, when payment is expected, the 48-hour wait after changing the payment e-mail, the backoff, the totals."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from portal.domain import payouts as rules

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)  # a Thursday


def test_each_state_mirrors_one_payment_status():
    assert {s: rules.status_of(s) for s in rules.STATES} == {
        "sending": "PENDING",
        "sent": "PENDING",
        "paid": "EXECUTED",
        "failed": "FAILED",
        "canceled": "CANCELED",
    }


def test_the_participant_reads_the_review_until_the_money_moves_then_the_payout():
    assert rules.stage("PENDING", "submitted", False, None) == "Submitted"
    assert rules.stage("PENDING", "approved", True, None) == "Approved"
    assert rules.stage("PENDING", "approved", True, "sending") == "Sending"
    assert rules.stage("PENDING", "approved", True, "sent") == "Sent"
    assert rules.stage("EXECUTED", "approved", True, "paid") == "Paid"
    assert rules.stage("FAILED", "approved", True, "failed") == "Failed"
    assert rules.stage("CANCELED", "rejected", False, None) == "Rejected"
    # A payout state that disagrees with the payment status (marked paid by hand meanwhile): the status wins.
    assert rules.stage("EXECUTED", "approved", True, "sent") == "Paid"


def test_staff_read_seven_states():
    assert rules.staff_state("PENDING", False, None) == "In review"
    assert rules.staff_state("PENDING", True, None) == "Approved"
    assert rules.staff_state("PENDING", True, "sending") == "Sending"
    assert rules.staff_state("PENDING", True, "sent") == "Sent"
    assert rules.staff_state("EXECUTED", True, "paid") == "Paid"
    assert rules.staff_state("FAILED", True, "failed") == "Failed"
    assert rules.staff_state("CANCELED", False, None) == "Canceled"
    assert len(rules.STAFF_STATES) == 7


def test_payment_is_expected_within_5_business_days_or_10_for_crowd_work():
    assert rules.expected_by(None) is None
    assert rules.expected_by(NOW) == date(2026, 12, 3)  # Thursday + 5 business days
    assert rules.expected_by(NOW, crowd_work=True) == date(2026, 12, 10)
    friday = NOW + timedelta(days=1)
    assert rules.expected_by(friday) == date(2026, 12, 4)


def test_a_failed_payout_waits_48_hours_after_the_payment_email_changes():
    assert rules.resend_allowed_at(None) is None
    assert rules.resend_allowed_at(NOW) == NOW + timedelta(hours=48)


def test_retries_back_off_and_stop_growing_at_six_hours():
    waits = [rules.retry_at(n, NOW) - NOW for n in (0, 1, 2, 3, 4, 5, 50)]
    assert waits == [
        timedelta(minutes=1),
        timedelta(minutes=1),
        timedelta(minutes=5),
        timedelta(minutes=15),
        timedelta(hours=1),
        timedelta(hours=6),
        timedelta(hours=6),
    ]


def test_totals_add_each_reward_to_one_heading_and_this_year_only_what_was_paid_this_year():
    last_year = datetime(2025, 12, 30, tzinfo=UTC)
    rows = [
        ("EXECUTED", "approved", True, 2500, NOW),
        ("EXECUTED", "approved", True, 1000, last_year),
        ("PENDING", "approved", True, 3000, None),  # approved: on the way
        ("PENDING", "excluded", False, 700, None),  # excluded is paid like approved
        ("PENDING", "submitted", False, 1500, None),  # in review
        ("PENDING", "rejected", False, 900, None),  # rejected: nowhere
        ("FAILED", "approved", True, 400, None),
        ("CANCELED", "rejected", False, 100, None),
        ("PENDING", None, True, 2000, None),  # a referral bonus (no review), payable
    ]
    assert rules.totals(rows, 2026) == rules.Totals(paid=3500, on_the_way=5700, in_review=1500, this_year=2500)
    assert rules.totals([], 2026) == rules.Totals()


def test_a_held_participant_reads_held_on_approved_rewards_not_yet_ordered():
    assert rules.is_held(NOW, None) and not rules.is_held(None, None) and not rules.is_held(NOW, NOW)
    assert rules.stage("PENDING", "approved", True, None, held=True) == "Held"
    assert rules.stage("PENDING", "excluded", False, None, held=True) == "Held"
    assert rules.stage("PENDING", "submitted", False, None, held=True) == "Submitted"  # nothing to hold yet
    assert rules.stage("PENDING", "approved", True, "sent", held=True) == "Sent"  # ordered before the hold
    assert rules.stage("EXECUTED", "approved", True, "paid", held=True) == "Paid"


def test_staff_read_where_a_participant_stands_against_the_threshold():
    assert rules.tax_standing(160_000, 200_000, False, False) == "80% of the threshold"
    assert rules.tax_standing(200_000, 200_000, False, False) == "Over the threshold"
    assert rules.tax_standing(250_000, 200_000, True, False) == "Payouts held until tax details are on file"
    assert rules.tax_standing(250_000, 200_000, True, True) == "Tax details on file"
