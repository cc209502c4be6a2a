"""A test's reviews with known quality flags (issue 36), written as a submission stores them: honest ones around a
median time, a speeder, a paster, a tab-leaver and a copy of another review's text. Used by the flags job's
integration tests and the browser test of the staff reviews page."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from portal.models import Review, Test
from tests.support import results

HONEST_TEXTS = [
    "We replaced our spreadsheets after the finance team asked for one place to see every renewal date and owner.",
    "Our analysts ran a six week pilot, compared dashboards side by side, and the cheaper tool surprisingly won.",
    "The purchase started with a security review; legal needed the data processing terms before any demo at all.",
    "I pushed for the change because onboarding new sales managers took weeks without clear pipeline reporting.",
    "Procurement insisted on three quotes, so we wrote a scorecard and invited vendors to present to the board.",
    "We chose the vendor whose support answered within an hour during the trial, price came second for us.",
    "A colleague recommended it from a previous job, we checked references and signed an annual contract in May.",
    "Budget was frozen until the second quarter, then we bought the smallest plan and upgraded after a month.",
]
COPIED = "The one our analysts liked best overall won after we compared three vendors over two months of trials."


def answers(text: str, *, pasted: int = 0, title: str = "Head of Data") -> dict[str, Any]:
    found = results.survey_answers("decider", ["bi-suite"], 4, 2000, text)
    found["job-title"]["value"] = title
    if pasted:
        found["last-purchase"]["pasteMetadata"] = {"wasPasted": True, "pastedLength": pasted}
    return found


def honest(db: Session, test: Test, count: int, *, minutes: int = 10) -> list[Review]:
    """`count` honest reviews taking `minutes` each (their own texts, typed, never leaving the tab)."""
    out = []
    for i in range(count):
        who = results.participant(db)
        text = HONEST_TEXTS[i % len(HONEST_TEXTS)] + ("" if i < len(HONEST_TEXTS) else f" Review {i}.")
        row = results.review(db, test, who, answers(text), kind="survey", minutes=minutes + i % 3, on_day=i % 5)
        row.signals = {"question:last-purchase": 120.0 + i, "typing:last-purchase": 90.0 + i}
        db.add(row)
        db.commit()
        out.append(row)
    return out


def one(
    db: Session, test: Test, text: str, *, minutes: int = 10, pasted: int = 0, signals: dict[str, Any] | None = None
) -> Review:
    who = results.participant(db)
    row = results.review(db, test, who, answers(text, pasted=pasted), kind="survey", minutes=minutes)
    row.signals = {"question:last-purchase": 110.0, **(signals or {})}
    db.add(row)
    db.commit()
    return row
