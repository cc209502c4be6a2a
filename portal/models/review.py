"""Review sessions (a test in progress), reviews (submitted answers), rewards, screener responses."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Index, UniqueConstraint, event, select
from sqlmodel import Field, SQLModel

from portal.models._base import created_field, json_field, utcnow
from portal.models.test import Test


class ReviewSession(SQLModel, table=True):
    """A started test: the server deadline and the draft answers, saved on every change."""

    __tablename__ = "review_session"
    __table_args__ = (
        Index("ix_review_session_test_respondent", "test_id", "respondent_key"),
        # Staff: the expired pending reviews to clear.
        Index("ix_review_session_status_deadline", "status", "deadline_at"),
    )

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    # The version of the test's definition this session is taken on (portal/models/test.py, TestVersion).
    version_id: int | None = Field(default=None, foreign_key="test_version.id", index=True)
    account_id: int | None = Field(default=None, foreign_key="account.id", index=True, ondelete="CASCADE")
    # 'account:<id>' or 'respondent:<project>:<participant>' or 'worker:<id>'
    respondent_key: str = Field(max_length=300)
    started_at: datetime = created_field()
    deadline_at: datetime
    extensions: int = Field(default=0)
    # active | submitted | expired | cleared | restarted
    status: str = Field(default="active", max_length=16)
    draft_answers: dict[str, Any] = json_field(dict)
    # Where the participant is: {step, subStep, navigationHistory}.
    draft_position: dict[str, Any] = json_field(dict)
    updated_at: datetime = Field(default_factory=utcnow, nullable=False)


class Review(SQLModel, table=True):
    """Submitted answers. One per session, and one per participant and test."""

    __tablename__ = "review"
    __table_args__ = (
        UniqueConstraint("test_id", "respondent_key", name="uq_review_test_respondent"),
        Index("ix_review_account_created", "account_id", "created_at"),
        # Staff: a test's reviews by date; the automatic approval's due reviews.
        Index("ix_review_test_created", "test_id", "created_at"),
        Index("ix_review_status_created", "status", "created_at"),
        # Staff: every review, newest first (bench/admin_tables.py).
        Index("ix_review_created_id", "created_at", "id"),
        # The flags job: the reviews decided since a test's flags were computed (a participant's earlier decisions).
        Index("ix_review_decided_at", "decided_at"),
        # A crowd-work completion code names one review (migration 0021; portal/domain/partners.py).
        Index("uq_review_survey_code", "survey_code", unique=True),
    )

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", index=True, ondelete="CASCADE")
    # The version of the test's definition the answers were given on: shown, exported and validated by it.
    version_id: int | None = Field(default=None, foreign_key="test_version.id", index=True)
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    respondent_key: str = Field(max_length=300)
    session_id: int | None = Field(default=None, foreign_key="review_session.id", unique=True)
    kind: str = Field(max_length=16)  # survey | highlight | preference
    # Answers as submitted, each text answer with its pasteMetadata when pasted.
    answers: dict[str, Any] = json_field(dict)
    worker_data: dict[str, Any] = json_field(dict)
    options_order: list[str] = json_field(list)
    survey_code: str | None = Field(default=None, max_length=64)
    # Reading signals measured while the test was taken (seconds on the pre-check, scroll depth,
    # seconds per block): quality signals for staff. {} for reviews stored before they existed.
    signals: dict[str, Any] = json_field(dict)
    created_at: datetime = created_field()
    # Staff's decision (portal/domain/staff/reviews.py): submitted | approved | excluded | rejected.
    status: str = Field(default="submitted", max_length=16, sa_column_kwargs={"server_default": "submitted"})
    decided_at: datetime | None = None
    decided_by_id: int | None = None  # the staff account (no foreign key: the decision outlives it)
    reject_reason: str | None = Field(default=None, max_length=40)
    reject_note: str | None = Field(default=None, max_length=1000)
    # The evidence a rejection rests on (migration 0010), shown to the participant: flag keys staff chose
    # (portal/domain/staff/reviews.py, EVIDENCE_FLAGS) and a short text. NULL when none was given.
    reject_flags: list[str] | None = Field(default=None, sa_type=JSON)
    reject_evidence: str | None = Field(default=None, max_length=500)


class ReviewAppeal(SQLModel, table=True):
    """A participant's one appeal against a rejection (migration 0010; portal/domain/staff/appeals.py).
    status: open | overturned | upheld. Decided by a staff member other than the one who rejected."""

    __tablename__ = "review_appeal"
    __table_args__ = (
        UniqueConstraint("review_id", name="uq_review_appeal_review"),
        # Staff: the open appeals, oldest first.
        Index("ix_review_appeal_status_created", "status", "created_at"),
    )

    id: int = Field(default=None, primary_key=True)
    review_id: int = Field(foreign_key="review.id", ondelete="CASCADE")
    account_id: int = Field(foreign_key="account.id", index=True, ondelete="CASCADE")
    message: str = Field(max_length=2000)
    created_at: datetime = created_field()
    status: str = Field(default="open", max_length=16, sa_column_kwargs={"server_default": "open"})
    decided_by_id: int | None = None  # the staff account (no foreign key: the decision outlives it)
    decided_at: datetime | None = None
    decision_note: str | None = Field(default=None, max_length=1000)


class ReviewFlag(SQLModel, table=True):
    """One quality flag of a review (migration 0011; portal/domain/quality/flags.py): evidence for staff, never a
    decision. Written for a whole test at once by the flags job (portal/services/quality_flags.py), which replaces a
    test's rows each time it recomputes them (the medians and the shared texts move with every new review)."""

    __tablename__ = "review_flag"
    __table_args__ = (
        UniqueConstraint("review_id", "key", name="uq_review_flag_review_key"),
        # Staff: the reviews raising a flag (the reviews table's filter).
        Index("ix_review_flag_key_review", "key", "review_id"),
    )

    id: int = Field(default=None, primary_key=True)
    review_id: int = Field(foreign_key="review.id", ondelete="CASCADE")
    key: str = Field(max_length=32)  # domain/quality/flags.KEYS
    label: str = Field(max_length=400)  # plain language, with the value and the median where one applies
    strength: float  # to sort by, the strongest first
    value: float
    median: float | None = None


class QualityRun(SQLModel, table=True):
    """When a test's flags were last computed (migration 0011), and the medians of its signals then.

    `reviews` is how many reviews the test had when they were computed: a test whose count differs is due again.
    `round` counts the computations; the one that writes names the round it read (`UPDATE ... WHERE round =
    :read`), so two workers computing the same test at once write its flags once."""

    __tablename__ = "quality_run"

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", unique=True, ondelete="CASCADE")
    round: int = Field(default=0)
    reviews: int = Field(default=0)
    last_review_id: int = Field(default=0)  # the newest review covered (a newer one: 'Flags not checked yet')
    computed_at: datetime | None = None
    # {signal name: median} of every signal measured by at least 5 reviews ('total': the whole test's seconds),
    # shown on each review's evidence card.
    medians: dict[str, Any] = json_field(dict)


class Reward(SQLModel, table=True):
    """A payout: for a review (kind 'review'), or the referral bonus of a referrer (kind 'referral-bonus', no review).

    status is the spec's payment status: PENDING | EXECUTED | FAILED | CANCELED. `payout` is where the money is on its
    way (migration 0012; portal/domain/payouts.py): NULL (not ordered) | sending | sent | paid | failed | canceled,
    mirrored to status (sending and sent are PENDING, paid EXECUTED, failed FAILED, canceled CANCELED).

    test_id and product_type are copies of the review's test and its type (they never change for a review), so that
    the rewards table sorts and searches a participant's rewards without joining review and test (migration 0005).
    They are filled on insert from review_id when not given (see _fill_test_columns); a bonus has neither.
    """

    __tablename__ = "reward"
    __table_args__ = (
        # The rewards table: a participant's page of ids in (created_at, id) order, from the index alone.
        Index(
            "ix_reward_account_created_id", "account_id", "created_at", "id", postgresql_include=["review_id", "status"]
        ),
        # ... sorted by test type: the page's ids in (product_type, id) order.
        Index("ix_reward_account_type_id", "account_id", "product_type", "id"),
        # ... searched: the account's rewards for the tests that match.
        Index("ix_reward_account_test", "account_id", "test_id"),
        # Staff: rewards by status (payable ones first); every reward, newest first (bench/admin_tables.py).
        Index("ix_reward_status_created", "status", "created_at"),
        Index("ix_reward_created_id", "created_at", "id"),
        # The payout job: rewards to order, and orders to retry or reconcile, by when they are next due.
        Index("ix_reward_payout_next", "payout", "next_attempt_at"),
        # A provider's webhook names its own reward id.
        Index("ix_reward_provider_reward", "provider_reward_id"),
    )

    id: int = Field(default=None, primary_key=True)
    review_id: int | None = Field(default=None, foreign_key="review.id", unique=True, ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    amount_cents: int
    status: str = Field(default="PENDING", max_length=16)
    paid_on: datetime | None = None
    created_at: datetime = created_field()
    # Set when the review is approved: the reward is then payable (and expected within 5 business days).
    approved_at: datetime | None = None
    # Copies of review.test_id and test.product_type (no foreign key: the review's own cascades); NULL for a bonus.
    test_id: int | None = Field(default=None)
    product_type: str | None = Field(default=None, max_length=40)
    # review | referral-bonus (migration 0012)
    kind: str = Field(default="review", max_length=20, sa_column_kwargs={"server_default": "review"})
    # The referee whose first paid reward earned this bonus: one bonus per referee (unique).
    referral_member_id: int | None = Field(
        default=None, foreign_key="referral_member.id", unique=True, ondelete="SET NULL"
    )
    # The payout (migration 0012): its state, the provider and its ids, what the provider last said.
    payout: str | None = Field(default=None, max_length=16)
    provider: str | None = Field(default=None, max_length=20)
    provider_order_id: str | None = Field(default=None, max_length=40)
    provider_reward_id: str | None = Field(default=None, max_length=40)
    provider_status: str | None = Field(default=None, max_length=40)
    failure_reason: str | None = Field(default=None, max_length=300)
    payment_email: str | None = Field(default=None, max_length=320)  # where the rewards link was sent
    ordered_at: datetime | None = None
    sent_at: datetime | None = None
    attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    next_attempt_at: datetime | None = None  # when the job next orders, retries or asks the provider
    last_event_at: datetime | None = None  # the newest provider event applied (older ones are not applied)


class PayoutEvent(SQLModel, table=True):
    """A provider's webhook, recorded once (migration 0012): a repeat of the same event id changes nothing."""

    __tablename__ = "payout_event"
    __table_args__ = (UniqueConstraint("provider", "event_id", name="uq_payout_event_provider_event"),)

    id: int = Field(default=None, primary_key=True)
    provider: str = Field(max_length=20)
    event_id: str = Field(max_length=80)
    name: str = Field(max_length=80)
    resource_id: str = Field(max_length=80)
    happened_at: datetime  # the provider's time of the event
    received_at: datetime = created_field()
    outcome: str = Field(default="", max_length=200)  # what it changed, in words


@event.listens_for(Reward, "before_insert")
def _fill_test_columns(mapper: Any, connection: Any, target: Reward) -> None:
    """Every reward inserted through the ORM carries its review's test id and product type."""
    if (target.test_id is not None and target.product_type is not None) or target.review_id is None:
        return
    found = connection.execute(
        select(Review.test_id, Test.product_type)
        .join(Test, Test.id == Review.test_id)
        .where(Review.id == target.review_id)
    ).first()
    if found is not None:
        target.test_id, target.product_type = found.test_id, found.product_type


class ScreenerResponse(SQLModel, table=True):
    __tablename__ = "screener_response"
    __table_args__ = (
        UniqueConstraint("test_id", "respondent_key", name="uq_screener_test_respondent"),
        # The home table: did this person fail the screener of an invite's test (migration 0019).
        Index("ix_screener_response_account_test", "account_id", "test_id"),
    )

    id: int = Field(default=None, primary_key=True)
    test_id: int = Field(foreign_key="test.id", ondelete="CASCADE")
    account_id: int | None = Field(default=None, foreign_key="account.id", ondelete="CASCADE")
    respondent_key: str = Field(max_length=300)
    selected_answers: dict[str, Any] = json_field(dict)
    is_passed: bool
    created_at: datetime = created_field()
