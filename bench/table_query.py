"""Time the home page's invites and rewards table queries on a large PostgreSQL database.

    .venv/bin/python bench/table_query.py                 # fill (if needed) and measure
    .venv/bin/python bench/table_query.py --refill        # drop everything, migrate, fill again
    .venv/bin/python bench/table_query.py --participants 20000 --invites 400000 --reviews 200000

The database is migrated with Alembic (so the measured indexes are the migrations'),
then filled with INSERT ... SELECT generate_series (no ORM rows). A few "heavy"
participants get --heavy-rows invites and rewards each, enough for page 100.

Each scenario runs the service function (portal.services.invites / rewards: SQLAlchemy,
validation, row formatting, totals) and the same queries as bare SQL over psycopg,
interleaved in the same run; p50/p95 of both are printed with the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import psycopg  # noqa: E402
from alembic.config import Config  # noqa: E402
from sqlmodel import Session  # noqa: E402

from alembic import command  # noqa: E402
from portal.db import make_engine  # noqa: E402
from portal.services import invites, rewards  # noqa: E402

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/bench_tables"
PRODUCT_TYPES = ["survey", "landing-page", "pricing-test", "preference-test", "video-test", "standard", "demo-product"]


def ensure_database(url: str) -> None:
    base, name = url.rsplit("/", 1)
    with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')


def migrate(url: str) -> None:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False
    command.upgrade(config, "head")


def step(conn: psycopg.Connection, label: str, sql: str, params: dict | None = None) -> None:
    started = time.perf_counter()
    conn.execute(sql, params or {})
    print(f"  {label}: {time.perf_counter() - started:.1f} s", flush=True)


def fill(
    url: str, participants: int, n_invites: int, n_reviews: int, n_tests: int, heavy: int, heavy_rows: int
) -> None:
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("DROP SCHEMA IF EXISTS public CASCADE")
        conn.execute("CREATE SCHEMA public")
    migrate(url)
    p = {
        "participants": participants,
        "tests": n_tests,
        "heavy": heavy,
        "heavy_rows": heavy_rows,
        "light_invites": max(n_invites - heavy * heavy_rows, 0),
        "light_reviews": max(n_reviews - heavy * heavy_rows, 0),
        "light_accounts": max(participants - heavy, 1),
        "types": PRODUCT_TYPES,
    }
    if heavy_rows > n_tests:
        raise SystemExit("--heavy-rows must not exceed --tests (one review per participant and test)")
    print(f"filling {url}: {p}", flush=True)
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("SET synchronous_commit = off")
        conn.execute("SET maintenance_work_mem = '256MB'")
        step(
            conn,
            "accounts",
            """
            INSERT INTO account (id, email, is_registration_complete, stage, verified, is_subscribed_to_referral,
                                 created_at, updated_at, signup_tracking)
            SELECT g, 'bench-' || g || '@example.com', true, 'completed', true, false, now(), now(), '{}'
            FROM generate_series(1, %(participants)s) g""",
            p,
        )
        step(
            conn,
            "tests",
            """
            INSERT INTO test (id, name, status, panel, product_type, audience_country, welcome_modal, survey, questions,
                              selected_areas, preference_test, is_freemium, session_seconds, seniority_limits,
                              is_surveys_conditional_enabled, payout_cents, created_at, updated_at, url)
            SELECT g, 'Messaging study ' || g, 'running', 'b2b', (%(types)s::text[])[1 + g %% 7], 'US', '{}', '{}',
                   '{}', '[]', '{}', false, 3600, '{}', true, 1500 + (g %% 8) * 500, now(), now(),
                   'https://example.com/' || g
            FROM generate_series(1, %(tests)s) g""",
            p,
        )
        # Heavy participants (ids 1..heavy): heavy_rows invites and reviews each, one per test.
        step(
            conn,
            "invites (heavy)",
            """
            INSERT INTO invite (account_id, test_id, status, amount_cents, created_at, expires_at)
            SELECT a, t, (ARRAY['open','filled','completed','expired','canceled'])[1 + (a + t) %% 5], 2000,
                   now() - (t * interval '37 minutes'), now() - (t * interval '37 minutes') + interval '24 hours'
            FROM generate_series(1, %(heavy)s) a, generate_series(1, %(heavy_rows)s) t""",
            p,
        )
        step(
            conn,
            "invites (others)",
            """
            INSERT INTO invite (account_id, test_id, status, amount_cents, created_at, expires_at)
            SELECT %(heavy)s + 1 + (g %% %(light_accounts)s), 1 + (g::bigint * 7919) %% %(tests)s,
                   (ARRAY['open','filled','completed','expired','canceled'])[1 + g %% 5], 2000,
                   now() - ((g %% 525600) * interval '1 minute'),
                   now() - ((g %% 525600) * interval '1 minute') + interval '24 hours'
            FROM generate_series(1, %(light_invites)s) g""",
            p,
        )
        step(
            conn,
            "reviews (heavy)",
            """
            INSERT INTO review (test_id, account_id, respondent_key, kind, answers, worker_data, options_order,
                                created_at)
            SELECT t, a, 'account:' || a, 'survey', '{}', '{}', '[]', now() - (t * interval '41 minutes')
            FROM generate_series(1, %(heavy)s) a, generate_series(1, %(heavy_rows)s) t""",
            p,
        )
        # Others: review n -> account heavy+1 + n mod light_accounts, test 1 + n div light_accounts
        # (unique per account).
        step(
            conn,
            "reviews (others)",
            """
            INSERT INTO review (test_id, account_id, respondent_key, kind, answers, worker_data, options_order,
                                created_at)
            SELECT 1 + (g / %(light_accounts)s) %% %(tests)s, %(heavy)s + 1 + (g %% %(light_accounts)s),
                   'account:' || (%(heavy)s + 1 + (g %% %(light_accounts)s)), 'survey', '{}', '{}', '[]',
                   now() - ((g %% 525600) * interval '1 minute')
            FROM generate_series(0, %(light_reviews)s - 1) g""",
            p,
        )
        step(
            conn,
            "rewards",
            """
            INSERT INTO reward (review_id, account_id, amount_cents, status, paid_on, created_at, test_id, product_type)
            SELECT v.id, v.account_id, 2000, (ARRAY['PENDING','EXECUTED','FAILED','CANCELED'])[1 + v.id %% 4],
                   CASE WHEN v.id %% 4 = 1 THEN v.created_at + interval '3 days' END, v.created_at, v.test_id,
                   t.product_type
            FROM review v JOIN test t ON t.id = v.test_id""",
            p,
        )
        for table in ("account", "test", "invite", "review", "reward"):
            conn.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        step(conn, "vacuum analyze", "VACUUM ANALYZE")


def counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        try:
            return {
                t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
                for t in ("account", "invite", "review", "reward")
            }
        except psycopg.Error:
            return {}


# Bare SQL: the same query shapes as the services, hand-written, over one psycopg connection in
# autocommit (what the queries cost without SQLAlchemy, validation, formatting or a transaction).
SEARCH_TESTS = "SELECT id FROM test WHERE name ILIKE %(pattern)s OR product_type ILIKE %(type_pattern)s"
# The rows of the page and the totals in one statement, as the services build it (page_with_totals).
INVITE_PAGE = """SELECT totals.total, totals.total_open, page.*
FROM (SELECT (SELECT count(*) FROM invite WHERE account_id = %(a)s {search}) AS total,
             (SELECT count(*) FROM invite WHERE account_id = %(a)s AND status = 'open' AND expires_at > now()
                AND NOT EXISTS (SELECT 1 FROM screener_response s WHERE s.test_id = invite.test_id
                                AND s.account_id = invite.account_id AND NOT s.is_passed))
               AS total_open
     ) totals
LEFT JOIN (SELECT i.id, i.test_id, i.status, i.amount_cents, i.created_at, i.expires_at, t.product_type, t.status,
                  t.name, EXISTS (SELECT 1 FROM screener_response s WHERE s.test_id = i.test_id
                                  AND s.account_id = i.account_id AND NOT s.is_passed) AS screened_out
           FROM invite i JOIN test t ON t.id = i.test_id
           WHERE i.id IN (SELECT id FROM invite WHERE account_id = %(a)s {search}
                          ORDER BY created_at {dir}, id {dir} LIMIT %(limit)s OFFSET %(offset)s)
             AND i.account_id = %(a)s) page ON true
ORDER BY page.created_at {dir}, page.id {dir}"""
REWARD_PAGE = """SELECT totals.total, page.*
FROM (SELECT (SELECT count(*) FROM reward WHERE account_id = %(a)s {search}) AS total) totals
LEFT JOIN (SELECT r.id, r.amount_cents, r.status, r.paid_on, r.created_at, r.test_id, r.product_type, t.url
           FROM reward r JOIN test t ON t.id = r.test_id
           WHERE r.id IN (SELECT id FROM reward WHERE account_id = %(a)s {search}
                          ORDER BY {column} {dir}, id {dir} LIMIT %(limit)s OFFSET %(offset)s)
             AND r.account_id = %(a)s) page ON true
ORDER BY page.{column} {dir}, page.id {dir}"""
# As the services do for a search (set_config(..., true) there, for the event's transaction).
SEARCH_PLAN = (
    "SELECT set_config('plan_cache_mode', 'force_custom_plan', false), set_config('enable_seqscan', 'off', false)"
)
SEARCH_PLAN_RESET = "SELECT set_config('plan_cache_mode', 'auto', false), set_config('enable_seqscan', 'on', false)"


def _params(account: int, page: int, size: int, search: str) -> dict:
    return {
        "a": account,
        "limit": size,
        "offset": (page - 1) * size,
        "pattern": f"%{search}%",
        "type_pattern": f"%{search.replace(' ', '-')}%",
    }


def bare_invites(conn, account: int, page: int, size: int, ascending: bool, search: str) -> None:
    p = _params(account, page, size, search)
    where = f"AND test_id IN ({SEARCH_TESTS})" if search else ""
    if search:
        conn.execute(SEARCH_PLAN)
    conn.execute(INVITE_PAGE.format(search=where, dir="ASC" if ascending else "DESC"), p).fetchall()
    if search:
        conn.execute(SEARCH_PLAN_RESET)


def bare_rewards(conn, account: int, page: int, size: int, sort_by: str, ascending: bool, search: str) -> None:
    p = _params(account, page, size, search)
    column = "product_type" if sort_by == "testType" else "created_at"
    where = f"AND test_id IN ({SEARCH_TESTS})" if search else ""
    if search:
        conn.execute(SEARCH_PLAN)
    conn.execute(REWARD_PAGE.format(search=where, column=column, dir="ASC" if ascending else "DESC"), p).fetchall()
    if search:
        conn.execute(SEARCH_PLAN_RESET)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def measure(rounds: int, fn: Callable[[], object]) -> list[float]:
    out = []
    for _ in range(rounds):
        started = time.perf_counter()
        fn()
        out.append((time.perf_counter() - started) * 1000)
    return out


def run(url: str, rounds: int, heavy_account: int, light_account: int) -> list[tuple]:
    engine = make_engine(url)
    results = []
    scenarios = [
        ("invites first page (typical participant)", "i", light_account, dict(page=1), ""),
        ("invites first page (heavy participant)", "i", heavy_account, dict(page=1), ""),
        ("invites page 100 (heavy)", "i", heavy_account, dict(page=100), ""),
        ("invites sort Invitation date asc (heavy)", "i", heavy_account, dict(page=1, sort_direction=1), ""),
        ("invites search (heavy)", "i", heavy_account, dict(page=1), "study 12"),
        ("rewards first page (typical participant)", "r", light_account, dict(page=1), ""),
        ("rewards first page (heavy)", "r", heavy_account, dict(page=1), ""),
        ("rewards page 100 (heavy)", "r", heavy_account, dict(page=100), ""),
        ("rewards sort Completion date asc (heavy)", "r", heavy_account, dict(page=1, sort_direction=1), ""),
        ("rewards sort Test type desc (heavy)", "r", heavy_account, dict(page=1, sort_by="testType"), ""),
        (
            "rewards sort Test type asc (heavy)",
            "r",
            heavy_account,
            dict(page=1, sort_by="testType", sort_direction=1),
            "",
        ),
        ("rewards search (heavy)", "r", heavy_account, dict(page=1), "study 12"),
    ]
    with Session(engine) as session, psycopg.connect(url, autocommit=True) as conn:
        for name, kind, account, args, search in scenarios:
            if kind == "i":
                query = invites.clean_query(page_size=50, search=search, **args)

                def service(q=query, a=account):
                    return invites.list_invites(session=session, account_id=a, query=q)

                def bare(q=query, a=account):
                    bare_invites(conn, a, q.page, q.page_size, q.sort_direction == 1, q.search)
            else:
                query = rewards.clean_query(page_size=50, search=search, **args)

                def service(q=query, a=account):
                    return rewards.list_rewards(session=session, account_id=a, query=q)

                def bare(q=query, a=account):
                    bare_rewards(conn, a, q.page, q.page_size, q.sort_by, q.sort_direction == 1, q.search)

            page = service()
            assert page.rows or search or query.page > 1, f"{name}: no rows"
            for _ in range(3):  # warm both paths
                service()
                bare()
            svc_times, bare_times = [], []
            # Interleaved so both see the same cache and load. The service runs on an open session
            # (as inside db.run); the per-event transaction (pool checkout, commit) is not in either figure.
            for _ in range(rounds):
                svc_times += measure(1, service)
                if search:
                    session.rollback()  # SET LOCAL ends with the transaction, as after each event in the app
                bare_times += measure(1, bare)
            session.rollback()
            row = (
                name,
                len(page.rows),
                page.total,
                statistics.median(svc_times),
                percentile(svc_times, 0.95),
                statistics.median(bare_times),
                percentile(bare_times, 0.95),
            )
            results.append(row)
            print(
                f"{name:46s} rows={row[1]:3d} total={row[2]:6d}  service p50 {row[3]:6.2f} p95 {row[4]:6.2f} ms"
                f"  | bare SQL p50 {row[5]:6.2f} p95 {row[6]:6.2f} ms  | p95 ratio {row[4] / row[6]:.2f}",
                flush=True,
            )
    engine.dispose()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=DEFAULT_URL)
    parser.add_argument("--participants", type=int, default=100_000)
    parser.add_argument("--invites", type=int, default=2_000_000)
    parser.add_argument("--reviews", type=int, default=1_000_000)
    parser.add_argument("--tests", type=int, default=8_000)
    parser.add_argument("--heavy", type=int, default=10, help="participants with --heavy-rows invites and rewards")
    parser.add_argument("--heavy-rows", type=int, default=6_000)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--refill", action="store_true", help="drop and fill again even if the sizes match")
    args = parser.parse_args()

    ensure_database(args.url)
    have = counts(args.url)
    want = {"account": args.participants, "invite": args.invites, "review": args.reviews}
    if args.refill or any(have.get(k) != v for k, v in want.items()):
        started = time.perf_counter()
        fill(args.url, args.participants, args.invites, args.reviews, args.tests, args.heavy, args.heavy_rows)
        print(f"filled in {time.perf_counter() - started:.0f} s", flush=True)
    else:
        migrate(args.url)  # new index migrations apply to an existing fill
        with psycopg.connect(args.url, autocommit=True) as conn:
            conn.execute("ANALYZE")
    print(counts(args.url))
    light = args.heavy + 1 + (args.participants - args.heavy) // 2
    run(args.url, args.rounds, heavy_account=1, light_account=light)


if __name__ == "__main__":
    main()
