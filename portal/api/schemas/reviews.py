"""Requests and answers of /api/v1/reviews."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from pydantic import BaseModel, Field

from portal.api.schemas.text import Text
from portal.domain.ids import MAX_VALUE
from portal.domain.staff import reviews as decisions
from portal.services.admin.reviews import MAX_BULK

ReviewStatus = Literal["submitted", "approved", "excluded", "rejected"]
REASONS = ", ".join(f"`{key}` ({label})" for key, label in decisions.REJECTION_REASONS.items())
EVIDENCE_FLAGS = ", ".join(f"`{key}`" for key in decisions.EVIDENCE_FLAGS)


class ReviewAnswerOut(BaseModel):
    question: str = Field(description="The question as the review's version of the test asks it.")
    text: str = Field(description="The answer as staff read it (choices by their labels).")
    words: int
    pasted: bool = Field(description="Whether the participant pasted the answer.")


class QualityFlagOut(BaseModel):
    key: str = Field(description="The flag's key (for example `speeder`, `copied`, `pasted`).")
    title: str
    label: str = Field(description="What raised it, in words.")


class QualitySignalOut(BaseModel):
    label: str
    value: str
    median: str = Field(description="The test's median of the same signal, as last computed.")


class ReviewRewardOut(BaseModel):
    id: int
    amount_cents: int
    status: str = Field(description="The payment status: PENDING, EXECUTED, FAILED or CANCELED.")
    payable: bool = Field(description="Approved and not paid yet.")


class ReviewOut(BaseModel):
    id: int
    test_id: int
    test_name: str
    version: int | None = Field(description="The number of the test's version the answers were given on.")
    participant_id: int | None = Field(description="The participant's account (null for a crowd-work respondent).")
    participant: str = Field(description="The participant's e-mail, or the respondent's key.")
    status: ReviewStatus
    submitted_at: datetime
    decided_at: datetime | None
    reject_reason: str | None = Field(description="The rejection's reason key.")
    reject_note: str | None
    time_taken_seconds: int | None
    words: int = Field(description="Words written in all answers.")
    pasted_answers: int
    flags: list[QualityFlagOut] = Field(description="The quality flags the review raised, the strongest first.")
    flags_checked: bool = Field(description="Whether the flags were computed since the review was submitted.")
    reward: ReviewRewardOut | None
    answers: list[ReviewAnswerOut]


class ReviewDetailOut(ReviewOut):
    status_label: str
    reject_reason_label: str | None
    evidence: str | None = Field(description="The evidence of a rejection, as the participant reads it.")
    flags_checked_text: str
    signals: list[QualitySignalOut] = Field(description="The evidence card: the review's signals beside the medians.")


class RejectIn(BaseModel):
    reason: str = Field(
        description=f"One of: {REASONS}.", json_schema_extra={"examples": list(decisions.REJECTION_REASONS)}
    )
    note: Text | None = Field(default=None, description=f"At most {decisions.NOTE_MAX} characters.")
    flags: list[str] | None = Field(
        default=None, description=f"The evidence's flag keys, for example {EVIDENCE_FLAGS}."
    )
    evidence: Text | None = Field(default=None, description=f"At most {decisions.EVIDENCE_MAX} characters.")


class DecisionsIn(BaseModel):
    review_ids: list[Annotated[int, Field(ge=1, le=MAX_VALUE)]] = Field(
        min_length=1, max_length=MAX_BULK, description=f"1 to {MAX_BULK} review ids.", examples=[[1, 2]]
    )
    decision: Literal["approve", "exclude", "reject"]
    reason: str | None = Field(default=None, description=f"Required to reject; one of: {REASONS}.")
    note: Text | None = Field(default=None, description=f"At most {decisions.NOTE_MAX} characters (rejections).")
    flags: list[str] | None = Field(default=None, description="The evidence's flag keys (rejections).")
    evidence: Text | None = Field(default=None, description=f"At most {decisions.EVIDENCE_MAX} characters.")


class DecidedReviewOut(BaseModel):
    id: int
    status: ReviewStatus
    reward_id: int | None
    reward_status: str | None


class DecisionOut(BaseModel):
    decided: int = Field(description="How many reviews this request decided (0 for those decided before).")
    reviews: list[DecidedReviewOut] = Field(description="Each review asked for, as it is now.")
