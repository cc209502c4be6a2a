"""Requests and answers of /api/v1/rewards."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from portal.api.schemas.text import Text
from portal.domain import bonuses
from portal.domain.ids import MAX_VALUE

PaymentStatus = Literal["PENDING", "EXECUTED", "FAILED", "CANCELED"]
RewardKind = Literal["review", "referral-bonus", "pro-rata", "bonus"]


class RewardOut(BaseModel):
    id: int
    kind: RewardKind = Field(description="What the reward is for: a review, a referral, a pro-rata share, a bonus.")
    participant_id: int | None = Field(description="The participant's account (null for a crowd-work respondent).")
    participant: str | None = Field(description="The participant's e-mail.")
    review_id: int | None
    test_id: int | None
    test_name: str | None
    amount_cents: int
    status: PaymentStatus = Field(description="The payment status.")
    state: str = Field(description="Where the payment is, as staff read it (In review, Approved, Sent, Paid, ...).")
    payable: bool = Field(description="Approved and not paid yet.")
    created_at: datetime
    approved_at: datetime | None
    paid_on: datetime | None
    payout: str | None = Field(description="The payout provider's stage: sending, sent, paid, failed, canceled.")
    provider: str | None
    provider_status: str | None
    failure_reason: str | None


class BonusIn(BaseModel):
    participant_id: int = Field(ge=1, le=MAX_VALUE, description="The participant given the bonus.")
    review_id: int | None = Field(
        default=None, ge=1, le=MAX_VALUE, description="The participant's review the bonus is for."
    )
    test_id: int | None = Field(
        default=None,
        ge=1,
        le=MAX_VALUE,
        description="The test the bonus is for (the participant has a review of it or an invite to it); "
        "not needed with review_id.",
    )
    amount_cents: int = Field(description=f"From {bonuses.MIN_CENTS} to {bonuses.MAX_CENTS} cents.", examples=[500])
    note: Text | None = Field(
        default=None, description=f"Why; at most {bonuses.NOTE_MAX} characters (in the audit log)."
    )
