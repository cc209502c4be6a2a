"""Requests and answers of /api/v1/tests/{id}/invites and /api/v1/invites."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Literal

from fastapi import Path
from pydantic import BaseModel, ConfigDict, Field

from portal.domain import invites as rules
from portal.domain.ids import MAX_VALUE
from portal.domain.staff import incentives
from portal.domain.table import MAX_FILTER_VALUES
from portal.services.admin.participant_sets import MAX_PICKED
from portal.services.admin.participants import TABLE as PARTICIPANTS

InviteId = Annotated[int, Path(ge=1, le=MAX_VALUE, description="The invite's id.")]
# The choices are the domain's own tuples (mypy reads them as plain strings).
if TYPE_CHECKING:
    InviteStatus = str
    FilterName = str
else:
    InviteStatus = Literal[rules.STATUSES]
    FilterName = Literal[tuple(PARTICIPANTS.filters_allowed)]


def _options() -> str:
    lines = []
    for name, spec in PARTICIPANTS.filters_allowed.items():
        if spec["type"] == "range":
            lines.append(f"`{name}`: two dates, YYYY-MM-DD (type `range`)")
        elif name == "country":
            lines.append("`country`: ISO 3166-1 alpha-2 codes (`US`, `DE`, ...)")
        else:
            lines.append(f"`{name}`: " + ", ".join(f"`{o}`" for o in spec["options"]))
    return "; ".join(lines)


class InviteOut(BaseModel):
    id: int
    test_id: int
    participant_id: int
    status: InviteStatus = Field(description="As the participant sees it: an open invite past its time is expired.")
    amount_cents: int = Field(description="What the participant earns by this invite.")
    sent_at: datetime
    expires_at: datetime
    batch_id: int | None = Field(description="The batch that sent it (null for invites made otherwise).")


class InviteFilterIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: FilterName = Field(description="A filter of the participants table. Options: " + _options() + ".")
    type: Literal["list", "exclude", "range"] | None = Field(
        default=None,
        description="`list` (the participants with one of the values), `exclude` (all but them), or `range` (dates, "
        "`createdOn` only). Default: `range` for `createdOn`, else `list`.",
    )
    values: list[str] = Field(min_length=1, max_length=MAX_FILTER_VALUES)


class SendInvitesIn(BaseModel):
    """Who to invite: the participants table's search and filters, or participants picked by id. Every condition of
    the invite rule still applies (verified, in the test's country, not invited or reviewed before, the exclusion
    window, the quotas)."""

    model_config = ConfigDict(extra="forbid")

    search: str = Field(default="", max_length=200, description="The participants table's search (name, e-mail).")
    filters: list[InviteFilterIn] = Field(default_factory=list, max_length=20)
    participant_ids: list[Annotated[int, Field(ge=1, le=MAX_VALUE)]] | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PICKED,
        description="Invite these participants (the search and filters are then not used).",
    )
    payout_cents: int | None = Field(
        default=None,
        description=f"What each invite pays, from {incentives.MIN_OVERRIDE_CENTS} to {incentives.MAX_OVERRIDE_CENTS} "
        "cents; by default the incentive table's rate for the participant's seniority.",
    )


class InviteBatchOut(BaseModel):
    id: int = Field(description="The batch's id.")
    test_id: int
    requested: int = Field(description="Who the batch was for when it started.")
    sent: int = Field(description="Invites sent.")
    skipped: int = Field(description="Counted at the start but not invited (a quota filled meanwhile, ...).")
    status: Literal["done", "failed", "running"]
    error: str = Field(description="Why the batch stopped early ('' when it did not).")
    joined: bool = Field(description="The same batch was already being sent (another request or a staff page).")
    note: str = Field(description="Who matched but cannot be invited, and why ('' when everyone could).")


class InviteAudienceOut(BaseModel):
    matched: int = Field(description="Participants matching the search and filters (or picked).")
    invited: int = Field(description="... already invited to this test.")
    reviewed: int = Field(description="... who already reviewed it.")
    excluded: int = Field(description="... who took a test within the test's exclusion window.")
    unverified: int
    elsewhere: int = Field(description="... not in the test's audience country.")
    over_quota: int
    to_invite: int = Field(description="Who a batch would invite now.")
    places: int | None = Field(description="Open places of the test's participant limit (null: no limit).")
    cost_cents: int
    cost_text: str
    payout_range: str
    picked: int
    country: str
    problem: str = Field(description="Who cannot be invited, and why ('' when everyone can).")
