"""Time the staff admin's table queries (/admin) on a large PostgreSQL database.

    .venv/bin/python bench/admin_tables.py                 # fill (if the sizes differ) and measure
    .venv/bin/python bench/admin_tables.py --refill        # drop everything, migrate, fill again
    .venv/bin/python bench/admin_tables.py --participants 10000 --invites 200000 --reviews 100000   # a quick run
    .venv/bin/python bench/admin_tables.py --json --only reviews   # one JSON object per case,
                                                                   # the cases naming 'reviews'

The database (bench_admin) is migrated with Alembic, so the measured indexes are the migrations',
then filled with INSERT ... SELECT generate_series (no ORM rows): participants with their profiles
(names, countries, seniority, about 71 % verified), staff accounts, tests, invites spread over the
participants and the tests (each participant's invites go to different tests, evenly over a year),
reviews of the completed invites with their rewards (submitted, approved, payable, paid, rejected),
profile change requests (some pending) and the audit log (inserted only: it refuses UPDATE/DELETE).

Each case calls the staff service (portal.services.admin.*) as a page event does through db.run:
a new Session (pool checkout with its ping), the function, commit; as the super-admin. Measured in
the same run, round-robin (every case once per round, after 5 warm-up rounds: psycopg prepares a
statement from its 5th run on), so that load from elsewhere on the machine spreads over all cases:
- the baseline: `SELECT 1` over one psycopg connection (a round trip), and `SELECT 1` through the
  same Session-and-commit path (the fixed cost of any event's database work);
- the floors: the exact totals of the unfiltered reviews and rewards tables as bare SQL (a count
  of every review; a count and sum of every reward), which their first pages cannot go below.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg
from sqlalchemy import event, text
from sqlmodel import Session

from bench.table_query import (  # set-up and percentiles shared with the home tables' bench
    ensure_database,
    migrate,
    percentile,
)
from portal.db import make_engine
from portal.services.admin import audit, invites, participants, reviews, rewards, tests

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_admin"
PRODUCT_TYPES = ["survey", "landing-page", "pricing-test", "preference-test", "video-test", "standard", "demo-product"]
KINDS = ["survey", "highlight", "pricing", "preference", "video", "highlight", "highlight"]
FIRST_NAMES = [
    "Anna",
    "James",
    "Maria",
    "David",
    "Sofia",
    "Michael",
    "Emma",
    "Daniel",
    "Olivia",
    "Lucas",
    "Mia",
    "Noah",
    "Laura",
    "Thomas",
    "Julia",
    "Pieter",
    "Sara",
    "Ahmed",
    "Priya",
    "Wei",
    "Carlos",
    "Elena",
    "Jonas",
    "Fatima",
    "Oliver",
    "Chloe",
    "Mateo",
    "Ines",
    "Ravi",
    "Hannah",
    "Luca",
    "Nora",
    "Ethan",
    "Zoe",
    "Kenji",
    "Amara",
    "Felix",
    "Isabel",
    "Marco",
    "Lena",
    "Samuel",
]
LAST_NAMES = [
    "Smith",
    "Garcia",
    "Johnson",
    "Brown",
    "Jones",
    "Miller",
    "Davis",
    "Martinez",
    "Lopez",
    "Wilson",
    "Anderson",
    "Taylor",
    "Thomas",
    "Moore",
    "Jackson",
    "Martin",
    "Lee",
    "Perez",
    "Thompson",
    "White",
    "Harris",
    "Clark",
    "Lewis",
    "Robinson",
    "Walker",
    "Young",
    "Allen",
    "King",
    "Wright",
    "Scott",
    "Green",
    "Baker",
    "Adams",
    "Nelson",
    "Hill",
    "Campbell",
    "Mitchell",
    "Roberts",
    "Carter",
    "Phillips",
    "Evans",
    "Turner",
    "Torres",
    "Parker",
    "Collins",
    "Edwards",
    "Stewart",
    "Morris",
    "Murphy",
    "Cook",
    "Rogers",
    "Morgan",
    "Peterson",
    "Cooper",
    "Reed",
    "Bailey",
    "Bell",
    "Gomez",
    "Kelly",
    "de Vries",
    "Jansen",
    "Muller",
    "Schmidt",
    "Rossi",
    "Kowalski",
    "Nguyen",
    "Kim",
    "Patel",
    "Singh",
    "Tanaka",
    "Silva",
]
COMPANIES = [
    "acme",
    "globex",
    "initech",
    "umbrella",
    "hooli",
    "vandelay",
    "stark",
    "wayne",
    "tyrell",
    "cyberdyne",
    "soylent",
    "wonka",
    "aperture",
    "gringotts",
    "oscorp",
    "piedpiper",
    "dunder",
    "prestige",
    "monarch",
    "nakatomi",
]
# Weighted: the United States about a third.
COUNTRIES = (
    ["US"] * 10
    + ["GB"] * 3
    + ["DE"] * 2
    + ["CA"] * 2
    + ["IN"] * 2
    + ["NL", "FR", "BR", "ES", "PL", "AU", "SE", "IT", "IE", "CH", "JP", "SG", "MX", "ZA", "PT"]
)
LEVELS = [
    '["founder"]',
    '["senior"]',
    '["senior"]',
    '["middle"]',
    '["middle"]',
    '["middle"]',
    '["specialist"]',
    '["specialist"]',
    '["specialist"]',
    '["senior", "middle"]',
    '["middle", "specialist"]',
    "[]",
]
JOB_TITLES = [
    "Product Manager",
    "Head of Marketing",
    "Software Engineer",
    "CTO",
    "Founder",
    "UX Designer",
    "Data Analyst",
    "Sales Director",
    "Operations Manager",
    "Marketing Specialist",
    "VP Engineering",
    "Consultant",
]
TEST_NAMES = [
    "Messaging study",
    "Pricing page test",
    "Onboarding survey",
    "Landing page feedback",
    "Homepage concepts",
    "Checkout flow review",
    "Brand perception survey",
    "Feature prioritisation",
    "Video walkthrough",
    "Logo preference",
]
REJECT_REASONS = ["low-effort", "ai-generated", "off-topic", "failed-attention-check", "duplicate", "not-qualified"]
# Weighted like a working month: mostly decisions and payments.
ACTIONS = (
    ["review.approve"] * 30
    + ["review.auto-approve"] * 10
    + ["review.reject"] * 4
    + ["reward.pay"] * 30
    + ["reward.fail"]
    + ["reward.cancel"] * 2
    + ["participant.verify"] * 12
    + ["participant.unverify"]
    + ["participant.deactivate"]
    + ["change-request.approve"] * 4
    + ["change-request.decline"]
    + ["invites.send"] * 2
    + ["reviews.export"]
    + ["rewards.export"]
    + ["pending-reviews.clear"]
    + ["staff.role"]
)
STAFF = [("super-admin", "admin"), ("team-owner", "owner"), ("team-manager", "manager")]
SURVEY_ANSWERS = json.dumps(
    {
        "involvement": {"value": "decider"},
        "tools-used": {"value": ["spreadsheets", "bi-suite"]},
        "describe-process": {
            "value": "We compare three vendors, run a two-week trial with the data team and then "
            "the budget owner signs off after a security review."
        },
    }
)
OTHER_ANSWERS = json.dumps(
    {
        "first-impression": [
            {"questionKey": "clarity", "value": "Clear headline but the pricing is hard to find."},
            {"questionKey": "trust", "value": 4},
        ],
    }
)


def step(conn: psycopg.Connection, label: str, sql: str, params: dict | None = None) -> None:
    started = time.perf_counter()
    cur = conn.execute(sql, params or {})
    rows = f", {cur.rowcount:,} rows" if cur.rowcount and cur.rowcount > 0 else ""
    print(f"  {label}: {time.perf_counter() - started:.1f} s{rows}", flush=True)


def spread_factor(n: int) -> int:
    """A multiplier k with gcd(k, n) = 1 near n / golden ratio: g -> g * k mod n is then a permutation of 0..n-1
    whose values are spread evenly over any run of g (so "g * k mod n < r" picks exactly r of n, evenly in time)."""
    k = round(n * 0.6180339887)
    while math.gcd(k, n) != 1:
        k += 1
    return k


# The derived columns of participant g (1..P), shared by the account and the profile inserts.
PEOPLE = """
    SELECT g, f, l, c, lower(f) || '.' || lower(replace(l, ' ', '')) || g AS handle,
           now() - (%(participants)s - g) * (interval '1095 days' / %(participants)s)
               - (g %% 600) * interval '1 minute' AS created
    FROM (SELECT g, (%(firsts)s::text[])[1 + g %% %(n_firsts)s] AS f,
                 (%(lasts)s::text[])[1 + (g / %(n_firsts)s) %% %(n_lasts)s] AS l,
                 (%(companies)s::text[])[1 + (g * 7) %% %(n_companies)s] AS c
          FROM generate_series(1, %(participants)s) g) s"""


def fill(url: str, a: argparse.Namespace) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")
    migrate(url)
    per_account = math.ceil(a.invites / a.participants)
    if per_account > a.tests or a.tests % 211 == 0:
        raise SystemExit(
            "--tests must be at least the invites per participant, and not a multiple of 211 "
            "(each participant's invites are to different tests)"
        )
    if a.reviews > a.invites:
        raise SystemExit("--reviews must not exceed --invites (a review is a completed invite)")
    survey = json.loads((ROOT / "portal/data/demo_tests/01-survey.json").read_text())["survey"]
    p = {
        "participants": a.participants,
        "invites": a.invites,
        "reviews": a.reviews,
        "tests": a.tests,
        "requests": a.change_requests,
        "audit": a.audit,
        "staff": a.participants + 1,
        "k": spread_factor(a.invites),
        "types": PRODUCT_TYPES,
        "kinds": KINDS,
        "firsts": FIRST_NAMES,
        "n_firsts": len(FIRST_NAMES),
        "lasts": LAST_NAMES,
        "n_lasts": len(LAST_NAMES),
        "companies": COMPANIES,
        "n_companies": len(COMPANIES),
        "countries": COUNTRIES,
        "n_countries": len(COUNTRIES),
        "levels": LEVELS,
        "n_levels": len(LEVELS),
        "titles": JOB_TITLES,
        "n_titles": len(JOB_TITLES),
        "test_names": TEST_NAMES,
        "n_test_names": len(TEST_NAMES),
        "reasons": REJECT_REASONS,
        "actions": ACTIONS,
        "n_actions": len(ACTIONS),
        "survey": json.dumps(survey),
        "survey_answers": SURVEY_ANSWERS,
        "other_answers": OTHER_ANSWERS,
    }
    print(
        f"filling {url}: participants {a.participants:,}, tests {a.tests:,}, invites {a.invites:,}, "
        f"reviews {a.reviews:,}, change requests {a.change_requests:,}, audit rows {a.audit:,}",
        flush=True,
    )
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        conn.execute("SET maintenance_work_mem = '256MB'")
        conn.execute("SET work_mem = '64MB'")
        # Newest accounts have the highest ids; ~71 % verified, 5 % with an unfinished sign-up, 1 % deactivated.
        step(
            conn,
            "accounts",
            f"""
            INSERT INTO account (id, email, work_email, is_registration_complete, stage, verified,
                                 is_subscribed_to_referral, last_login_method, last_login_at, removed_at, created_at,
                                 updated_at, signup_tracking)
            SELECT g,
                   handle || '@' || (ARRAY['gmail.com','outlook.com','yahoo.com','proton.me','icloud.com'])[1 + g %% 5],
                   CASE WHEN g %% 5 < 2 THEN handle || '@' || c || '.com' END,
                   g %% 20 <> 0, CASE WHEN g %% 20 = 0 THEN 'registered' ELSE 'completed' END,
                   g %% 4 <> 0 AND g %% 20 <> 0, g %% 3 = 0, 'linkedin', created + (g %% 90) * interval '1 day',
                   CASE WHEN g %% 97 = 0 THEN created + interval '200 days' END, created, created, '{{}}'
            FROM ({PEOPLE}) people""",
            p,
        )
        step(
            conn,
            "staff accounts",
            """
            INSERT INTO account (id, email, is_registration_complete, stage, verified, staff_role,
                                 is_subscribed_to_referral, created_at, updated_at, signup_tracking)
            SELECT %(staff)s + i, 'staff-' || (ARRAY['admin','owner','manager'])[1 + i] || '@portal.example', true,
                   'completed', true, (ARRAY['super-admin','team-owner','team-manager'])[1 + i], false,
                   now() - interval '1200 days', now(), '{}'
            FROM generate_series(0, 2) i""",
            p,
        )
        # 97 % have a profile (the others stopped before it).
        step(
            conn,
            "participant profiles",
            f"""
            INSERT INTO participant_profile (account_id, first_name, last_name, has_anonymization_enabled,
                                             linkedin_privacy, has_experience, birth_year, country, job_title,
                                             experience_levels, company_name, languages, old_data, linkedin_profile,
                                             updated_at)
            SELECT g, f, l, false, false, true, 1960 + g %% 45, (%(countries)s::text[])[1 + (g / 3) %% %(n_countries)s],
                   (%(titles)s::text[])[1 + g %% %(n_titles)s],
                   ((%(levels)s::text[])[1 + (g / 7) %% %(n_levels)s])::json,
                   initcap(c), '["english"]', '{{}}', '{{}}', created
            FROM ({PEOPLE}) people WHERE g %% 33 <> 0""",
            p,
        )
        # Newest tests have the highest ids: the newest 5 % running, a few drafts and scheduled, the rest completed.
        step(
            conn,
            "tests",
            """
            INSERT INTO test (id, name, status, panel, product_type, audience_country, welcome_modal, survey, questions,
                              selected_areas, preference_test, is_freemium, session_seconds, participant_limit,
                              seniority_limits, is_surveys_conditional_enabled, payout_cents, created_at, launched_at,
                              updated_at, url)
            SELECT g, (%(test_names)s::text[])[1 + g %% %(n_test_names)s] || ' ' || g,
                   CASE WHEN g > %(tests)s - %(tests)s / 20 THEN 'running'
                        WHEN g > %(tests)s - %(tests)s / 20 - 10 THEN 'draft'
                        WHEN g > %(tests)s - %(tests)s / 20 - 20 THEN 'scheduled' WHEN g %% 50 = 0 THEN 'stopped'
                        ELSE 'completed' END,
                   CASE WHEN g %% 10 = 0 THEN 'mturk' ELSE 'b2b' END, (%(types)s::text[])[1 + g %% 7], 'US',
                   '{"title": "Welcome!", "body": "A few minutes of your time.", "button": "Start"}',
                   CASE WHEN g %% 7 = 0 THEN %(survey)s::json ELSE '{}' END, '{}', '[]', '{}', false, 3600,
                   CASE WHEN g %% 3 = 0 THEN 100 + (g %% 10) * 50 END,
                   CASE WHEN g %% 2 = 0 THEN '{"senior": 40, "middle": 80}' ELSE '{}' END::json,
                   true, 1500 + (g %% 8) * 500, now() - (%(tests)s - g) * (interval '1095 days' / %(tests)s),
                   now() - (%(tests)s - g) * (interval '1095 days' / %(tests)s) + interval '1 day', now(),
                   'https://example.com/' || g
            FROM generate_series(1, %(tests)s) g""",
            p,
        )
        # Invite g: participant 1 + g mod P; that participant's j-th invite (j = g div P) goes to test
        # 1 + (participant * 7919 + j * 211) mod T (all different for one participant). Evenly over the last 365 days in
        # g order. Exactly --reviews of them are completed (g * k mod N < R picks R of N, spread); the last day's are
        # open; the rest expired, canceled or filled.
        step(
            conn,
            "invites",
            """
            INSERT INTO invite (account_id, test_id, status, amount_cents, created_at, expires_at)
            SELECT acc, 1 + (acc::bigint * 7919 + (g / %(participants)s) * 211) %% %(tests)s,
                   CASE WHEN (g::bigint * %(k)s) %% %(invites)s < %(reviews)s THEN 'completed'
                        WHEN created > now() - interval '24 hours' THEN 'open'
                        WHEN g %% 20 = 0 THEN 'canceled' WHEN g %% 20 = 1 THEN 'filled' ELSE 'expired' END,
                   1500 + (g %% 8) * 500, created, created + interval '24 hours'
            FROM (SELECT g, 1 + g %% %(participants)s AS acc,
                         now() - (%(invites)s - 1 - g) * (interval '365 days' / %(invites)s) AS created
                  FROM generate_series(0, %(invites)s - 1) g) s""",
            p,
        )
        # A review per completed invite, 1-20 hours after it. The last 7 days' are waiting for a decision;
        # of the others 1 in 14 was rejected, the rest approved (decided two days after).
        step(
            conn,
            "reviews",
            """
            INSERT INTO review (test_id, account_id, respondent_key, kind, answers, worker_data, options_order, signals,
                                created_at, status, decided_at, decided_by_id, reject_reason)
            SELECT test_id, account_id, 'account:' || account_id, (%(kinds)s::text[])[1 + test_id %% 7],
                   CASE WHEN test_id %% 7 = 0 THEN %(survey_answers)s ELSE %(other_answers)s END::json, '{}', '[]',
                   CASE WHEN id %% 3 = 0 THEN '{"precheckSeconds": 41, "scrollDepth": 88}' ELSE '{}' END::json, rc,
                   CASE WHEN rc > now() - interval '7 days' THEN 'submitted' WHEN id %% 14 = 0 THEN 'rejected'
                        ELSE 'approved' END,
                   CASE WHEN rc <= now() - interval '7 days' THEN rc + interval '2 days' END,
                   CASE WHEN rc <= now() - interval '7 days' THEN %(staff)s END,
                   CASE WHEN rc <= now() - interval '7 days' AND id %% 14 = 0
                        THEN (%(reasons)s::text[])[1 + id %% 6] END
            FROM (SELECT id, test_id, account_id, least(now(), created_at + (1 + id %% 20) * interval '1 hour') AS rc
                  FROM invite WHERE status = 'completed' ORDER BY id) i""",
            p,
        )
        # Rejected: canceled; waiting: pending; approved in the last 10 days: payable (pending, approved_at set);
        # older approved: paid 3 days after approval (1 in 100 failed).
        step(
            conn,
            "rewards",
            """
            INSERT INTO reward (review_id, account_id, amount_cents, status, paid_on, created_at, test_id, product_type,
                                approved_at)
            SELECT v.id, v.account_id, t.payout_cents,
                   CASE WHEN v.status = 'rejected' THEN 'CANCELED' WHEN v.status = 'submitted' THEN 'PENDING'
                        WHEN v.decided_at > now() - interval '10 days' THEN 'PENDING'
                        WHEN v.id %% 100 = 0 THEN 'FAILED' ELSE 'EXECUTED' END,
                   CASE WHEN v.status = 'approved' AND v.decided_at <= now() - interval '10 days' AND v.id %% 100 <> 0
                        THEN v.decided_at + interval '3 days' END,
                   v.created_at, v.test_id, t.product_type, CASE WHEN v.status = 'approved' THEN v.decided_at END
            FROM review v JOIN test t ON t.id = v.test_id""",
            p,
        )
        # Profile changes: the newest 60 % waiting for staff.
        step(
            conn,
            "profile change requests",
            """
            INSERT INTO profile_change_request (account_id, payload, updated_by_admin, created_at, previous, status,
                                                decided_at, decided_by_id)
            SELECT 1 + (g::bigint * 7919) %% %(participants)s, '{"jobTitle": "Head of Product"}', false,
                   now() - g * interval '13 minutes', '{"jobTitle": "Product Manager"}',
                   CASE WHEN g < %(requests)s * 6 / 10 THEN 'pending' WHEN g %% 4 = 0 THEN 'declined'
                        ELSE 'approved' END,
                   CASE WHEN g >= %(requests)s * 6 / 10 THEN now() - g * interval '13 minutes' + interval '1 day' END,
                   CASE WHEN g >= %(requests)s * 6 / 10 THEN %(staff)s END
            FROM generate_series(0, %(requests)s - 1) g""",
            p,
        )
        step(
            conn,
            "audit log",
            """
            INSERT INTO audit_log (created_at, actor_id, actor_email, actor_role, action, target_type, target_id,
                                   before, after)
            SELECT now() - (%(audit)s - g) * (interval '365 days' / %(audit)s), actor,
                   'staff-' || (ARRAY['admin','owner','manager'])[actor - %(staff)s + 1] || '@portal.example',
                   (ARRAY['super-admin','team-owner','team-manager'])[actor - %(staff)s + 1], action,
                   CASE split_part(action, '.', 1) WHEN 'review' THEN 'review' WHEN 'reward' THEN 'reward'
                        WHEN 'participant' THEN 'account' WHEN 'change-request' THEN 'change-request'
                        WHEN 'invites' THEN 'test' WHEN 'reviews' THEN 'test' WHEN 'rewards' THEN 'reward'
                        WHEN 'pending-reviews' THEN 'review-session' ELSE 'account' END,
                   (1 + (g::bigint * 7919) %% 1000000)::text, '{"status": "submitted"}', '{"status": "approved"}'
            FROM (SELECT g, (%(actions)s::text[])[1 + (g * 13) %% %(n_actions)s] AS action,
                         %(staff)s + (CASE WHEN g %% 10 < 6 THEN 0 WHEN g %% 10 < 9 THEN 1 ELSE 2 END) AS actor
                  FROM generate_series(1, %(audit)s) g) s""",
            p,
        )
        for table in ("account", "test", "invite", "review", "reward", "profile_change_request", "audit_log"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        step(conn, "vacuum analyze", "VACUUM ANALYZE")


TABLES = ("account", "test", "invite", "review", "reward", "profile_change_request", "audit_log")


def counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        try:
            return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in TABLES}
        except psycopg.Error:
            return {}


def filt(name: str, *values: str, kind: str = "list") -> dict[str, Any]:
    return {"name": name, "type": kind, "values": list(values)}


def cases(conn: psycopg.Connection) -> list[tuple[str, Callable[..., Any], dict[str, Any]]]:
    """(name, service function, its arguments besides session and actor_id); the data-dependent ids read here."""
    running_test = conn.execute(
        "SELECT id FROM test WHERE status = 'running' AND participant_limit IS NOT NULL "
        "AND seniority_limits::text <> '{}' "
        "ORDER BY id LIMIT 1"
    ).fetchone()[0]
    busy_test = conn.execute(
        "SELECT test_id FROM review GROUP BY test_id ORDER BY count(*) DESC, test_id LIMIT 1"
    ).fetchone()[0]
    # A fragment of one participant's e-mail: their last name and the first digits of their number
    # ('wilson333' from wilson33334@...), as staff type it to find someone.
    local = conn.execute(
        "SELECT split_part(email, '@', 1) FROM account WHERE id = (SELECT max(id) / 3 FROM account)"
    ).fetchone()[0]
    fragment = re.match(r"[a-z]+\d{0,3}", local.split(".", 1)[1]).group(0)
    pq, rq, wq, aq = participants.clean_query, reviews.clean_query, rewards.clean_query, audit.clean_query
    audience_filters = [filt("verified", "yes"), filt("country", "US", "CA"), filt("seniority", "senior", "middle")]
    return [
        ("participants: default page", participants.list_participants, {"query": pq()}),
        (f"participants: search e-mail {fragment!r}", participants.list_participants, {"query": pq(search=fragment)}),
        (
            "participants: search 'garcia' (a common name)",
            participants.list_participants,
            {"query": pq(search="garcia")},
        ),
        (
            "participants: verified=no, country, seniority",
            participants.list_participants,
            {"query": pq(filters=[filt("verified", "no"), filt("country", "DE", "NL"), filt("seniority", "senior")])},
        ),
        ("participants: sort by name", participants.list_participants, {"query": pq(sort_by="name", sort_direction=1)}),
        ("participants: sort by country, descending", participants.list_participants, {"query": pq(sort_by="country")}),
        (
            "participants: page 1000 (100 a page)",
            participants.list_participants,
            {"query": pq(page=1000, page_size=100)},
        ),
        (
            f"invite audience: test {running_test}, 3 filters",
            invites.audience,
            {"test_id": running_test, "criteria": {"search": "", "filters": audience_filters}},
        ),
        ("reviews: unfiltered", reviews.list_reviews, {"query": rq()}),
        (
            "reviews: the page's default, waiting for a decision",
            reviews.list_reviews,
            {"query": rq(filters=[filt("status", "submitted")])},
        ),
        (
            f"reviews: one test ({busy_test})",
            reviews.list_reviews,
            {"query": rq(filters=[filt("test", str(busy_test))])},
        ),
        ("rewards: unfiltered", rewards.list_rewards, {"query": wq()}),
        (
            "rewards: payable (the page's default)",
            rewards.list_rewards,
            {"query": wq(filters=[filt("payable", "yes")])},
        ),
        ("audit log: default page", audit.list_audit, {"query": aq()}),
        (
            "audit log: action 'Marked reward paid'",
            audit.list_audit,
            {"query": aq(filters=[filt("action", "reward.pay")])},
        ),
        ("tests: default page", tests.list_tests, {"query": tests.clean_query()}),
    ]


def summary(result: Any) -> str:
    if hasattr(result, "rows"):
        return f"rows={len(result.rows):3d} total={result.total:,}"
    return f"matched={result.matched:,} invited={result.invited:,} reviewed={result.reviewed:,}"


def run(url: str, rounds: int, only: str, as_json: bool) -> list[dict[str, Any]]:
    engine = make_engine(url)
    statements = [0]

    @event.listens_for(engine, "before_cursor_execute")
    def _count(*_args: Any) -> None:
        statements[0] += 1

    def in_event(fn: Callable[..., Any], kwargs: dict[str, Any]) -> Any:
        # As db.run: a Session per event (pool checkout with pre-ping), the service, commit.
        with Session(engine, expire_on_commit=False) as session:
            out = fn(session=session, **kwargs)
            session.commit()
            return out

    def select_one(session: Session) -> None:
        session.execute(text("SELECT 1")).one()

    with psycopg.connect(url, autocommit=True) as conn:
        actor = conn.execute("SELECT id FROM account WHERE staff_role = 'super-admin' ORDER BY id LIMIT 1").fetchone()[
            0
        ]
        # (name, what to time, the case's label for the listing, extra fields)
        timed: list[tuple[str, Callable[[], Any], str, dict[str, Any]]] = [
            ("baseline: SELECT 1 (psycopg round trip)", lambda: conn.execute("SELECT 1").fetchone(), "", {}),
            (
                "baseline: SELECT 1 in an event's session",
                lambda: in_event(lambda session: select_one(session), {}),
                "",
                {},
            ),
            # What the exact totals of the unfiltered reviews and rewards tables cost by themselves (bare SQL).
            (
                "floor: SELECT count(*) FROM review",
                lambda: conn.execute("SELECT count(*) FROM review").fetchone(),
                "",
                {},
            ),
            (
                "floor: SELECT count(*), sum(amount_cents) FROM reward",
                lambda: conn.execute("SELECT count(*), sum(amount_cents) FROM reward").fetchone(),
                "",
                {},
            ),
        ]
        for name, fn, kwargs in cases(conn):
            if only.lower() not in name.lower():
                continue
            kwargs = {"actor_id": actor, **kwargs}
            first = in_event(fn, kwargs)
            before = statements[0]
            in_event(fn, kwargs)
            per_call = statements[0] - before
            timed.append(
                (
                    name,
                    lambda fn=fn, kwargs=kwargs: in_event(fn, kwargs),
                    f"{per_call:2d} statements  {summary(first)}",
                    {"statements": per_call, "result": summary(first)},
                )
            )
        for _ in range(5):  # warm: psycopg prepares a statement from its 5th run on
            for _name, call, _label, _extra in timed:
                call()
        # Round-robin: every case once per round, so a burst of load on the (shared) machine spreads over all of them.
        times: dict[str, list[float]] = {name: [] for name, *_ in timed}
        for _ in range(rounds):
            for name, call, _label, _extra in timed:
                started = time.perf_counter()
                call()
                times[name].append((time.perf_counter() - started) * 1000)
    engine.dispose()

    results = []
    for name, _call, label, extra in timed:
        values = times[name]
        row = {
            "case": name,
            "p50_ms": round(statistics.median(values), 2),
            "p95_ms": round(percentile(values, 0.95), 2),
            "max_ms": round(max(values), 2),
            "rounds": len(values),
            **extra,
        }
        results.append(row)
        if as_json:
            print(json.dumps(row), flush=True)
        else:
            print(
                f"{name:52s} p50 {row['p50_ms']:7.2f}  p95 {row['p95_ms']:7.2f}  max {row['max_ms']:7.2f} ms  {label}",
                flush=True,
            )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--participants", type=int, default=100_000)
    parser.add_argument("--invites", type=int, default=2_000_000)
    parser.add_argument(
        "--reviews", type=int, default=1_000_000, help="completed invites, each with a review and a reward"
    )
    parser.add_argument("--tests", type=int, default=4_000)
    parser.add_argument("--change-requests", type=int, default=3_000)
    parser.add_argument("--audit", type=int, default=100_000, help="audit log rows")
    parser.add_argument("--rounds", type=int, default=50)
    parser.add_argument("--only", default="", help="measure only the cases whose name contains this text")
    parser.add_argument("--json", action="store_true", help="print one JSON object per case")
    parser.add_argument("--refill", action="store_true", help="drop and fill again even if the sizes match")
    args = parser.parse_args()

    ensure_database(args.url)
    have = counts(args.url)
    want = {
        "account": args.participants + len(STAFF),
        "test": args.tests,
        "invite": args.invites,
        "review": args.reviews,
        "profile_change_request": args.change_requests,
        "audit_log": args.audit,
    }
    log = sys.stderr if args.json else sys.stdout
    if args.refill or any(have.get(k) != v for k, v in want.items()):
        started = time.perf_counter()
        stdout, sys.stdout = sys.stdout, log
        try:
            fill(args.url, args)
        finally:
            sys.stdout = stdout
        print(f"filled in {time.perf_counter() - started:.0f} s", file=log, flush=True)
    else:
        migrate(args.url)  # new index migrations apply to an existing fill
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute("ANALYZE")
    print(counts(args.url), file=log, flush=True)
    print(
        f"{os.cpu_count()} cores, load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}; "
        f"{args.rounds} rounds",
        file=log,
        flush=True,
    )
    run(args.url, args.rounds, args.only, args.json)
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", file=log, flush=True)


if __name__ == "__main__":
    main()
