"""The REST API's list endpoints under load (issue 39): p50/p95 at a steady 200 requests a second, beside a bare
FastAPI route measured in the same run.

    .venv/bin/python bench/api_lists.py                        # SQLite (the embedded default), 15 s per endpoint
    .venv/bin/python bench/api_lists.py --seconds 30 --rate 200
    .venv/bin/python bench/api_lists.py --database-url postgresql://postgres@127.0.0.1:5432/bench_api

A fresh database is migrated with Alembic and filled (the demo data, then participants, tests, invites, reviews and
rewards inserted in bulk); a super-admin's key with every scope is made through the real service. Two servers run
on loopback, each one uvicorn process with one worker: the portal's own FastAPI app (`portal.http.app.build_api`,
every middleware of the API included) and a bare FastAPI app whose one route answers a list of the same length
from memory (no key, no database): the floor of HTTP, JSON and uvicorn on this machine. The load is open-loop: a
request is started every 1/rate seconds whether or not the earlier ones have answered (a slow server queues, and
its latency shows it), so the figures are latencies at that rate, not at whatever rate the server keeps up with.
Each endpoint, then the bare route, in turns (round-robin per round), so load from elsewhere spreads over all.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiohttp
import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

LISTS = ("/api/v1/tests", "/api/v1/reviews", "/api/v1/rewards", "/api/v1/participants")
BARE_APP = """
from fastapi import FastAPI
app = FastAPI()
ROWS = [{"id": i, "name": f"row {i}", "status": "approved", "created_at": "2026-12-01T10:00:00Z"} for i in range(50)]
@app.get("/bare")
async def bare():
    return {"data": ROWS, "next_cursor": "djE6MTIz"}
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fill(database_url: str, participants: int, reviews: int) -> str:
    """Migrate, seed the demo data, add rows in bulk; return a key with every scope."""
    env = {**os.environ, "DATABASE_URL": database_url}
    for command in (["migrate"], ["seed-demo"]):
        subprocess.run(
            [sys.executable, "-m", "portal.cli", *command], env=env, cwd=ROOT, check=True, capture_output=True
        )
    from sqlalchemy import func, insert, select, update
    from sqlmodel import Session

    from portal.db import make_engine
    from portal.domain import api_keys
    from portal.models import Account, Invite, Review, Reward, Test, TestVersion
    from portal.services.admin.api_keys import create_key

    engine = make_engine(database_url)
    now = datetime.now(UTC)
    with Session(engine) as session:
        admin = session.exec(select(Account).where(Account.staff_role == "super-admin")).scalars().first()
        if admin is None:
            admin = Account(email="bench-admin@example.com", staff_role="super-admin", verified=True)
            session.add(admin)
            session.flush()
        tests = [t.id for t in session.exec(select(Test)).scalars().all()]
        # Each review on its test's newest version, sealed as a version someone took is.
        newest = dict(
            session.execute(select(TestVersion.test_id, func.max(TestVersion.id)).group_by(TestVersion.test_id)).all()
        )
        session.execute(update(TestVersion).where(TestVersion.id.in_(list(newest.values()))).values(sealed=True))
        first = session.execute(select(Account.id).order_by(Account.id.desc()).limit(1)).scalar_one() + 1
        session.execute(
            insert(Account),
            [
                {
                    "email": f"bench{first + i}@example.com",
                    "verified": i % 3 != 0,
                    "is_registration_complete": True,
                    "stage": "complete",
                    "created_at": now - timedelta(minutes=i),
                    "updated_at": now,
                    "signup_tracking": {},
                }
                for i in range(participants)
            ],
        )
        people = list(range(first, first + participants))
        session.execute(
            insert(Invite),
            [
                {
                    "account_id": people[i % participants],
                    "test_id": tests[i % len(tests)],
                    "status": "open",
                    "amount_cents": 2000,
                    "created_at": now - timedelta(minutes=i),
                    "expires_at": now + timedelta(days=7),
                }
                for i in range(reviews)
            ],
        )
        statuses = ("submitted", "approved", "rejected")
        session.execute(
            insert(Review),
            [
                {
                    "test_id": tests[i % len(tests)],
                    "version_id": newest.get(tests[i % len(tests)]),
                    "account_id": people[i % participants],
                    "respondent_key": f"account:{people[i % participants]}:{i}",
                    "kind": "survey",
                    "answers": {"q": {"type": "short-text", "value": f"answer {i}"}},
                    "worker_data": {},
                    "options_order": [],
                    "signals": {},
                    "status": statuses[i % 3],
                    "created_at": now - timedelta(seconds=i),
                }
                for i in range(reviews)
            ],
        )
        review_ids = session.execute(select(Review.id).order_by(Review.id.desc()).limit(reviews)).scalars().all()
        session.execute(
            insert(Reward),
            [
                {
                    "review_id": rid,
                    "account_id": people[n % participants],
                    "amount_cents": 2000,
                    "status": "PENDING",
                    "created_at": now - timedelta(seconds=n),
                    "kind": "review",
                }
                for n, rid in enumerate(review_ids)
            ],
        )
        created = create_key(
            session, actor_id=admin.id, name="bench", scopes=list(api_keys.SCOPES), rate_per_minute=api_keys.RATE_MAX
        )
        session.commit()
    return created.key


def serve(app: str, port: int, env: dict[str, str], cwd: Path, workers: int = 1) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            app,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--log-level",
            "warning",
            "--no-access-log",
            "--workers",
            str(workers),
            "--timeout-keep-alive",
            "120",
            *(["--factory"] if app.endswith("build_api") else []),
        ],
        env=env,
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=1)
            return proc
        except httpx.TransportError:
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"{app} did not start: {proc.stderr.read().decode() if proc.stderr else ''}")


async def load(
    client: aiohttp.ClientSession, url: str, headers: dict[str, str], rate: int, seconds: float, failed: list[str]
) -> list[float]:
    """Open-loop: one request every 1/rate s for `seconds`; the latency of each answered request (s). A request that
    fails (no answer, or not 200) is added to `failed`; a non-200 answer stops the run (the bench is wrong)."""
    latencies: list[float] = []
    errors: list[str] = []

    async def one() -> None:
        started = time.perf_counter()
        try:
            async with client.get(url, headers=headers) as answer:
                body = await answer.read()
                status = answer.status
        except (TimeoutError, aiohttp.ClientError) as error:  # an overloaded server drops connections
            failed.append(f"{type(error).__name__}")
            return
        latencies.append(time.perf_counter() - started)
        if status != 200:
            errors.append(f"{status} {body[:200]!r}")

    tasks = []
    start = time.perf_counter()
    for n in range(int(rate * seconds)):
        delay = start + n / rate - time.perf_counter()
        if delay > 0:
            await asyncio.sleep(delay)
        tasks.append(asyncio.create_task(one()))
    await asyncio.gather(*tasks)
    if errors:
        raise RuntimeError(f"{url}: {len(errors)} failed, e.g. {errors[0]}")
    return latencies


def quantile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q * 100) - 1]


async def measure(
    targets: dict[str, tuple[str, dict[str, str]]], rate: int, seconds: float, rounds: int
) -> tuple[dict[str, list[float]], dict[str, list[str]], dict[str, float]]:
    """Each target's latencies, failures and achieved rate (answers a second of load)."""
    found: dict[str, list[float]] = {name: [] for name in targets}
    failed: dict[str, list[str]] = {name: [] for name in targets}
    spent: dict[str, float] = dict.fromkeys(targets, 0.0)
    # aiohttp's client: a request costs the load generator (on the same two cores) a fraction of httpx's.
    connector = aiohttp.TCPConnector(limit=400)
    async with aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60)) as client:
        for url, headers in targets.values():  # warm-up
            await load(client, url, headers, rate, 2, [])
        for _ in range(rounds):
            for name, (url, headers) in targets.items():
                started = time.perf_counter()
                found[name] += await load(client, url, headers, rate, seconds / rounds, failed[name])
                spent[name] += time.perf_counter() - started
    return found, failed, {name: len(found[name]) / spent[name] for name in targets}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=15.0, help="per endpoint, over all rounds")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--participants", type=int, default=5000)
    parser.add_argument("--reviews", type=int, default=20000)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--workers", type=int, default=1, help="the portal's uvicorn workers (the bare app has one)")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="bench-api-"))
    database_url = args.database_url or f"sqlite:///{work}/bench.db"
    if database_url.startswith("postgresql"):
        from sqlalchemy import create_engine, text

        base, name = database_url.rsplit("/", 1)
        with create_engine(f"{base}/postgres", isolation_level="AUTOCOMMIT").connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}"'))
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    key = fill(database_url, args.participants, args.reviews)
    (work / "bare_app.py").write_text(BARE_APP)
    env = {**os.environ, "DATABASE_URL": database_url, "REDIS_URL": "", "SENTRY_DSN": ""}
    portal_port, bare_port = free_port(), free_port()
    servers = [
        serve("portal.http.app:build_api", portal_port, env, ROOT, args.workers),
        serve("bare_app:app", bare_port, env, work),
    ]
    try:
        auth = {"Authorization": f"Bearer {key}"}
        targets = {path: (f"http://127.0.0.1:{portal_port}{path}", auth) for path in LISTS}
        missing = [p for p, (url, h) in targets.items() if httpx.get(url, headers=h, timeout=30).status_code == 404]
        for path in missing:
            del targets[path]
        targets["bare FastAPI route"] = (f"http://127.0.0.1:{bare_port}/bare", {})
        found, failed, achieved = asyncio.run(measure(targets, args.rate, args.seconds, args.rounds))
    finally:
        for proc in servers:
            proc.terminate()
            proc.wait(timeout=30)
    bare95 = quantile(found["bare FastAPI route"], 0.95)
    dialect = database_url.split(":")[0]
    print(
        f"{dialect}; {args.rate} req/s, {args.seconds:g} s per endpoint, {args.rounds} rounds, "
        f"{args.workers} portal worker(s)"
    )
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (the load generator shares them)")
    print("| endpoint | answered | failed | answers/s | p50 ms | p95 ms | p95 / bare |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for name, values in found.items():
        p50, p95 = statistics.median(values) * 1000, quantile(values, 0.95) * 1000
        print(
            f"| {name} | {len(values):,} | {len(failed[name]):,} | {achieved[name]:.0f} | {p50:.1f} | {p95:.1f} "
            f"| {p95 / 1000 / bare95:.1f} |"
        )
    if missing:
        print("not served (404):", ", ".join(missing))


if __name__ == "__main__":
    main()
