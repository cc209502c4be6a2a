"""Who a staff batch invites to a test, in what order, at what cost: the one rule behind the invite
page's counts and the sender (services/admin/invites.py).

A participant matching the batch's search and filters (or picked by hand) is invited when, in this
order of reasons (the first that fails is the one shown):
  1. not already invited to the test (any invite, whatever its status),
  2. not already reviewed it,
  2b. not in the test's exclusion window: nobody who took (submitted a review of) any test within the
     window's days (all: ever; none: nobody is excluded; spec section 9, Test.exclusion_days),
  3. verified (the flag the test's access rules ask for: `test_access.decide_access`, rule 9),
  4. in the test's audience country (the profile's country),
and, taken in account order (ids ascending, as the sender goes), while the quotas have room:
  5. the test's participant limit (reviews and open invites count) and the limit of their seniority
     level (the first of their levels that has a limit).
Staff accounts, deactivated accounts and unfinished sign-ups are never invited (not counted as
matching at all). The database conditions of 1-4 live in the service, one per reason key below; the
quotas and the payout are decided here, for the count and for the send alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from portal.domain import table as table_rules
from portal.domain.staff import incentives

INVITED, REVIEWED, EXCLUDED, UNVERIFIED, ELSEWHERE, OVER_QUOTA, NOT_A_PARTICIPANT = (
    "invited",
    "reviewed",
    "excluded",
    "unverified",
    "elsewhere",
    "over_quota",
    "not_a_participant",
)
# The order in which a reason is named for someone who fails several.
REASON_ORDER = (NOT_A_PARTICIPANT, INVITED, REVIEWED, EXCLUDED, UNVERIFIED, ELSEWHERE, OVER_QUOTA)
ALL_TIME, NO_WINDOW = -1, 0


def excludes(days: int) -> bool:
    """Whether the exclusion window keeps anybody out (none: nobody)."""
    return days != NO_WINDOW


def window_start(days: int, now: datetime) -> datetime | None:
    """Since when a review of any test keeps a participant out (None: ever, for the window 'all')."""
    return None if days == ALL_TIME else now - timedelta(days=days)


def window_text(days: int) -> str:
    return "before" if days == ALL_TIME else f"in the last {days} days"


def _reason_text(reason: str, count: int, country: str, window: int = NO_WINDOW) -> str:
    one = count == 1
    return {
        EXCLUDED: f"{count} took a test {window_text(window)} (the exclusion window)",
        NOT_A_PARTICIPANT: f"{count} {'is' if one else 'are'} staff, deactivated or without a finished sign-up",
        INVITED: f"{count} {'is' if one else 'are'} already invited",
        REVIEWED: f"{count} already reviewed the test",
        UNVERIFIED: f"{count} {'is' if one else 'are'} not verified",
        ELSEWHERE: f"{count} {'is' if one else 'are'} not in {country}",
        OVER_QUOTA: f"{count} would exceed the test's quotas",
    }[reason]


def cannot_invite_text(reasons: Mapping[str, int], country: str, *, picked: int, window: int = NO_WINDOW) -> str:
    """'2 of the 5 selected cannot be invited: 1 is not verified, 1 is not in United States.' ('' when all can)."""
    parts = [_reason_text(r, reasons[r], country, window) for r in REASON_ORDER if reasons.get(r, 0) > 0]
    if not parts:
        return ""
    total = sum(reasons.get(r, 0) for r in REASON_ORDER)
    subject = f"{total} of the {picked} selected" if picked else f"{total} of those matching"
    verb = "cannot" if picked else "will not"
    return f"{subject} {verb} be invited: {', '.join(parts)}."


@dataclass
class Quotas:
    """The room a test has left: `places` under its participant limit (None: no limit) and per
    seniority level with a limit. `admit` takes one place for a participant, or says there is none."""

    places: int | None
    level_places: dict[str, int] = field(default_factory=dict)

    def quota_level(self, levels: Iterable[str] | None) -> str | None:
        return next((lvl for lvl in levels or () if lvl in self.level_places), None)

    @property
    def full(self) -> bool:
        """Nobody more can be invited (the participant limit is reached)."""
        return self.places is not None and self.places <= 0

    def admit(self, levels: Iterable[str] | None) -> bool:
        if self.full:
            return False
        level = self.quota_level(levels)
        if level is not None and self.level_places[level] <= 0:
            return False
        if self.places is not None:
            self.places -= 1
        if level is not None:
            self.level_places[level] -= 1
        return True


def open_places(limit: int | None, taken: int) -> int | None:
    """Places left under a participant limit of which `taken` are used (reviews and open invites)."""
    return None if limit is None else max(0, limit - taken)


def level_room(limits: Mapping[str, object] | None, used: Mapping[str, int]) -> dict[str, int]:
    """Places left per seniority level that has a (whole-number) limit."""
    return {
        level: max(0, limit - used.get(level, 0))
        for level, limit in (limits or {}).items()
        if isinstance(limit, int) and not isinstance(limit, bool)
    }


def quota_holder_level(levels: Iterable[str] | None, limits: Iterable[str]) -> str | None:
    """The seniority quota a reviewer or invitee fills: the first of their levels that has a limit."""
    limited = set(limits)
    return next((lvl for lvl in levels or () if lvl in limited), None)


def invite_cents(product_type: str, levels: Iterable[str] | None, day: str, override_cents: int | None) -> int:
    """What one invite pays: the batch's override, else the incentive table for the participant's level."""
    return override_cents if override_cents else incentives.payout_cents(product_type, levels or (), day)


@dataclass
class Plan:
    """The invites a batch would send, in order: how many, and what they cost together."""

    count: int = 0
    cents: int = 0
    over_quota: int = 0

    def add(self, cents: int) -> None:
        self.count += 1
        self.cents += cents

    @property
    def cost_text(self) -> str:
        return table_rules.format_money(self.cents) or "$0"
