"""The quality flags job (issue 36, item 2): each test's review flags, computed for the whole test and stored.

A review's flags depend on its test: the medians (a speeder is measured against them) and the texts of the other
reviews (a copy). So they are computed per test (portal/domain/quality/flags.py) and stored (review_flag), and the
reviews table shows and filters them without computing anything.

A test is due when its number of reviews differs from the one its flags were computed for, or when a participant
of the test had a review decided on another test since (their earlier decisions are a flag). Every backend worker
runs the job every EVERY_SECONDS (a lifespan task); staff may run it for one test at once ('Check flags now').
Workers computing the same test at once write it once: the write names the round it read (`UPDATE quality_run ...
WHERE round = :read`, or the first round's insert that a unique test_id lets through once), and only the one that
moved it replaces the test's flag rows. The computation itself only reads, so SQLite's write lock is held for the
short write alone.

`python -m portal.cli quality-flags` runs one round.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import aliased
from sqlmodel import Session

from portal.domain.quality import card, medians
from portal.domain.quality.evidence import Evidence, History, evidence_of
from portal.domain.quality.flags import context_of, flags_for
from portal.domain.staff import reviews as decisions
from portal.domain.staff.answers import flatten, question_title
from portal.domain.taking import kinds
from portal.models import QualityRun, Review, ReviewFlag, ReviewSession, Test
from portal.models._base import utcnow
from portal.services import transitions
from portal.services.taking import versions
from portal.services.taking.definitions import content_of
from portal.settings import settings

log = logging.getLogger(__name__)
DECISIONS_WINDOW = timedelta(days=2)


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def seconds_between(started: datetime | None, ended: datetime | None) -> float | None:
    if started is None or ended is None:
        return None
    return max(0.0, (_aware(ended) - _aware(started)).total_seconds())


# --- what a test's reviews are read as --------------------------------------------------------------------------


@dataclass(frozen=True)
class Version:
    """What the flag rules read of one version of a test: its questions and their titles by key."""

    questions: list[dict[str, Any]]
    titles: dict[str, str]
    preference: Any  # the preferenceTest of the content (None for other kinds)


class Versions:
    """The versions of one test met so far, each read once."""

    def __init__(self, session: Session, test: Test) -> None:
        self.session, self.test = session, test
        self.known: dict[int, Version] = {}

    def of(self, version_id: int | None) -> Version:
        key = version_id or 0
        if key not in self.known:
            content = content_of(versions.test_on(self.session, self.test, version_id))
            questions = kinds.kind_of(self.test.product_type).questions(content)
            titles = {
                str(q.get("key")): question_title(q, str(q.get("key")))
                for q in questions
                if isinstance(q, dict) and q.get("key")
            }
            self.known[key] = Version(questions, titles, content.get("preferenceTest"))
        return self.known[key]


def evidence_of_review(
    version: Version,
    review_id: int,
    answers: Mapping[str, Any],
    signals: Mapping[str, Any],
    options_order: Sequence[str],
    seconds: float | None,
    history: History | None = None,
) -> Evidence:
    follow_up = "Why did you choose it?"
    if version.preference is not None:
        shown = flatten(dict(answers), version.questions, version.preference, list(options_order))
        follow_up = next((a.question for a in shown if a.column == "answer"), follow_up)
    return evidence_of(
        review_id,
        answers or {},
        signals or {},
        version.questions,
        seconds=seconds,
        history=history or History(),
        follow_up=follow_up,
    )


def histories(session: Session, test_id: int, account_ids: Sequence[int]) -> dict[int, History]:
    """Each participant's decisions on their reviews of other tests."""
    counts: dict[int, dict[str, int]] = {}
    ids = sorted(set(account_ids))
    for start in range(0, len(ids), 500):
        for account_id, status, count in session.execute(
            select(Review.account_id, Review.status, func.count())
            .where(
                Review.account_id.in_(ids[start : start + 500]),
                Review.test_id != test_id,
                Review.status.in_(decisions.STATUSES[1:]),
            )
            .group_by(Review.account_id, Review.status)
        ):
            counts.setdefault(account_id, {})[status] = int(count)
    return {
        account_id: History(
            approved=found.get(decisions.APPROVED, 0),
            excluded=found.get(decisions.EXCLUDED, 0),
            rejected=found.get(decisions.REJECTED, 0),
        )
        for account_id, found in counts.items()
    }


# --- which tests are due -------------------------------------------------------------------------------------


def due_tests(session: Session, *, test_id: int | None = None) -> list[int]:
    """The tests whose flags are due (see the module's docstring), in id order; only `test_id` when given."""
    counted = select(Review.test_id, func.count()).group_by(Review.test_id)
    runs = select(QualityRun.test_id, QualityRun.reviews)
    if test_id is not None:
        counted, runs = counted.where(Review.test_id == test_id), runs.where(QualityRun.test_id == test_id)
    covered = dict(session.execute(runs).tuples().all())
    due = {t for t, n in session.execute(counted).tuples() if covered.get(t) != n}
    # The participants' decisions on other tests since each test's flags were computed. Only decisions since the
    # oldest computation, and within DECISIONS_WINDOW, are read (through ix_review_decided_at): the job runs every
    # minute, so a decision older than that window was seen by an earlier round.
    oldest = session.execute(select(func.min(QualityRun.computed_at))).scalar_one_or_none()
    if oldest is None:
        return sorted(due)
    since = max(_aware(oldest), utcnow() - DECISIONS_WINDOW)
    other = (
        select(Review.account_id, Review.test_id, Review.decided_at)
        .where(Review.decided_at > since, Review.account_id.is_not(None))
        .subquery()
    )
    mine = aliased(Review)
    decided = (
        select(mine.test_id)
        .distinct()
        .select_from(other)
        .join(mine, and_(mine.account_id == other.c.account_id, mine.test_id != other.c.test_id))
        .join(QualityRun, QualityRun.test_id == mine.test_id)
        .where(other.c.decided_at > QualityRun.computed_at)
    )
    if test_id is not None:
        decided = decided.where(mine.test_id == test_id)
    due.update(session.execute(decided).scalars())
    return sorted(due)


# --- one test's flags ----------------------------------------------------------------------------------------


def _first_run(session: Session, test_id: int, values: dict[str, Any]) -> bool:
    """Insert the test's first run unless another worker did: whether this one did."""
    dialect = session.get_bind().dialect.name
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = make(QualityRun).values(test_id=test_id, **values).on_conflict_do_nothing().returning(QualityRun.id)
    return session.execute(statement).first() is not None


def refresh_test(session: Session, *, test_id: int, now: datetime | None = None, when_due: bool = True) -> bool:
    """Compute and store the flags of every review of the test, when it is due (or always, without `when_due`);
    whether this call wrote them (False: not due, the test is gone, or another worker wrote the round it read).
    The round is read before the test is found due: a worker that reads it after another one wrote finds the test
    no longer due, and one that read it before loses the write that names it."""
    started = now or utcnow()
    test = session.get(Test, test_id)
    if test is None:
        return False
    run = session.execute(select(QualityRun.id, QualityRun.round).where(QualityRun.test_id == test_id)).first()
    if when_due and not due_tests(session, test_id=test_id):
        return False
    rows = session.execute(
        select(
            Review.id,
            Review.account_id,
            Review.version_id,
            Review.answers,
            Review.signals,
            Review.options_order,
            Review.created_at,
            ReviewSession.started_at,
        )
        .outerjoin(ReviewSession, ReviewSession.id == Review.session_id)
        .where(Review.test_id == test_id)
        .order_by(Review.id)
    ).all()
    known = Versions(session, test)
    history = histories(session, test_id, [r.account_id for r in rows if r.account_id is not None])
    evidence = []
    readings = []
    for r in rows:
        seconds = seconds_between(r.started_at, r.created_at)
        evidence.append(
            evidence_of_review(
                known.of(r.version_id),
                r.id,
                r.answers or {},
                r.signals or {},
                r.options_order or [],
                seconds,
                history.get(r.account_id or 0, History()),
            )
        )
        readings.append((seconds, r.signals or {}))
    context = context_of(evidence)
    found = [
        {
            "review_id": item.review_id,
            "key": flag.key,
            "label": flag.label[:400],
            "strength": flag.strength,
            "value": flag.value,
            "median": flag.median,
        }
        for item in evidence
        for flag in flags_for(item, context)
    ]
    values = {
        "reviews": len(rows),
        "last_review_id": rows[-1].id if rows else 0,
        "computed_at": started,
        "medians": medians.of_signals(readings),
    }
    if run is None:
        if not _first_run(session, test_id, {"round": 1, **values}):
            return False
    elif not transitions.move(
        session,
        QualityRun,
        QualityRun.id == run.id,
        QualityRun.round == run.round,
        values={"round": run.round + 1, **values},
    ):
        return False
    session.execute(
        delete(ReviewFlag).where(ReviewFlag.review_id.in_(select(Review.id).where(Review.test_id == test_id)))
    )
    if found:
        session.execute(insert(ReviewFlag), found)
    return True


def refresh_due(session: Session, *, now: datetime | None = None) -> int:
    """One round in one transaction (the CLI's): every due test; how many were written."""
    return sum(refresh_test(session, test_id=t, now=now, when_due=False) for t in due_tests(session))


# --- what staff read -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Checked:
    at: datetime | None  # when the test's flags were last computed (None: never)
    medians: dict[str, float]
    last_review_id: int = 0  # the newest review they cover

    def covers(self, review_id: int) -> bool:
        return self.at is not None and review_id <= self.last_review_id


def checked(session: Session, test_id: int) -> Checked:
    return checked_of(session, [test_id])[test_id]


def checked_of(session: Session, test_ids: Iterable[int]) -> dict[int, Checked]:
    """checked() of each test, in one statement (the reviews table's page: every test on it)."""
    ids = sorted(set(test_ids))
    out = {t: Checked(None, {}) for t in ids}
    if not ids:
        return out
    for found in session.execute(
        select(QualityRun.test_id, QualityRun.computed_at, QualityRun.medians, QualityRun.last_review_id).where(
            QualityRun.test_id.in_(ids)
        )
    ):
        raw = found.medians or {}
        out[found.test_id] = Checked(
            _aware(found.computed_at) if found.computed_at else None,
            {str(k): float(v) for k, v in raw.items() if isinstance(v, (int, float)) and not isinstance(v, bool)},
            found.last_review_id,
        )
    return out


def flags_of(session: Session, review_ids: Sequence[int]) -> dict[int, list[ReviewFlag]]:
    """The stored flags of each review, the strongest first."""
    out: dict[int, list[ReviewFlag]] = {}
    if not review_ids:
        return out
    for flag in session.execute(
        select(ReviewFlag).where(ReviewFlag.review_id.in_(list(review_ids))).order_by(ReviewFlag.strength.desc())
    ).scalars():
        out.setdefault(flag.review_id, []).append(flag)
    return out


def card_of(session: Session, review: Review, test: Test, started: datetime | None) -> list[card.Line]:
    """The evidence card of one review: its signals with the test's medians as last computed."""
    version = Versions(session, test).of(review.version_id)
    seconds = seconds_between(started, review.created_at)
    evidence = evidence_of_review(
        version, review.id, review.answers or {}, review.signals or {}, review.options_order or [], seconds
    )
    titles = {**version.titles, **{a.key: a.question for a in evidence.texts}}
    return card.lines(review.signals or {}, seconds, evidence.texts, titles, checked(session, test.id).medians)


# --- the job -------------------------------------------------------------------------------------------------


async def run_forever() -> None:
    from portal import db

    while True:
        try:
            for test_id in await db.run(due_tests):
                await db.run(refresh_test, test_id=test_id)
        except asyncio.CancelledError:
            raise
        except Exception:  # keep the job alive whatever one round hits
            log.exception("computing quality flags failed")
        await asyncio.sleep(max(1, settings.quality_flags_every_seconds))
