"""Rules of the staff side (portal/domain/staff): the permission matrix, the incentive table, review
decisions and the reward's stage, CSV cells, and reviews' answers as staff read them."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime, timedelta

import pytest

from portal.domain.staff import answers, incentives, roles
from portal.domain.staff import reviews as decisions
from portal.domain.staff.csv_cells import safe_cell, to_csv

# --- roles and permissions ------------------------------------------------------------------------

SA, TO, TM = "super-admin", "team-owner", "team-manager"
# The decision (docs/decisions.md), written out: which role has which permission.
EXPECTED = {
    "view": {SA, TO, TM},
    "verify": {SA, TO, TM},
    "change-requests": {SA, TO, TM},
    "invite": {SA, TO, TM},
    "decide-reviews": {SA, TO, TM},
    "clear-pending": {SA, TO, TM},
    "export": {SA, TO, TM},
    "deactivate": {SA, TO},
    "pay": {SA, TO},
    "audit": {SA, TO},
    "manage-staff": {SA},
    "manage-tests": {SA, TO, TM},
    "outbox": {SA, TO},
    "flags": {SA},
    "edit-profiles": {SA, TO, TM},
    "message": {SA, TO, TM},
    "api-keys": {SA},
    "webhooks": {SA, TO},
}


def test_matrix_names_every_permission_and_role():
    assert set(roles.MATRIX) == set(EXPECTED)
    assert set(roles.ROLES) == {SA, TO, TM}
    assert set(roles.PERMISSION_LABELS) == set(EXPECTED)


@pytest.mark.parametrize("permission", sorted(EXPECTED))
@pytest.mark.parametrize("role", [SA, TO, TM])
def test_every_cell_of_the_matrix(role, permission):
    assert roles.may(role, permission) is (role in EXPECTED[permission])
    assert roles.permissions_of(role)[permission] is (role in EXPECTED[permission])


@pytest.mark.parametrize(
    "role", [None, "", "participant", "admin", "Super-Admin", "super-admin ", 1, True, ["super-admin"]]
)
def test_participants_and_unknown_roles_have_nothing(role):
    assert not roles.is_staff(role)
    assert all(roles.may(role, permission) is False for permission in EXPECTED)
    assert set(roles.permissions_of(role).values()) == {False}
    assert roles.role_label(role) == ""


def test_unknown_permission_is_refused_even_to_super_admin():
    assert roles.may(SA, "drop-database") is False
    assert roles.may(SA, "") is False


def test_role_labels():
    assert {r: roles.role_label(r) for r in roles.ROLES} == {SA: "Admin", TO: "Team Owner", TM: "Team Manager"}


# --- incentives -----------------------------------------------------------------------------------

# The spec's table (section 9), dollars: row -> level -> (day 1, day 2).
TABLE = {
    "survey": {"specialist": (10, 15), "middle": (20, 25), "senior": (35, 45)},
    "landing-page": {"specialist": (5, 10), "middle": (10, 15), "senior": (20, 25)},
    "pricing-test": {"specialist": (5, 10), "middle": (10, 15), "senior": (20, 25)},
    "preference-test": {"specialist": (5, 5), "middle": (10, 15), "senior": (20, 25)},
    "single-question-survey": {"specialist": (5, 5), "middle": (10, 15), "senior": (20, 25)},
    "video-test": {"specialist": (20, 25), "middle": (35, 40), "senior": (65, 75)},
    "icp-pulse-cbi": {"specialist": (20, 25), "middle": (35, 40), "senior": (65, 75)},
    "icp-pulse-brand-survey": {"specialist": (10, 15), "middle": (15, 20), "senior": (35, 40)},
}
CELLS = [
    (t, level, day, dollars)
    for t, levels in TABLE.items()
    for level, pair in levels.items()
    for day, dollars in zip((incentives.DAY1, incentives.DAY2), pair, strict=True)
]


@pytest.mark.parametrize("product_type,level,day,dollars", CELLS)
def test_every_cell_of_the_incentive_table(product_type, level, day, dollars):
    assert incentives.payout_cents(product_type, [level], day) == dollars * 100


def test_table_rows_show_the_spec_table():
    rows = {(label, level): (d1, d2) for label, level, d1, d2 in incentives.table_rows()}
    assert len(rows) == 15
    assert rows[("Survey / standard", "senior")] == (35, 45)
    assert rows[("Landing page and pricing test", "specialist")] == (5, 10)
    assert rows[("Preference and single-question", "specialist")] == (5, 5)
    assert rows[("Video test and ICP Pulse", "senior")] == (65, 75)
    assert rows[("Brand survey", "middle")] == (15, 20)


@pytest.mark.parametrize("product_type", ["standard", "market-research", "no-such-type", ""])
def test_standard_and_unknown_types_pay_as_survey(product_type):
    assert incentives.payout_cents(product_type, ["middle"], incentives.DAY1) == 2000
    assert incentives.payout_cents(product_type, ["senior"], incentives.DAY2) == 4500


def test_founder_pays_as_middle_custom_and_none_as_specialist():
    day1 = incentives.DAY1
    assert (
        incentives.payout_cents("survey", ["founder"], day1)
        == incentives.payout_cents("survey", ["middle"], day1)
        == 2000
    )
    assert incentives.payout_cents("video-test", ["custom"], day1) == 2000
    assert incentives.payout_cents("video-test", [], day1) == 2000
    assert incentives.payout_cents("video-test", None, incentives.DAY2) == 2500
    assert incentives.payout_cents("video-test", ["unheard-of"], day1) == 2000


@pytest.mark.parametrize(
    "levels,expected",
    [
        (["specialist", "senior"], "senior"),
        (["senior", "specialist"], "senior"),
        (["founder", "specialist"], "middle"),
        (["custom", "founder"], "middle"),
        (["founder", "senior"], "senior"),
        (["middle", "founder"], "middle"),
        ((), "specialist"),
    ],
)
def test_two_levels_pay_the_better_one(levels, expected):
    assert incentives.level_of(levels) == expected


def test_day_of_is_day1_within_24_hours_of_launch():
    launched = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
    assert incentives.day_of(launched, launched) == incentives.DAY1
    assert incentives.day_of(launched, launched + timedelta(hours=23, minutes=59)) == incentives.DAY1
    assert incentives.day_of(launched, launched + timedelta(hours=24)) == incentives.DAY2
    assert incentives.day_of(launched, launched + timedelta(days=9)) == incentives.DAY2
    assert incentives.day_of(None, launched) == incentives.DAY1  # not launched yet
    # A naive launch time (as SQLite may give) against an aware now.
    assert incentives.day_of(launched.replace(tzinfo=None), launched + timedelta(hours=25)) == incentives.DAY2


@pytest.mark.parametrize(
    "text,cents",
    [
        ("25", 2500),
        ("25.50", 2550),
        ("25.5", 2550),
        ("$30", 3000),
        (" 40 ", 4000),
        ("1", 100),
        ("500", 50_000),
        ("$1.00", 100),
        ("499.99", 49_999),
    ],
)
def test_parse_dollars_reads_sums(text, cents):
    assert incentives.parse_dollars(text) == cents


@pytest.mark.parametrize("text", [None, "", "   "])
def test_parse_dollars_empty_is_no_override(text):
    assert incentives.parse_dollars(text) is None


@pytest.mark.parametrize(
    "text",
    [
        "0",
        "0.99",
        "500.01",
        "501",
        "1,000",
        "-5",
        "abc",
        "25.505",
        "1e3",
        ".5",
        "$",
        "25 dollars",
        "²",
        "1.²",
        "٣٠",
        25,
        25.0,
        True,
        ["25"],
    ],
)
def test_parse_dollars_refuses_what_is_not_a_sum_between_1_and_500(text):
    assert (
        incentives.parse_dollars(text) == incentives.OVERRIDE_OUT_OF_RANGE == "The payout must be between $1 and $500."
    )


@pytest.mark.parametrize(
    "cents,ok",
    [
        (None, True),
        (100, True),
        (50_000, True),
        (2500, True),
        (99, False),
        (50_001, False),
        (0, False),
        (-100, False),
        (True, False),
        (25.0, False),
        ("2500", False),
    ],
)
def test_override_limits(cents, ok):
    assert (incentives.override_problem(cents) == "") is ok


# --- review decisions -----------------------------------------------------------------------------

FRIDAY = date(2026, 11, 20)
MONDAY = date(2026, 11, 23)
SATURDAY = date(2026, 11, 21)


def test_expected_payment_is_five_business_days_skipping_weekends():
    assert decisions.expected_payment(MONDAY) == (MONDAY, date(2026, 11, 30))  # Mon -> next Mon
    assert decisions.expected_payment(FRIDAY) == (FRIDAY, date(2026, 11, 27))  # Fri -> next Fri
    assert decisions.expected_payment(SATURDAY) == (SATURDAY, date(2026, 11, 27))  # the weekend counts from Monday
    assert decisions.expected_payment(date(2026, 11, 18)) == (date(2026, 11, 18), date(2026, 11, 25))  # Wed -> Wed


def test_expected_payment_for_crowd_work_is_seven_to_ten_business_days():
    assert decisions.expected_payment(MONDAY, crowd_work=True) == (date(2026, 12, 2), date(2026, 12, 7))
    assert decisions.expected_payment(FRIDAY, crowd_work=True) == (date(2026, 12, 1), date(2026, 12, 4))


def test_add_business_days_never_lands_on_a_weekend():
    start = date(2026, 1, 1)
    for offset in range(14):
        for days in range(1, 12):
            assert decisions.add_business_days(start + timedelta(days=offset), days).weekday() < 5


def test_auto_approve_at():
    submitted = datetime(2026, 11, 2, 10, tzinfo=UTC)
    assert decisions.auto_approve_at(submitted) == datetime(2026, 11, 16, 10, tzinfo=UTC)
    assert decisions.auto_approve_at(submitted, 3) == datetime(2026, 11, 5, 10, tzinfo=UTC)


@pytest.mark.parametrize("reason", sorted(decisions.REJECTION_REASONS))
def test_every_listed_reason_is_accepted(reason):
    assert decisions.reason_problem(reason, None) == ""
    assert decisions.reason_problem(reason, "x" * decisions.NOTE_MAX) == ""


@pytest.mark.parametrize("reason", [None, "", "Low effort answers", "because", 1, ["low-effort"]])
def test_a_rejection_needs_a_listed_reason(reason):
    assert decisions.reason_problem(reason, None) == decisions.REASON_REQUIRED


def test_note_limit():
    assert decisions.reason_problem("low-effort", "x" * (decisions.NOTE_MAX + 1)) == decisions.NOTE_TOO_LONG
    assert decisions.reason_problem("low-effort", 42) == decisions.NOTE_TOO_LONG


@pytest.mark.parametrize(
    "reward,review,approved,stage",
    [
        ("EXECUTED", "approved", True, "Paid"),
        ("EXECUTED", "submitted", False, "Paid"),  # paid before staff decided (older rewards)
        ("FAILED", "approved", True, "Failed"),
        ("CANCELED", "rejected", False, "Rejected"),
        ("PENDING", "rejected", False, "Rejected"),
        ("CANCELED", "approved", True, "Canceled"),
        ("CANCELED", "submitted", False, "Canceled"),
        ("PENDING", "approved", True, "Approved"),
        ("PENDING", "submitted", True, "Approved"),
        ("PENDING", "approved", False, "Approved"),
        ("PENDING", "submitted", False, "Submitted"),
        ("PENDING", "excluded", True, "Approved"),  # excluded: paid like an approval
        ("PENDING", "excluded", False, "Approved"),
        ("EXECUTED", "excluded", True, "Paid"),
        (None, None, False, "Submitted"),
    ],
)
def test_reward_stage(reward, review, approved, stage):
    assert decisions.reward_stage(reward, review, approved) == stage


def test_the_evidence_of_a_rejection_and_its_words():
    assert decisions.evidence_problem(None, None) == ""
    assert decisions.evidence_problem([], "") == ""
    assert decisions.evidence_problem(["speeder", "question:q1", "typing:block.q2"], "x" * 500) == ""
    for bad in ("speeder", ["Speeder"], [""], [None], ["a" * 61], ["x"] * 21, ("speeder",)):
        assert decisions.evidence_problem(bad, None) == decisions.BAD_FLAGS, bad
    assert decisions.evidence_problem(None, "x" * 501) == decisions.EVIDENCE_TOO_LONG
    assert decisions.evidence_problem(None, 3) == decisions.EVIDENCE_TOO_LONG
    assert decisions.evidence_text(None, None) == decisions.evidence_text([], "  ") == ""
    assert decisions.evidence_text(["speeder"], None) == "Finished far faster than most participants."
    assert decisions.evidence_text(["left-tab", "new-flag"], " Away 3 times. ") == (
        "Left the page while writing answers; New flag. Away 3 times."
    )
    assert decisions.flag_words("question:q1") == "Question: q1"


def test_exclude_is_a_third_decision_paid_like_an_approval():
    assert decisions.STATUSES == ("submitted", "approved", "excluded", "rejected")
    assert decisions.STATUS_LABELS["excluded"] == "Excluded"
    assert decisions.PAID_DECISIONS == {"approved", "excluded"}
    assert decisions.REJECTED not in decisions.PAID_DECISIONS


# --- CSV cells ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value,expected",
    [
        ("=SUM(A1:A9)", "'=SUM(A1:A9)"),
        ("+1", "'+1"),
        ("-2+3", "'-2+3"),
        ("@cmd", "'@cmd"),
        ("\tTAB", "'\tTAB"),
        ("\r=1", "'\r=1"),
        ("plain", "plain"),
        ("a=b", "a=b"),
        ("", ""),
        (None, ""),
        (12, "12"),
        (-5, "'-5"),
        (" =1", " =1"),
    ],
)
def test_safe_cell(value, expected):
    assert safe_cell(value) == expected


def test_to_csv_round_trips_through_the_csv_module():
    header = ["id", "answer", "=header"]
    rows = [
        [1, '=HYPERLINK("http://evil")', 'comma, and "quotes"'],
        [2, "line one\nline two", "@SUM(1)"],
        [3, None, "ünïcödé ✓"],
    ]
    text = to_csv(header, rows)
    assert text.startswith("\ufeff")
    read = list(csv.reader(io.StringIO(text[1:], newline="")))
    assert read == [
        ["id", "answer", "'=header"],
        ["1", '\'=HYPERLINK("http://evil")', 'comma, and "quotes"'],
        ["2", "line one\nline two", "'@SUM(1)"],
        ["3", "", "ünïcödé ✓"],
    ]
    assert "\r\n" in text


# --- answers --------------------------------------------------------------------------------------


def test_flatten_survey_answers_by_key_and_by_index():
    questions = [
        {"key": "q1", "text": "What do you do?", "type": "text"},
        {
            "key": "q2",
            "text": "Which plan?",
            "type": "single",
            "options": [{"value": "a", "label": "Basic"}, {"value": "b", "label": "Pro"}],
        },
        {
            "key": "q3",
            "text": "Which tools?",
            "type": "multiple",
            "options": [{"value": "x", "label": "Excel"}, {"value": "y", "label": "Sheets"}],
        },
        {"key": "q4", "text": "Would you buy?", "type": "boolean"},
    ]
    stored = {
        "q1": {"value": "I buy software for a living", "pasteMetadata": {"wasPasted": True}},
        "q2": {"value": "b"},
        "q3": {"value": ["x", "other"], "isOther": True, "otherText": "Notion"},
        "q4": True,
        "1": {"value": "a"},  # an answer stored by the question's index
    }
    flat = answers.flatten(stored, questions)
    by_column = {a.column: a for a in flat}
    assert [a.column for a in flat] == ["q1", "q2", "q3", "q4", "1"]
    assert by_column["q1"].question == "What do you do?"
    assert by_column["q1"].text == "I buy software for a living"
    assert by_column["q1"].words == 6 and by_column["q1"].pasted is True
    assert (by_column["q2"].question, by_column["q2"].text, by_column["q2"].words) == ("Which plan?", "Pro", 0)
    assert by_column["q3"].text == "Excel, other (other: Notion)"
    assert by_column["q4"].text == "Yes" and not by_column["q4"].pasted
    assert (by_column["1"].question, by_column["1"].text) == ("Which plan?", "Basic")


def test_flatten_highlight_block_lists_with_question_keys():
    questions = [
        {"key": "fi-1", "text": "First impression?", "type": "text"},
        {"key": "area-1", "text": "What does this block say?", "type": "text"},
        {"key": "post-1", "text": "Rate the page", "type": "rating"},
    ]
    stored = {
        "first-impression": [{"type": "text", "value": "Clean and clear", "questionKey": "fi-1"}],
        "highlight-1": [
            {"type": "text", "value": "Pricing", "questionKey": "area-1", "pasteMetadata": {"wasPasted": True}}
        ],
        "post-test": [{"type": "rating", "value": 4, "questionKey": "post-1"}],
    }
    flat = answers.flatten(stored, questions)
    assert [(a.column, a.question, a.text, a.words, a.pasted) for a in flat] == [
        ("first-impression.fi-1", "First impression?", "Clean and clear", 3, False),
        ("highlight-1.area-1", "What does this block say?", "Pricing", 1, True),
        ("post-test.post-1", "Rate the page", "4", 0, False),
    ]


def test_flatten_preference_answer_under_the_questions_the_participant_read():
    content = {
        "preferenceType": "image",
        "initialQuestion": "Not shown to participants",
        "customInitialQuestion": "Which design do you prefer?",
        "customFollowUpQuestion": "Why this one?",
        "images": [{"key": "c1", "name": "Blue"}, {"key": "c2", "name": "Green"}],
    }
    stored = {"selectedConcept": "c2", "answer": "It looks calm and friendly", "pasteMetadata": {"wasPasted": True}}
    flat = answers.flatten(stored, [], content)
    assert [(a.column, a.question, a.text, a.words, a.pasted) for a in flat] == [
        ("selectedConcept", "Which design do you prefer?", "Green", 0, False),
        ("answer", "Why this one?", "It looks calm and friendly", 5, True),
    ]
    # No custom wording: the defaults participants read, with the chosen concept's letter in the order they saw.
    plain = {k: v for k, v in content.items() if not k.startswith("custom")}
    flat = answers.flatten(stored, [], plain, ["c2", "c1"])
    assert [(a.question, a.text) for a in flat] == [
        ("Which one do you like better?", "Green"),
        ("Why did you choose concept A?", "It looks calm and friendly"),
    ]
    # A text test: the concept is its text, in the test's order.
    texts = {"preferenceType": "text", "textOptions": {"optionOne": "Fast", "optionTwo": "Clear"}}
    flat = answers.flatten({"selectedConcept": "Clear", "answer": "Short"}, [], texts)
    assert [(a.question, a.text) for a in flat] == [
        ("Read these options and choose one of them.", "Clear"),
        ("Why did you choose concept B?", "Short"),
    ]
    # Without the test's content: the concept's key and default titles.
    bare = answers.flatten({"selectedConcept": "c9", "answer": None}, [])
    assert [(a.question, a.text, a.words) for a in bare] == [("Chosen concept", "c9", 0), ("Why", "", 0)]


def test_flatten_matrix_answers_in_labels():
    question = {
        "key": "m",
        "type": "matrix",
        "text": "How much do you agree?",
        "statements": [{"value": "s1", "label": "Easy to use"}, {"value": "s2", "label": "Good value"}],
        "answers": [{"value": "a1", "label": "Disagree"}, {"value": "a2", "label": "Agree"}],
    }
    [one] = answers.flatten({"m": {"value": {"s2": ["a1"], "s1": ["a2", "a1"]}}}, [question])
    assert (one.question, one.text) == ("How much do you agree?", "Easy to use: Agree, Disagree; Good value: Disagree")


def test_flatten_empty_answers():
    assert answers.flatten({}, []) == []
    [only] = answers.flatten({"q1": None}, [{"key": "q1", "text": "Anything?"}])
    assert (only.question, only.text, only.words) == ("Anything?", "", 0)
