"""Time from approval to the rewards link with the payout ledger (issue 37): staff approve 10,000 rewards, the payout
job's rounds order them from Tremendous's stand-in, the stand-in delivers each link --delivery seconds after its order
and posts its signed webhook to a receiver that applies it (payout_runner.receive_webhook), which marks the reward paid.

    .venv/bin/python bench/payouts.py                                  # 10,000 rewards, fresh SQLite file
    .venv/bin/python bench/payouts.py --database-url postgresql://postgres@127.0.0.1:5432/bench_payouts
    .venv/bin/python bench/payouts.py --rewards 2000 --delivery 5 --every 0

The database is fresh (SQLite in a temporary directory, or the PostgreSQL database given, dropped and created again)
and migrated with Alembic. The rewards are seeded as submitted reviews, then approved with the staff service
(reviews.decide, 500 at a time, as /admin/reviews does). The job's rounds run in this process one after the other
(--every seconds apart, 0 by default; every worker of the portal runs one every PAYOUT_EVERY_SECONDS), each ordering
up to 500 due rewards 8 at once (run_round's defaults), through the SDK-backed provider, over HTTP, to the stand-in
(tests/support/payout_standin.py) served alone on loopback with its delivery loop.

Printed: from the first approval to the last order and to the last link delivered (the reward paid); per reward,
approval -> ordered and approval -> paid at p50 / p95 / max; the number of rounds, and what the same rounds take
when a single worker runs them every 60 s. Beside it, the bare baseline: the same number of orders placed straight
through the provider (8 at once, no ledger, no database) on a stand-in of its own, and until the stand-in posted
the last delivery webhook (to a receiver that only records it).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from alembic.config import Config  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from sqlmodel import Session  # noqa: E402

from alembic import command  # noqa: E402
from portal.db import make_engine  # noqa: E402
from portal.domain.staff import roles  # noqa: E402
from portal.models import Account, Review, Reward, Test  # noqa: E402
from portal.services import payout_runner  # noqa: E402
from portal.services.admin import reviews  # noqa: E402
from portal.services.providers.payouts import TremendousProvider  # noqa: E402
from tests.support.payout_standin import PayoutStandin, WebhookReceiver  # noqa: E402

CHUNK = 500  # reviews.MAX_BULK: what staff approve at once
CADENCE = 60  # PAYOUT_EVERY_SECONDS's default


def fresh_database(url: str | None, tmp: Path) -> str:
    if url is None:
        url = f"sqlite:///{tmp / 'bench-payouts.db'}"
    else:
        import psycopg

        base, name = url.rsplit("/", 1)
        with psycopg.connect(f"{base}/postgres", autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{name}"')
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("sqlalchemy.url", url)
    config.attributes["configure_logging"] = False
    command.upgrade(config, "head")
    return url


def sessions_of(url: str) -> Callable[[], Any]:
    engine = make_engine(url)

    @contextmanager
    def scope() -> Iterator[Session]:
        with Session(engine, expire_on_commit=False) as s:
            try:
                yield s
                s.commit()
            except BaseException:
                s.rollback()
                raise

    return scope


def seed(scope: Callable[[], Any], n: int) -> tuple[int, list[int]]:
    """A staff member, one survey test and n participants with a submitted review of it (a $25 reward each)."""
    with scope() as s:
        staff = Account(email="staff@bench.example", password_hash="!", staff_role=roles.TEAM_OWNER, verified=True)
        test = Test(name="Bench payouts", product_type="survey", status="running")
        s.add_all([staff, test])
        s.flush()
        people = [
            Account(email=f"p{i}@bench.example", password_hash="!", verified=True, is_registration_complete=True)
            for i in range(n)
        ]
        s.add_all(people)
        s.flush()
        found = [
            Review(test_id=test.id, account_id=a.id, respondent_key=f"account:{a.id}", kind="survey") for a in people
        ]
        s.add_all(found)
        s.flush()
        s.add_all([Reward(review_id=r.id, account_id=r.account_id, amount_cents=2500) for r in found])
        return staff.id, [r.id for r in found]


def approve(scope: Callable[[], Any], staff_id: int, review_ids: list[int]) -> None:
    for start in range(0, len(review_ids), CHUNK):
        with scope() as s:
            reviews.decide(session=s, actor_id=staff_id, review_ids=review_ids[start : start + CHUNK], approve=True)


class Receiver:
    """The portal's webhook route in miniature: each POST goes to payout_runner.receive_webhook."""

    def __init__(self, scope: Callable[[], Any]) -> None:
        self.provider: TremendousProvider | None = None
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k.lower(): v for k, v in self.headers.items()}
                status = payout_runner.receive_webhook(body, headers, provider=receiver.provider, sessions=scope)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/webhooks/tremendous"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()


def utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def wait_for(done: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def ledger(args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    url = fresh_database(args.database_url, tmp)
    scope = sessions_of(url)
    started = time.perf_counter()
    staff_id, review_ids = seed(scope, args.rewards)
    print(f"  seeded {args.rewards} submitted reviews: {time.perf_counter() - started:.1f} s", flush=True)
    receiver = Receiver(scope)
    rounds: list[float] = []
    with PayoutStandin(
        tmp / "standin-ledger.db", webhook_url=receiver.url, delivery_seconds=args.delivery, loop=True
    ) as standin:
        receiver.provider = standin.provider(timeout=30)
        t0 = time.perf_counter()
        approve(scope, staff_id, review_ids)
        approved = time.perf_counter() - t0
        print(f"  approved in {approved:.1f} s ({args.rewards // CHUNK or 1} x reviews.decide)", flush=True)
        while True:
            begun = time.perf_counter()
            done = payout_runner.run_round(provider=receiver.provider, sessions=scope)
            rounds.append(time.perf_counter() - begun)
            line = f"  round {len(rounds)}: {done.ordered} ordered, {done.failed} failed, {rounds[-1]:.1f} s"
            print(line, flush=True)
            if done.ordered == 0 and done.failed == 0:
                break
            if args.every:
                time.sleep(args.every)

        def paid() -> bool:
            with scope() as s:
                return s.exec(select(func.count()).where(Reward.status == "EXECUTED")).one()[0] >= args.rewards

        all_paid = wait_for(paid, timeout=args.delivery + 600)
    receiver.stop()
    with scope() as s:
        rows = s.execute(
            select(Reward.approved_at, Reward.ordered_at, Reward.sent_at, Reward.paid_on).where(
                Reward.account_id.is_not(None)
            )
        ).all()
    first = min(utc(a) for a, _, _, _ in rows)
    ordered = [(utc(o) - utc(a)).total_seconds() for a, o, _, _ in rows if o is not None]
    sent_at = [utc(x) for _, _, x, _ in rows if x is not None]
    paid_in = [(utc(p) - utc(a)).total_seconds() for a, _, _, p in rows if p is not None]
    return {
        "database": "PostgreSQL" if url.startswith("postgres") else "SQLite",
        "all_paid": all_paid,
        "count": len(rows),
        "ordered": len(ordered),
        "paid": len(paid_in),
        "rounds": rounds,
        "to_last_order": (max(sent_at) - first).total_seconds() if sent_at else float("nan"),
        "to_last_paid": (max(utc(p) for *_, p in rows if p is not None) - first).total_seconds()
        if paid_in
        else float("nan"),
        "order_each": ordered,
        "paid_each": paid_in,
    }


def baseline(args: argparse.Namespace, tmp: Path) -> tuple[float, float]:
    """The same number of orders straight through the provider (8 at once), and until the last delivery webhook."""
    receiver = WebhookReceiver().start()
    try:
        with PayoutStandin(
            tmp / "standin-bare.db", webhook_url=receiver.url, delivery_seconds=args.delivery, loop=True
        ) as standin:
            provider = standin.provider(timeout=30)
            t0 = time.perf_counter()

            def one(i: int) -> None:
                provider.order(
                    external_id=f"BARE{i:08d}",
                    amount_cents=2500,
                    currency="USD",
                    email=f"p{i}@bench.example",
                    name="Bench",
                )

            with ThreadPoolExecutor(max_workers=8) as pool:
                list(pool.map(one, range(args.rewards)))
            ordered = time.perf_counter() - t0

            def delivered() -> bool:
                with receiver.lock:
                    return len(receiver.received) >= args.rewards

            wait_for(delivered, timeout=args.delivery + 600)
            return ordered, time.perf_counter() - t0
    finally:
        receiver.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rewards", type=int, default=10_000)
    parser.add_argument("--delivery", type=float, default=5.0, help="seconds from an order to its link delivered")
    parser.add_argument("--every", type=float, default=0.0, help="seconds between two rounds of the job")
    parser.add_argument("--database-url", default=None, help="PostgreSQL (dropped and created); SQLite when omitted")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-payouts-") as name:
        tmp = Path(name)
        print(f"ledger: {args.rewards} rewards, delivery after {args.delivery:g} s", flush=True)
        found = ledger(args, tmp)
        print("bare: the same orders straight to the stand-in", flush=True)
        bare_order, bare_link = baseline(args, tmp)
    rounds = found["rounds"]
    # One worker every CADENCE seconds: each round after the first waits CADENCE s (the last one finds nothing).
    at_cadence = (len(rounds) - 2) * CADENCE + sum(rounds[:-1]) if len(rounds) > 1 else 0.0
    print()
    print(f"{found['database']}, {found['count']} rewards approved, delivery after {args.delivery:g} s")
    print(f"  ordered {found['ordered']}, paid {found['paid']}{'' if found['all_paid'] else ' (NOT ALL PAID)'}")
    print(f"  rounds: {len(rounds)} ({', '.join(f'{r:.1f}' for r in rounds)} s)")
    print(f"  first approval -> last order: {found['to_last_order']:.1f} s")
    print(f"  first approval -> last link delivered (paid): {found['to_last_paid']:.1f} s")
    for label, values in (("approval -> ordered", found["order_each"]), ("approval -> paid", found["paid_each"])):
        if values:
            print(
                f"  per reward, {label}: p50 {statistics.median(values):.1f} s, p95 {pct(values, 0.95):.1f} s, "
                f"max {max(values):.1f} s"
            )
    print(f"  the same rounds by one worker every {CADENCE} s: last order after about {at_cadence / 60:.1f} min")
    print(f"bare: {args.rewards} orders in {bare_order:.1f} s; last delivery webhook after {bare_link:.1f} s")


if __name__ == "__main__":
    main()
