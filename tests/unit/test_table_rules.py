"""Rules of the shared data table and of invites (portal/domain/table.py, portal/domain/invites.py)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from portal.domain import invites
from portal.domain import table as rules


def test_page_sizes_default_fifth_and_extras():
    assert rules.page_size_options() == [10, 20, 30, 40, 50]
    assert rules.DEFAULT_PAGE_SIZE == 50
    assert rules.page_size_options((100, 200)) == [10, 20, 30, 40, 50, 100, 200]
    assert rules.page_size_options((5,)) == [5, 10, 20, 30, 40, 50]
    assert rules.page_size_options((0, -3, True, "7", 100000)) == [10, 20, 30, 40, 50]


@pytest.mark.parametrize(
    "value,expected", [(10, 10), ("20", 20), (50, 50), (7, 50), ("x", 50), (None, 50), (True, 50), (10**30, 50)]
)
def test_clean_page_size(value, expected):
    assert rules.clean_page_size(value) == expected


@pytest.mark.parametrize(
    "value,expected",
    [(1, 1), ("3", 3), (0, 1), (-5, 1), ("abc", 1), (None, 1), (2.7, 2), (10**30, rules.MAX_PAGE), (False, 1)],
)
def test_clean_page(value, expected):
    assert rules.clean_page(value) == expected


@pytest.mark.parametrize(
    "direction,ascending",
    [(1, True), ("1", True), (-1, False), (0, False), (2, False), (None, False), ("asc", False), (True, False)],
)
def test_sort_direction_one_is_ascending_anything_else_descending(direction, ascending):
    assert rules.is_ascending(direction) is ascending


def test_clean_sort_whitelists_and_defaults_to_created_on_descending():
    assert rules.clean_sort("createdOn", 1, ("createdOn",)) == ("createdOn", 1)
    assert rules.clean_sort("password_hash", 1, ("createdOn", "testType")) == ("createdOn", 1)
    assert rules.clean_sort(None, None, ("createdOn",)) == ("createdOn", -1)
    assert rules.clean_sort(["x"], {"a": 1}, ("createdOn",)) == ("createdOn", -1)


def test_toggle_sort():
    assert rules.toggle_sort("createdOn", -1, "createdOn") == ("createdOn", 1)
    assert rules.toggle_sort("createdOn", 1, "createdOn") == ("createdOn", -1)
    assert rules.toggle_sort("createdOn", 1, "testType") == ("testType", -1)


@pytest.mark.parametrize("total,visible", [(0, False), (10, False), (11, True), (500, True)])
def test_pagination_hidden_unless_total_exceeds_smallest_option(total, visible):
    assert rules.pagination_visible(total) is visible


def test_pagination_with_smaller_extra_option():
    assert rules.pagination_visible(6, rules.page_size_options((5,))) is True


def test_page_count():
    assert rules.page_count(0, 50) == 1
    assert rules.page_count(50, 50) == 1
    assert rules.page_count(51, 50) == 2


@pytest.mark.parametrize(
    "status,label",
    [
        ("EXECUTED", "Paid"),
        ("FAILED", "Failed"),
        ("CANCELED", "Canceled"),
        ("PENDING", "Pending"),
        ("executed", ""),
        ("", ""),
        (None, ""),
        ("REFUNDED", ""),
        (5, ""),
    ],
)
def test_payment_status_mapping(status, label):
    assert rules.payment_status_label(status) == label


def test_date_format_mmm_d_yyyy():
    assert rules.format_date(date(2026, 11, 3)) == "Nov 3, 2026"
    assert rules.format_date(datetime(2025, 1, 21, 23, 59, tzinfo=UTC)) == "Jan 21, 2025"
    assert rules.format_date(None) == ""
    # A database session in another time zone returns the same instant: the UTC calendar day is shown.
    assert rules.format_date(datetime(2025, 1, 22, 1, 30, tzinfo=timezone(timedelta(hours=2)))) == "Jan 21, 2025"


def test_money():
    assert rules.format_money(2000) == "$20"
    assert rules.format_money(2550) == "$25.50"
    assert rules.format_money(27000) == "$270"


def test_search_is_trimmed_and_bounded():
    assert rules.clean_search("  pricing   test ") == "pricing test"
    assert rules.clean_search(None) == ""
    assert rules.clean_search({"$ne": 1}) == ""
    assert len(rules.clean_search("x" * 500)) == rules.MAX_SEARCH_LENGTH
    assert rules.SEARCH_DEBOUNCE_MS == 1500


ALLOWED = {"status": {"type": "list", "options": ("open", "filled")}, "createdOn": {"type": "range"}}


def test_filters_keep_only_known_names_types_and_options():
    raw = [
        {"name": "status", "type": "list", "values": ["open", "bogus", "open"]},
        {"name": "account_id", "type": "list", "values": ["1"]},
        {"name": "createdOn", "type": "range", "values": ["2026-02-10", "2026-01-01"]},
        "junk",
    ]
    out = rules.clean_filters(raw, ALLOWED)
    assert out == [
        rules.Filter("status", "list", ("open",)),
        rules.Filter("createdOn", "range", ("2026-01-01", "2026-02-10")),
    ]


def test_filters_exclude_and_bad_inputs():
    assert rules.clean_filters([{"name": "status", "type": "exclude", "values": ["filled"]}], ALLOWED) == [
        rules.Filter("status", "exclude", ("filled",))
    ]
    assert (
        rules.clean_filters([{"name": "createdOn", "type": "range", "values": ["nope", "2026-01-01"]}], ALLOWED) == []
    )
    assert (
        rules.clean_filters([{"name": "status", "type": "range", "values": ["2026-01-01", "2026-01-02"]}], ALLOWED)
        == []
    )
    assert rules.clean_filters("status=open", ALLOWED) == []
    assert rules.clean_filters(None, ALLOWED) == []


def test_messages():
    assert rules.empty_message(True) == "No matches found"
    assert rules.empty_message(False) == "There are no items yet"
    assert rules.ERROR_TITLE == "Error loading data" and rules.ERROR_BODY == "Please try refreshing the page."
    assert rules.RENDER_FAILURE == (
        "Unable to display table - There was a problem loading this table. Please refresh the page or contact support."
    )
    assert rules.selection_label(3) == "3 participants selected"
    assert rules.selection_label(1, "tests") == "1 test selected"
    assert rules.selection_label(1) == "1 participant selected"
    assert rules.selection_label(0) == "0 participants selected"
    assert rules.range_confirmation("2026-01-01", "2026-01-31").startswith(
        "Are you sure you want to use date range Jan 1, 2026"
    )
    assert rules.RANGE_CONFIRM_BUTTON == "Use range"


NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


def test_open_invite_past_its_expiry_counts_as_expired():
    assert invites.effective_status("open", NOW + timedelta(hours=1), NOW) == "open"
    assert invites.effective_status("open", NOW - timedelta(seconds=1), NOW) == "expired"
    assert invites.effective_status("open", NOW, NOW) == "expired"
    assert invites.effective_status("filled", NOW - timedelta(days=1), NOW) == "filled"


@pytest.mark.parametrize(
    "status,redirect,message",
    [
        ("open", "/test/42/rate", None),
        ("filled", None, "This test has already been filled."),
        ("completed", None, "This test has already been completed."),
        ("expired", None, "This invite is no longer valid."),
        ("canceled", None, "This invite is no longer valid."),
        ("whatever", None, "This invite is no longer valid."),
    ],
)
def test_invite_click(status, redirect, message):
    outcome = invites.click_outcome(status, 42)
    assert outcome.redirect == redirect and outcome.message == message


def test_labels():
    assert invites.product_type_label("landing-page") == "Landing page"
    assert invites.status_label("open") == "Open"


def test_demographic_lists_say_prefer_not_to_answer_once_and_keep_the_stored_value():
    from portal.domain import profile_rules

    for _key, _label, options in profile_rules.DEMOGRAPHIC_FIELDS:
        labels = [o.label for o in options]
        assert labels.count("Prefer not to answer") == 1 and "Prefer not to say" not in labels
        assert any(o.value == "Prefer not to say" for o in options)  # profiles saved before keep their answer
    assert profile_rules.NOT_ANSWERED == "Choose one"


def test_an_open_invite_to_a_test_not_running_cannot_be_started():
    from portal.domain import invites

    assert invites.test_blocks("open", "running") == "" and invites.test_blocks("open", None) == ""
    assert invites.test_blocks("open", "paused") == "Paused"
    for status in ("removed", "completed", "stopped", "draft"):
        assert invites.test_blocks("open", status) == "No longer available"
    assert invites.test_blocks("expired", "paused") == ""  # an ended invite reads as it ended
