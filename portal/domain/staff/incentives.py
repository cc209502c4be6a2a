"""The participant incentive table (test-taking spec, section 9) and how an invite's payout is chosen.

Decisions (docs/decisions.md, 'Invites'):
- day1 is an invite sent within the first 24 hours after the test was launched; every later invite
  (a top-up when the first wave did not fill the test) pays the day2 rate.
- The table has three levels. Founder pays as middle (the spec's flat hourly rate puts founder with
  middle); a customer's 'custom' level and a profile without a level pay as specialist. A participant
  with two levels gets the better-paid one.
- Product types map to the spec's rows below; a type that is in none pays as survey/standard.
- A batch may override the payout: from MIN_OVERRIDE_CENTS to MAX_OVERRIDE_CENTS per invite.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

LEVELS = ("specialist", "middle", "senior")
LEVEL_OF = {
    "specialist": "specialist",
    "middle": "middle",
    "senior": "senior",
    "founder": "middle",
    "custom": "specialist",
}
DAY1, DAY2 = "day1", "day2"
DAY1_HOURS = 24

# Dollars per level, (day1, day2).
_TABLE: dict[str, dict[str, tuple[int, int]]] = {
    "survey": {"specialist": (10, 15), "middle": (20, 25), "senior": (35, 45)},
    "landing": {"specialist": (5, 10), "middle": (10, 15), "senior": (20, 25)},
    "preference": {"specialist": (5, 5), "middle": (10, 15), "senior": (20, 25)},
    "video": {"specialist": (20, 25), "middle": (35, 40), "senior": (65, 75)},
    "brand": {"specialist": (10, 15), "middle": (15, 20), "senior": (35, 40)},
}
ROW_LABELS = {
    "survey": "Survey / standard",
    "landing": "Landing page and pricing test",
    "preference": "Preference and single-question",
    "video": "Video test and ICP Pulse",
    "brand": "Brand survey",
}
_ROW_OF_TYPE = {
    "survey": "survey",
    "standard": "survey",
    "market-research": "survey",
    "category-buyer-insights": "survey",
    "b2b-user-testing": "survey",
    "landing-page": "landing",
    "full-page": "landing",
    "pricing-test": "landing",
    "competitor-comparison": "landing",
    "preference-test": "preference",
    "single-question-survey": "preference",
    "video-test": "video",
    "icp-pulse-cbi": "video",
    "icp-pulse-brand-survey": "brand",
}
DEFAULT_ROW = "survey"

MIN_OVERRIDE_CENTS = 100
MAX_OVERRIDE_CENTS = 50_000
OVERRIDE_OUT_OF_RANGE = f"The payout must be between ${MIN_OVERRIDE_CENTS // 100} and ${MAX_OVERRIDE_CENTS // 100:,}."


def row_of(product_type: str) -> str:
    return _ROW_OF_TYPE.get(product_type, DEFAULT_ROW)


def level_of(levels: Iterable[str]) -> str:
    """The incentive level of a participant's seniority levels (the better-paid one)."""
    mapped = {LEVEL_OF.get(level, "specialist") for level in levels or ()}
    for level in reversed(LEVELS):
        if level in mapped:
            return level
    return "specialist"


def day_of(launched_at: datetime | None, now: datetime) -> str:
    """day1 within the first 24 hours after launch (a test not launched yet is on day 1)."""
    if launched_at is None:
        return DAY1
    if launched_at.tzinfo is None and now.tzinfo is not None:
        now = now.replace(tzinfo=None)
    return DAY1 if now - launched_at < timedelta(hours=DAY1_HOURS) else DAY2


def payout_cents(product_type: str, levels: Iterable[str], day: str) -> int:
    day1, day2 = _TABLE[row_of(product_type)][level_of(levels)]
    return 100 * (day1 if day == DAY1 else day2)


def table_rows() -> list[tuple[str, str, int, int]]:
    """(row label, level, day1 dollars, day2 dollars) for showing the table."""
    return [(ROW_LABELS[row], level, *_TABLE[row][level]) for row in _TABLE for level in LEVELS]


def override_problem(cents: object) -> str:
    """'' when a batch override is acceptable (None means no override)."""
    if cents is None:
        return ""
    if isinstance(cents, bool) or not isinstance(cents, int) or not MIN_OVERRIDE_CENTS <= cents <= MAX_OVERRIDE_CENTS:
        return OVERRIDE_OUT_OF_RANGE
    return ""


def dollars_as_cents(text: object) -> int | None:
    """A sum typed in dollars ('25', '25.50', '$30', '1,000') as cents; None when empty; ValueError when
    not a sum. Only ASCII digits: '²' and other Unicode digits pass str.isdigit() but not int()."""
    if text is None or (isinstance(text, str) and not text.strip()):
        return None
    if not isinstance(text, str):
        raise ValueError("not a sum")
    cleaned = text.strip().removeprefix("$").replace(",", "")
    whole, _, part = cleaned.partition(".")
    if (
        not cleaned.isascii()
        or not whole.isdigit()
        or (part and (not part.isdigit() or len(part) > 2))
        or len(whole) > 7
    ):
        raise ValueError("not a sum")
    return int(whole) * 100 + (int(part.ljust(2, "0")) if part else 0)


def parse_dollars(text: object) -> int | None | str:
    """A typed override in dollars as cents; None when empty; the message when not a sum or out of range."""
    try:
        cents = dollars_as_cents(text)
    except ValueError:
        return OVERRIDE_OUT_OF_RANGE
    if cents is None:
        return None
    return override_problem(cents) or cents


def _dollars(cents: int) -> str:
    dollars, rest = divmod(cents, 100)
    return f"${dollars:,}" if rest == 0 else f"${dollars:,}.{rest:02d}"


def invitee_rates(product_type: str) -> list[tuple[str, str, str]]:
    """What invitees to a test of this product type earn: (level, day 1, day 2) in dollars, by the table's row
    (founder pays as middle, custom and no level as specialist)."""
    row = _TABLE[row_of(product_type)]
    return [(level, f"${row[level][0]}", f"${row[level][1]}") for level in LEVELS]


def payout_note(product_type: str, payout_cents: object) -> str:
    """Why the test's own payout and what invites pay may differ, said where they differ ('' when the payout
    is one of the table's amounts for this product type, or is not a sum yet)."""
    if isinstance(payout_cents, bool) or not isinstance(payout_cents, int):
        return ""
    row = _TABLE[row_of(product_type)]
    amounts = sorted({100 * day for level in LEVELS for day in row[level]})
    if payout_cents in amounts:
        return ""
    return (
        f"This test's payout ({_dollars(payout_cents)}) is not what invitees earn: an invite pays "
        f"{_dollars(amounts[0])} to {_dollars(amounts[-1])} by the table above (or a batch's override). "
        "The test's payout goes to people who take it without an invite."
    )
