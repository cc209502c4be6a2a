"""Reviews for the results page's tests, written straight into the app's database as a submission stores them:
participants with the profile the filters read (seniority, country, company size), an invite, a review session
started some minutes before the review, and the review's answers in their stored shape. Three demo tests with
known answers: the survey, the image preference test and the landing-page (highlight) test.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlmodel import Session, select

from portal.models import Account, Invite, ParticipantProfile, Review, ReviewSession, Test, TestVersion
from tests.support.factories import make_participant
from tests.support.people import demo_test

DAY0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)  # the first review's day; the others follow a day apart


def day(offset: int) -> str:
    return (DAY0 + timedelta(days=offset)).date().isoformat()


def participant(db: Session, *, country: str = "US", seniority: str = "senior", size: str = "small") -> Account:
    account = make_participant(db)
    profile = db.get(ParticipantProfile, account.id)
    profile.country, profile.experience_levels, profile.company_size_id = country, [seniority], size
    db.add(profile)
    db.commit()
    return account


def invite(db: Session, test: Test, account: Account) -> None:
    db.add(
        Invite(
            account_id=account.id,
            test_id=test.id,
            amount_cents=1000,
            created_at=DAY0 - timedelta(days=1),
            expires_at=DAY0 + timedelta(days=30),
            status="completed",
        )
    )
    db.commit()


def review(
    db: Session,
    test: Test,
    account: Account,
    answers: dict[str, Any],
    *,
    kind: str,
    minutes: int,
    on_day: int = 0,
    order: tuple[str, ...] | list[str] = (),
    status: str = "submitted",
) -> Review:
    """A submitted review of `account` on the test's first version, `minutes` after its session started."""
    version = db.exec(select(TestVersion.id).where(TestVersion.test_id == test.id)).first()
    started = DAY0 + timedelta(days=on_day)
    session = ReviewSession(
        test_id=test.id,
        version_id=version,
        account_id=account.id,
        respondent_key=str(account.id),
        started_at=started,
        deadline_at=started + timedelta(hours=1),
        status="submitted",
    )
    db.add(session)
    db.flush()
    row = Review(
        test_id=test.id,
        version_id=version,
        account_id=account.id,
        respondent_key=str(account.id),
        session_id=session.id,
        kind=kind,
        answers=answers,
        options_order=list(order),
        signals={"pasted": 0},
        created_at=started + timedelta(minutes=minutes),
        status=status,
    )
    db.add(row)
    db.commit()
    return row


@dataclass(frozen=True)
class Seeded:
    test: Test
    texts: list[str]  # the typed answers, in the order given


def survey_answers(choice: str, tools: list[str], satisfaction: int, budget: int, text: str) -> dict[str, Any]:
    return {
        "involvement": {"type": "single-choice", "value": choice},
        "tools-used": {"type": "multi-choice", "value": tools},
        "annual-budget": {"type": "number", "value": budget},
        "satisfaction": {"type": "rating", "value": satisfaction},
        "priorities": {"type": "rank", "value": ["ease", "price", "integrations", "support"]},
        "statements": {"type": "matrix", "value": {"trust": ["agree"], "speed": ["neutral"]}},
        "job-title": {"type": "short-text", "value": "Head of Data"},
        "last-purchase": {"type": "long-text", "value": text},
    }


SURVEY_TEXTS = [
    "We bought it after a long trial of three tools with the whole data team",
    "A long story about a purchase where the price talks took two months",
    "A short one about support that answered fast",
    "spam spam",
]


def survey(db: Session) -> Seeded:
    """The demo survey: three reviews (US senior small, GB middle small, US middle enterprise) on three days,
    one rejected (DE specialist micro), one more person invited who never started; the second review approved."""
    test = demo_test(db, "01-survey.json")
    people = [
        participant(db, country="US", seniority="senior", size="small"),
        participant(db, country="GB", seniority="middle", size="small"),
        participant(db, country="US", seniority="middle", size="enterprise"),
        participant(db, country="DE", seniority="specialist", size="micro"),
    ]
    for who in [*people, participant(db)]:
        invite(db, test, who)
    given = [
        (survey_answers("decider", ["spreadsheets", "bi-suite"], 5, 1000, SURVEY_TEXTS[0]), 10, 0, "submitted"),
        (survey_answers("decider", ["bi-suite"], 4, 3000, SURVEY_TEXTS[1]), 6, 1, "approved"),
        (survey_answers("influencer", ["spreadsheets"], 2, 2000, SURVEY_TEXTS[2]), 2, 2, "submitted"),
        (survey_answers("none", [], 1, 0, SURVEY_TEXTS[3]), 1, 2, "rejected"),
    ]
    for who, (answers, minutes, on_day, status) in zip(people, given, strict=True):
        review(db, test, who, answers, kind="survey", minutes=minutes, on_day=on_day, status=status)
    return Seeded(test, SURVEY_TEXTS)


PREFERENCE_ORDERS = [
    (("concept-a", "concept-b", "concept-c"), "concept-a"),
    (("concept-b", "concept-a", "concept-c"), "concept-b"),
    (("concept-a", "concept-c", "concept-b"), "concept-a"),
    (("concept-c", "concept-b", "concept-a"), "concept-b"),
]


def preference(db: Session) -> Seeded:
    """The demo image preference test: four votes, two each for the first two concepts, none for the third,
    each shown in the order listed (PREFERENCE_ORDERS)."""
    test = demo_test(db, "04-preference-image.json")
    texts = []
    for i, (order, chosen) in enumerate(PREFERENCE_ORDERS):
        who = participant(db)
        invite(db, test, who)
        text = f"Reason {i + 1}: the headline {'speaks to buyers' if chosen == 'concept-a' else 'is blunt'}"
        texts.append(text)
        review(db, test, who, {"selectedConcept": chosen, "answer": text}, kind="preference", minutes=3, order=order)
    return Seeded(test, texts)


def _text(key: str, value: str) -> dict[str, Any]:
    return {"type": "long-text", "value": value, "isLimited": True, "questionKey": key}


def landing(db: Session) -> Seeded:
    """The demo landing page (three highlight areas): three reviews; the second area answered by two of them."""
    test = demo_test(db, "02-landing-page.json", name=f"Landing results {uuid.uuid4().hex[:8]}")
    texts = []
    for i, rating in enumerate((5, 4, 2)):
        who = participant(db)
        invite(db, test, who)
        hero = f"Headline answer {i + 1}: it promises fast answers about buyers"
        texts.append(hero)
        answers: dict[str, Any] = {
            "first-impression": [_text("lp-first-impression", f"First impression {i + 1} of a research panel")],
            "highlight-1": [_text("lp-hero", hero)],
            "highlight-3": [_text("lp-cta", f"Call to action {i + 1}: yes if the trial is free")],
            "post-test": [
                {"type": "rating", "value": rating, "questionKey": "lp-clarity"},
                {"type": "single-choice", "value": "demo" if i else "trial", "questionKey": "lp-next-step"},
            ],
        }
        if i < 2:
            answers["highlight-2"] = [
                {"type": "multi-choice", "value": ["speed", "reports"], "questionKey": "lp-features"}
            ]
        review(db, test, who, answers, kind="highlight", minutes=5 + i)
    return Seeded(test, texts)
