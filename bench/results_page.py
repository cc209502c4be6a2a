"""Time a test's results page with 10,000 reviews (issue 35) beside the bare SQL of the same aggregates.

    .venv/bin/python bench/results_page.py                          # SQLite file, 10,000 reviews a test
    .venv/bin/python bench/results_page.py --backend postgres       # PostgreSQL: bench_results, dropped and made again
    .venv/bin/python bench/results_page.py --backend postgres --url postgresql://postgres@127.0.0.1:5432/mine
    .venv/bin/python bench/results_page.py --python-gc              # Python's default garbage collection
    .venv/bin/python bench/results_page.py --reviews 200 --rounds 1  # a smoke run

A fresh database (the SQLite file, or the PostgreSQL database the URL names: DROPPED and created again) is
migrated with Alembic and filled: the reference data, the demo survey (01-survey.json, every question type;
a second version that rewords a question, the older reviews on version 1) and the demo image preference
test (04-preference-image.json), the participants (one account per review of a test, each taking both;
97 % with a profile: 15 countries, a third in the US, one or two seniority levels or none, a company size),
and --reviews reviews of each test with their sessions, inserted in bulk (Core executemany, no ORM rows):
answers of every question type along the survey's branches (an 'Other' typed now and then), a preference
with the concepts' shown order drawn per review, 1 in 14 rejected, spread over 30 days.

Measured in turns (every case once per round, after 2 warm-up rounds, so load from elsewhere on the machine
spreads over all of them), median and p95:
- the service: `results_view` as a page event calls it (a new Session, the call, commit), as a team manager,
  for each test with no filters and with a country and a seniority;
- the bare SQL of the same aggregates over the driver's own connection (sqlite3 / psycopg): the reviews
  counted, counts per option of the single choices (with 'Other') and of the multi choices, the rating's
  mean and distribution, the numbers' count, mean, low and high, a preference's choices per concept and its
  order table (shown and chosen per position and concept), with json_extract / json_each on SQLite and
  ->> / json_array_elements on PostgreSQL;
- the bare fetch: the service's own statement (the reviews with their versions, sessions and profiles) run
  over the driver's connection, the rows fetched (psycopg decodes the JSON columns; on SQLite they stay text,
  and a second case adds json.loads of the four JSON columns as SQLAlchemy's JSON type does).

Unless --python-gc, the app's garbage collection (portal/gc_tuning.py) is applied first, as every app worker does
after start-up: the heap frozen, young collections every 10,000 allocations instead of 700.

Before timing, the service's numbers are compared with the bare SQL's for every case; the script prints a
check line per case and exits non-zero when they differ. Nothing about time is asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import re
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg
from sqlalchemy import event, insert, select, text, update
from sqlalchemy.engine import Engine
from sqlmodel import Session

from bench.table_query import migrate, percentile
from portal import gc_tuning
from portal.db import make_engine
from portal.domain.results.filters import Filters
from portal.domain.results.questions import OTHER
from portal.models import Account, ParticipantProfile, Review, ReviewSession, Test, TestVersion
from portal.services.admin import results as service
from portal.services.definition_import import import_test
from portal.services.seeding import seed_reference

DEFAULT_PG_URL = "postgresql://postgres@127.0.0.1:5432/bench_results"
DEMO = ROOT / "portal/data/demo_tests"
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
# Weighted: the United States about a third.
COUNTRIES = ["US"] * 10 + ["GB"] * 3 + ["DE"] * 2 + ["CA"] * 2 + ["IN"] * 2 + "NL FR BR ES PL AU SE IT IE CH".split()
LEVELS = [["founder"], ["senior"], ["senior"], ["middle"], ["middle"], ["middle"], ["specialist"], ["specialist"]]
LEVELS += [["specialist"], ["senior", "middle"], ["middle", "specialist"], []]
SIZES = ["solo", "micro", "small", "small", "medium", "medium", "midMarket", "enterprise", "enterprise", None]
FILTER = {"country": "US", "seniority": "senior"}
SENTENCES = [
    "We compared three vendors over a month and ran a trial with our own data before the budget owner agreed.",
    "The security review took longer than the trial itself, and legal asked for a data processing agreement.",
    "Our analysts wanted SQL access to everything while the marketing team only cared about ready-made dashboards.",
    "Price mattered less than how quickly new people could answer their own questions without help.",
    "We picked the tool our previous company used because the team already knew it and trusted the numbers.",
    "Integrations with the warehouse and the CRM decided it in the end; the rest looked much the same.",
    "A consultant recommended two options and we chose the cheaper one after a short proof of concept.",
    "Honestly the decision was made above me, I only checked that the exports worked with our reports.",
]
JOB_TITLES = ["Head of data", "Product manager", "CTO", "Marketing lead", "Analyst", "Founder", "VP Sales", "Designer"]
OTHER_TOOLS = ["Looker", "Tableau", "Metabase", "an in-house tool", "Power BI"]
OTHER_CHANNELS = ["LinkedIn", "a podcast", "our agency", "conferences"]


# --- the fill ---------------------------------------------------------------------------------------------


def fresh_database(backend: str, url: str | None) -> str:
    """A new, migrated database; its URL."""
    if backend == "sqlite":
        path = Path(url.removeprefix("sqlite:///")) if url else Path(tempfile.gettempdir()) / "results-bench.db"
        for suffix in ("", "-wal", "-shm"):
            path.with_name(path.name + suffix).unlink(missing_ok=True)
        url = f"sqlite:///{path}"
    else:
        url = url or DEFAULT_PG_URL
        base, name = url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    migrate(url)
    return url


def demo(name: str) -> dict[str, Any]:
    data = json.loads((DEMO / name).read_text())
    data.pop("participantLimit", None)
    data.pop("seniorityLimits", None)
    return data


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.sample(SENTENCES, n))


def survey_answers(rng: random.Random) -> dict[str, Any]:
    """One participant's answers to the demo survey, along its branches: deciders answer everything, influencers
    skip page 2 (tools and budget), the uninvolved stop after the first question."""

    def answer(kind: str, value: Any, **more: Any) -> dict[str, Any]:
        return {"type": kind, "value": value, "isOther": False, **more}

    involvement = rng.choices(["decider", "influencer", "none"], [45, 35, 20])[0]
    out = {"involvement": answer("single-choice", involvement)}
    if involvement == "none":
        return out
    if involvement == "decider":
        tools = rng.sample(["spreadsheets", "bi-suite", "product-analytics", "web-analytics"], rng.randint(1, 3))
        other = rng.random() < 0.1  # 'Other' typed: beside one or two tools, or alone
        if other:
            tools = [] if rng.random() < 0.3 else tools[:2]
        out["tools-used"] = answer("multi-choice", tools)
        if other:
            out["tools-used"].update(isOther=True, otherText=rng.choice(OTHER_TOOLS))
        out["annual-budget"] = answer("number", min(999_999, int(rng.lognormvariate(9.5, 1.2))))
        share = rng.randint(0, 100) if rng.random() < 0.7 else None
        out["budget-share"] = answer("number", share)
    out["priorities"] = answer("rank", rng.sample(["price", "ease", "integrations", "support"], 4))
    out["satisfaction"] = answer("rating", rng.choices([1, 2, 3, 4, 5], [5, 10, 25, 40, 20])[0])
    out["statements"] = answer(
        "matrix",
        {s: [rng.choices(["disagree", "neutral", "agree"], [2, 3, 5])[0]] for s in ("trust", "speed")},
    )
    if rng.random() < 0.08:
        out["discovery-channel"] = answer("editable-single-choice", rng.choice(OTHER_CHANNELS), isOther=True)
    else:
        out["discovery-channel"] = answer("editable-single-choice", rng.choice(["search", "peers", "reviews"]))
    out["must-haves"] = answer("editable-multi-choice", rng.sample(["sso", "exports", "alerts"], rng.randint(0, 3)))
    out["job-title"] = answer("short-text", rng.choice(JOB_TITLES))
    out["last-purchase"] = answer("long-text", words(rng, rng.randint(1, 3)), isLimited=True)
    out["pitch-feedback"] = answer("editable-open-ended", words(rng, 1), isLimited=True)
    return out


def preference_answer(rng: random.Random, keys: list[str]) -> tuple[dict[str, Any], list[str]]:
    """(answers, shown order): the concepts' order drawn per review; a preference for the second concept, and
    a pull towards whatever was shown first."""
    order = rng.sample(keys, len(keys))
    weights = [35.0, 45.0, 20.0][: len(keys)]
    weights = [w * (1.4 if key == order[0] else 1.0) for w, key in zip(weights, keys, strict=True)]
    chosen = rng.choices(keys, weights)[0]
    return {"selectedConcept": chosen, "answer": words(rng, 1)}, order


@dataclass(frozen=True)
class Filled:
    survey: int
    preference: int
    staff: int


def fill(url: str, reviews: int, seed: int) -> Filled:
    rng = random.Random(seed)
    engine = make_engine(url)
    with Session(engine) as session:
        seed_reference(session)
        session.commit()
        survey = import_test(session, demo("01-survey.json"))
        preference = import_test(session, demo("04-preference-image.json"))
        session.commit()
        survey_id, preference_id = survey.id, preference.id
        # Version 2 of the survey: version 1 sealed (people took it), then a question reworded.
        session.execute(update(TestVersion).where(TestVersion.test_id == survey_id).values(sealed=True))
        content = json.loads(json.dumps(survey.survey))
        content["questions"][5]["text"] = "How satisfied are you with the analytics tools you use today?"
        survey.survey = content
        session.add(survey)
        session.commit()
        versions = {
            test_id: [v for (v,) in session.execute(select(TestVersion.id).where(TestVersion.test_id == test_id))]
            for test_id in (survey_id, preference_id)
        }
        keys = [str(i["key"]) for i in preference.preference_test["images"]]
        staff = Account(
            email="results-staff@example.com",
            is_registration_complete=True,
            stage="completed",
            verified=True,
            staff_role="team-manager",
        )
        session.add(staff)
        session.commit()
        staff_id = staff.id

    started = time.perf_counter()
    with engine.begin() as conn:
        first = (conn.execute(text("SELECT coalesce(max(id), 0) FROM account")).scalar_one() or 0) + 1
        people = list(range(first, first + reviews))
        conn.execute(
            insert(Account),
            [
                {
                    "id": a,
                    "email": f"participant-{a}@example.com",
                    "is_registration_complete": True,
                    "stage": "completed",
                    "verified": True,
                    "is_subscribed_to_referral": False,
                    "signup_tracking": {},
                    "created_at": NOW - timedelta(days=400),
                    "updated_at": NOW - timedelta(days=400),
                }
                for a in people
            ],
        )
        conn.execute(
            insert(ParticipantProfile),
            [
                {
                    "account_id": a,
                    "first_name": "Avery",
                    "last_name": f"Tester {a}",
                    "has_anonymization_enabled": False,
                    "linkedin_privacy": False,
                    "country": rng.choice(COUNTRIES),
                    "experience_levels": rng.choice(LEVELS),
                    "company_size_id": rng.choice(SIZES),
                    "languages": ["english"],
                    "old_data": {},
                    "linkedin_profile": {},
                    "updated_at": NOW - timedelta(days=400),
                }
                for a in people
                if a % 33 != 0  # 3 % stopped before their profile
            ],
        )
        session_id = (conn.execute(text("SELECT coalesce(max(id), 0) FROM review_session")).scalar_one() or 0) + 1
        for test_id in (survey_id, preference_id):
            sessions, rows = [], []
            for i, account in enumerate(people):
                submitted = NOW - timedelta(days=30) + timedelta(seconds=(30 * 86400) * i / reviews)
                seconds = int(rng.lognormvariate(6.2, 0.5)) if test_id == survey_id else rng.randint(20, 240)
                version = versions[test_id][0 if i < reviews * 2 // 5 else -1]
                sessions.append(
                    {
                        "id": session_id,
                        "test_id": test_id,
                        "version_id": version,
                        "account_id": account,
                        "respondent_key": f"account:{account}",
                        "started_at": submitted - timedelta(seconds=seconds),
                        "deadline_at": submitted - timedelta(seconds=seconds) + timedelta(hours=1),
                        "extensions": 0,
                        "status": "submitted",
                        "draft_answers": {},
                        "draft_position": {},
                        "updated_at": submitted,
                    }
                )
                if test_id == survey_id:
                    answers, order, kind = survey_answers(rng), list[str](), "survey"
                else:
                    (answers, order), kind = preference_answer(rng, keys), "preference"
                status = "submitted" if submitted > NOW - timedelta(days=7) else "approved"
                rows.append(
                    {
                        "test_id": test_id,
                        "version_id": version,
                        "account_id": account,
                        "respondent_key": f"account:{account}",
                        "session_id": session_id,
                        "kind": kind,
                        "answers": answers,
                        "worker_data": {},
                        "options_order": order,
                        "signals": {"precheckSeconds": rng.randint(5, 90), "pasted": int(rng.random() < 0.03)},
                        "created_at": submitted,
                        "status": "rejected" if i % 14 == 13 else status,
                    }
                )
                session_id += 1
            conn.execute(insert(ReviewSession), sessions)
            conn.execute(insert(Review), rows)
        if conn.dialect.name == "postgresql":
            for table in ("account", "review_session", "review"):
                conn.execute(
                    text(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
                )
    with engine.begin() as conn:
        conn.execute(text("ANALYZE"))
    engine.dispose()
    took = time.perf_counter() - started
    print(f"  {reviews:,} participants and 2 x {reviews:,} reviews with their sessions: {took:.1f} s", flush=True)
    return Filled(survey_id, preference_id, staff_id)


# --- the bare SQL -------------------------------------------------------------------------------------------


class Bare:
    """The same aggregates as hand-written SQL over the driver's own connection."""

    def __init__(self, url: str) -> None:
        self.sqlite = url.startswith("sqlite")
        if self.sqlite:
            self.conn: Any = sqlite3.connect(url.removeprefix("sqlite:///"))
        else:
            self.conn = psycopg.connect(url, autocommit=True)

    def close(self) -> None:
        self.conn.close()

    def all(self, sql: str, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        if not self.sqlite:  # :name -> %(name)s (a cast's '::' left alone)
            sql = re.sub(r"(?<![:\w]):([a-z_]+)", r"%(\1)s", sql)
        return list(self.conn.execute(sql, params).fetchall())

    # Expressions of one answer's field, its JSON type, and the rows a case chooses.
    def field(self, key: str, name: str = "value") -> str:
        if self.sqlite:
            return f"json_extract(r.answers, '$.\"{key}\".{name}')"
        return f"(r.answers->'{key}'->>'{name}')"

    def is_number(self, key: str) -> str:
        if self.sqlite:
            return f"json_type(r.answers, '$.\"{key}\".value') IN ('integer', 'real')"
        return f"json_typeof(r.answers->'{key}'->'value') = 'number'"

    def number(self, key: str) -> str:
        return self.field(key) if self.sqlite else f"{self.field(key)}::float8"

    def is_true(self, key: str, name: str) -> str:
        return f"{self.field(key, name)} = 1" if self.sqlite else f"{self.field(key, name)} = 'true'"

    def elements(self, key: str) -> tuple[str, str]:
        """A FROM item of the elements of a list answer, and an element's expression."""
        if self.sqlite:
            return f"json_each(r.answers, '$.\"{key}\".value') e", "e.value"
        value = f"r.answers->'{key}'->'value'"
        return (
            f"LATERAL json_array_elements_text(CASE WHEN json_typeof({value}) = 'array' THEN {value} END) e(v)",
            "e.v",
        )

    def chosen(self, filtered: bool) -> tuple[str, str]:
        """(FROM, WHERE) of a test's reviews the results count: rejected ones left out; filtered: a country and a
        seniority among the participant's levels."""
        where = "r.test_id = :test AND r.status <> 'rejected'"
        if not filtered:
            return "review r", where
        levels = (
            "json_each(p.experience_levels) l WHERE l.value = :seniority"
            if self.sqlite
            else "json_array_elements_text(p.experience_levels) l(v) WHERE l.v = :seniority"
        )
        return (
            "review r JOIN participant_profile p ON p.account_id = r.account_id",
            f"{where} AND p.country = :country AND EXISTS (SELECT 1 FROM {levels})",
        )

    def one_of(self, expression: str, name: str) -> str:
        return (
            f"{expression} IN (SELECT value FROM json_each(:{name}))" if self.sqlite else f"{expression} = ANY(:{name})"
        )

    def params(self, test: int, filtered: bool, **lists: list[str]) -> dict[str, Any]:
        out: dict[str, Any] = {"test": test, **(FILTER if filtered else {})}
        out.update({k: json.dumps(v) if self.sqlite else v for k, v in lists.items()})
        return out

    # The aggregates.
    def count(self, test: int, filtered: bool) -> int:
        source, where = self.chosen(filtered)
        return int(self.all(f"SELECT count(*) FROM {source} WHERE {where}", self.params(test, filtered))[0][0])

    def single(self, test: int, filtered: bool, key: str, options: list[str]) -> dict[str, int]:
        source, where = self.chosen(filtered)
        v = self.field(key)
        sql = f"""SELECT CASE WHEN {self.one_of("v", "options")} THEN v ELSE '{OTHER}' END, count(*)
                  FROM (SELECT {v} AS v FROM {source} WHERE {where}) a
                  WHERE v IS NOT NULL AND v <> '' GROUP BY 1"""
        return {str(k): int(n) for k, n in self.all(sql, self.params(test, filtered, options=options))}

    def multi(self, test: int, filtered: bool, key: str, options: list[str]) -> dict[str, int]:
        """Each option's count, 'Other' (a typed other answer) and the reviews that answered (`answered`)."""
        source, where = self.chosen(filtered)
        params = self.params(test, filtered, options=options)
        elements, e = self.elements(key)
        picked = f"""SELECT CASE WHEN {self.one_of(e, "options")} THEN {e} ELSE '{OTHER}' END, count(*)
                     FROM {source} CROSS JOIN {elements} WHERE {where} GROUP BY 1"""
        typed = f"{self.is_true(key, 'isOther')} AND trim(coalesce({self.field(key, 'otherText')}, '')) <> ''"
        length = (
            f"json_array_length(r.answers, '$.\"{key}\".value')"
            if self.sqlite
            else f"(CASE WHEN json_typeof(r.answers->'{key}'->'value') = 'array' "
            f"THEN json_array_length(r.answers->'{key}'->'value') END)"
        )
        other = f"""SELECT count(*) FILTER (WHERE {typed}),
                           count(*) FILTER (WHERE coalesce({length}, 0) > 0 OR ({typed}))
                    FROM {source} WHERE {where}"""
        found = {str(k): int(n) for k, n in self.all(picked, params)}
        typed_others, answered = self.all(other, params)[0]
        found[OTHER] = found.get(OTHER, 0) + int(typed_others)
        found["answered"] = int(answered)
        return found

    def rating(self, test: int, filtered: bool, key: str) -> dict[str, Any]:
        """The distribution, and the mean over it, in one statement."""
        source, where = self.chosen(filtered)
        sql = f"""SELECT v, count(*), sum(v * count(*)) OVER () * 1.0 / sum(count(*)) OVER ()
                  FROM (SELECT {self.number(key)} AS v FROM {source} WHERE {where} AND {self.is_number(key)}) a
                  GROUP BY v"""
        rows = self.all(sql, self.params(test, filtered))
        out: dict[str, Any] = {_label(v): int(n) for v, n, _ in rows}
        out["mean"] = float(rows[0][2]) if rows else None
        return out

    def numbers(self, test: int, filtered: bool, key: str) -> dict[str, Any]:
        source, where = self.chosen(filtered)
        v = self.number(key)
        sql = f"SELECT count(*), avg({v}), min({v}), max({v}) FROM {source} WHERE {where} AND {self.is_number(key)}"
        n, mean, low, high = self.all(sql, self.params(test, filtered))[0]
        return {"answered": int(n), "mean": _float(mean), "low": _float(low), "high": _float(high)}

    def concepts(self, test: int, filtered: bool) -> dict[str, int]:
        source, where = self.chosen(filtered)
        chosen = "json_extract(r.answers, '$.selectedConcept')" if self.sqlite else "(r.answers->>'selectedConcept')"
        sql = f"SELECT {chosen}, count(*) FROM {source} WHERE {where} AND {chosen} <> '' GROUP BY 1"
        return {str(k): int(n) for k, n in self.all(sql, self.params(test, filtered))}

    def order_table(self, test: int, filtered: bool) -> dict[str, tuple[int, int]]:
        """'position concept' -> (shown there, chosen there), positions from 1."""
        source, where = self.chosen(filtered)
        if self.sqlite:
            sql = f"""SELECT o.key + 1, o.value, count(*), sum(o.value = json_extract(r.answers, '$.selectedConcept'))
                      FROM {source} CROSS JOIN json_each(r.options_order) o WHERE {where} GROUP BY 1, 2"""
        else:
            sql = f"""SELECT o.n, o.v, count(*), count(*) FILTER (WHERE o.v = r.answers->>'selectedConcept')
                      FROM {source} CROSS JOIN LATERAL json_array_elements_text(r.options_order)
                           WITH ORDINALITY o(v, n) WHERE {where} GROUP BY 1, 2"""
        return {f"{p} {k}": (int(s), int(c)) for p, k, s, c in self.all(sql, self.params(test, filtered))}


def _float(value: Any) -> float | None:
    return None if value is None else float(value)


def _label(value: Any) -> str:
    number = float(value)
    return str(int(number)) if number.is_integer() else str(number)


@dataclass(frozen=True)
class Questions:
    """The survey questions the check compares, by shape: key -> option values (single and multi)."""

    single: dict[str, list[str]]
    multi: dict[str, list[str]]
    rating: list[str]
    numbers: list[str]


def survey_questions() -> Questions:
    found = demo("01-survey.json")["survey"]["questions"]

    def options(q: dict[str, Any]) -> list[str]:
        return [str(o["value"]) for o in q.get("options") or []]

    return Questions(
        single={q["key"]: options(q) for q in found if q["type"] in ("single-choice", "editable-single-choice")},
        multi={q["key"]: options(q) for q in found if q["type"] in ("multi-choice", "editable-multi-choice")},
        rating=[q["key"] for q in found if q["type"] == "rating"],
        numbers=[q["key"] for q in found if q["type"] == "number"],
    )


def bare_survey(bare: Bare, test: int, filtered: bool, questions: Questions) -> dict[str, Any]:
    out: dict[str, Any] = {"reviews": bare.count(test, filtered)}
    for key, options in questions.single.items():
        out[key] = bare.single(test, filtered, key, options)
    for key, options in questions.multi.items():
        out[key] = bare.multi(test, filtered, key, options)
    for key in questions.rating:
        out[key] = bare.rating(test, filtered, key)
    for key in questions.numbers:
        out[key] = bare.numbers(test, filtered, key)
    return out


def bare_preference(bare: Bare, test: int, filtered: bool) -> dict[str, Any]:
    return {
        "reviews": bare.count(test, filtered),
        "concepts": bare.concepts(test, filtered),
        "order": bare.order_table(test, filtered),
    }


def service_survey(found: service.Results, questions: Questions) -> dict[str, Any]:
    """The service's numbers in the bare SQL's shape."""
    summaries = {q.slot.key: q.summary for q in found.report.questions}
    out: dict[str, Any] = {"reviews": found.report.reviews}
    for key in questions.single:
        out[key] = {s.key: s.count for s in summaries[key].shares}
    for key in questions.multi:
        out[key] = {s.key: s.count for s in summaries[key].shares} | {"answered": summaries[key].answered}
    for key in questions.rating:
        out[key] = {s.key: s.count for s in summaries[key].shares} | {"mean": summaries[key].mean}
    for key in questions.numbers:
        s = summaries[key]
        out[key] = {"answered": s.answered, "mean": s.mean, "low": s.low, "high": s.high}
    return out


def service_preference(found: service.Results) -> dict[str, Any]:
    pref = found.report.preference
    assert pref is not None
    return {
        "reviews": found.report.reviews,
        "concepts": {s.key: s.count for s in pref.shares},
        "order": {
            f"{p} {k}": (cell.shown, cell.chosen)
            for p, row in enumerate(pref.order, start=1)
            for k, cell in row.items()
        },
    }


def differences(service_numbers: Any, bare_numbers: Any, path: str = "") -> list[str]:
    """Where the two disagree (counts exactly, means to 1e-9 relative; a zero count and a missing one alike)."""
    if isinstance(service_numbers, Mapping) and isinstance(bare_numbers, Mapping):
        keys = {k for k, v in service_numbers.items() if v not in (0, (0, 0))}
        keys |= {k for k, v in bare_numbers.items() if v not in (0, (0, 0))}
        return [
            d
            for k in sorted(keys)
            for d in differences(service_numbers.get(k, 0), bare_numbers.get(k, 0), f"{path}.{k}")
        ]
    if isinstance(service_numbers, float) or isinstance(bare_numbers, float):
        if service_numbers is not None and bare_numbers is not None:
            if math.isclose(service_numbers, bare_numbers, rel_tol=1e-9):
                return []
    elif service_numbers == bare_numbers:
        return []
    return [f"{path.lstrip('.')}: service {service_numbers!r}, bare SQL {bare_numbers!r}"]


# --- the measurement ---------------------------------------------------------------------------------------


def fetch_statement(engine: Engine, test: Test, filtered: bool) -> tuple[str, Any]:
    """The service's own statement (services/admin/results.py read_rows) as the driver receives it."""
    captured: list[tuple[str, Any]] = []

    def keep(conn: Any, cursor: Any, statement: str, parameters: Any, context: Any, many: bool) -> None:
        if "FROM review" in statement and "participant_profile" in statement:
            captured.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", keep)
    try:
        with Session(engine) as session:
            service.read_rows(session, session.get(Test, test.id), Filters(**FILTER) if filtered else Filters())  # type: ignore[arg-type]
    finally:
        event.remove(engine, "before_cursor_execute", keep)
    return captured[-1]


def decoded(row: tuple[Any, ...]) -> tuple[Any, ...]:
    """A fetched row with its JSON columns (answers, order, signals, seniority levels) decoded, as SQLAlchemy's JSON
    type does."""
    loads = json.loads
    levels = loads(row[10]) if row[10] is not None else None
    return (*row[:5], loads(row[5]), loads(row[6]), loads(row[7]), row[8], row[9], levels, *row[11:])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument(
        "--url",
        help=f"the database (DROPPED and made again); default a SQLite file in {tempfile.gettempdir()}, "
        f"or {DEFAULT_PG_URL}",
    )
    parser.add_argument("--reviews", type=int, default=10_000, help="reviews of each test")
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--warm", type=int, default=2, help="rounds run before the timed ones")
    parser.add_argument("--seed", type=int, default=35)
    parser.add_argument(
        "--python-gc",
        action="store_true",
        help="keep Python's default garbage collection (default: the app's, portal/gc_tuning.py, as a worker after "
        "start-up: the heap frozen, young collections every 10,000 allocations)",
    )
    args = parser.parse_args()
    if args.url and args.url.startswith("sqlite") != (args.backend == "sqlite"):
        parser.error("--url must be a database of the --backend")

    url = fresh_database(args.backend, args.url)
    print(f"filling {url.split('@')[-1]}: 2 tests x {args.reviews:,} reviews", flush=True)
    filled = fill(url, args.reviews, args.seed)
    engine = make_engine(url)
    questions = survey_questions()
    bare = Bare(url)

    def page(test: int, filtered: bool) -> Callable[[], service.Results]:
        def call() -> service.Results:
            # As db.run: a Session per event, the service, commit.
            with Session(engine, expire_on_commit=False) as session:
                found = service.results_view(
                    session, actor_id=filled.staff, test_id=test, filters=FILTER if filtered else None
                )
                session.commit()
                return found

        return call

    def fetch(test: int, filtered: bool, decode: bool) -> Callable[[], Any]:
        with Session(engine) as session:
            found = session.get(Test, test)
            assert found is not None
            statement, parameters = fetch_statement(engine, found, filtered)

        def call() -> Any:
            rows = bare.conn.execute(statement, parameters).fetchall()
            return [decoded(r) for r in rows] if decode else rows

        return call

    # (name, what to time); (name, the service's call, the bare aggregates, the service's numbers in their shape)
    cases: list[tuple[str, Callable[[], Any]]] = []
    checks: list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[Any], Any]]] = []
    for label, test, shape in (("survey", filled.survey, "survey"), ("preference", filled.preference, "preference")):
        for filtered in (False, True):
            chosen = "US, senior" if filtered else "all"
            aggregates: Callable[[], Any]
            shaped: Callable[[Any], Any]
            if shape == "survey":
                aggregates = partial(bare_survey, bare, test, filtered, questions)
                shaped = partial(service_survey, questions=questions)
            else:
                aggregates, shaped = partial(bare_preference, bare, test, filtered), service_preference
            call = page(test, filtered)
            cases.append((f"service: {label} results_view, {chosen}", call))
            cases.append((f"bare SQL: {label} aggregates, {chosen}", aggregates))
            checks.append((f"{label}, {chosen}", call, aggregates, shaped))
        cases.append((f"bare fetch: {label} rows, all", fetch(test, False, False)))
        if bare.sqlite:
            cases.append((f"bare fetch + json.loads: {label} rows, all", fetch(test, False, True)))

    if not args.python_gc:
        gc_tuning.settle_heap()  # as the app's lifespan task does once its pages are built
    print(f"garbage collection: {'Python default' if args.python_gc else 'the app (gc_tuning)'} {gc.get_threshold()}")
    failed = False
    for name, call, aggregates, shaped in checks:
        found = call()
        wrong = differences(shaped(found), aggregates())
        failed = failed or bool(wrong)
        extra = f", {found.excluded_left_out:,} rejected left out" if name.endswith("all") else ""
        print(
            f"check {name}: {'agree' if not wrong else 'DIFFER'} ({found.report.reviews:,} reviews{extra})", flush=True
        )
        for line in wrong[:20]:
            print(f"    {line}", flush=True)

    print(
        f"{os.cpu_count()} cores, load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
        f"{args.rounds} rounds after {args.warm} warm-up",
        flush=True,
    )
    times: dict[str, list[float]] = {name: [] for name, _ in cases}
    for round_number in range(args.warm + args.rounds):
        for name, call in cases:
            started = time.perf_counter()
            call()
            if round_number >= args.warm:
                times[name].append((time.perf_counter() - started) * 1000)
    bare.close()
    engine.dispose()
    for name, _ in cases:
        values = times[name]
        if values:
            print(
                f"{name:58s} p50 {statistics.median(values):8.1f}  p95 {percentile(values, 0.95):8.1f}  "
                f"max {max(values):8.1f} ms",
                flush=True,
            )
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    if failed:
        print("the service's numbers and the bare SQL's differ", file=sys.stderr)
        raise SystemExit(1)


if __name__ == "__main__":
    main()
