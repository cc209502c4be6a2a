"""Time to queue a batch of invites with their notifications (issue 38): staff send one batch to 10,000
participants; each chunk's invites, notification rows and outbox e-mails are written in bulk in one transaction.

    .venv/bin/python bench/invite_notifications.py                       # 10,000 participants, fresh SQLite file
    .venv/bin/python bench/invite_notifications.py --database-url postgresql://postgres@127.0.0.1:5432/bench_notify
    .venv/bin/python bench/invite_notifications.py --participants 2000

The database is fresh (SQLite in a temporary directory, or the PostgreSQL database given, dropped and created again)
and migrated with Alembic; the participants are inserted in bulk. Printed: the time from starting the batch
(invites.start_batch, as the invite page does) to the last chunk committed (invites.send_all), the invites, the
notification rows and the e-mails queued, and the rate at which the outbox sender then delivers the first --send of
them to a loopback SMTP server (tests/support/smtp_server.py); beside it the bare baseline, the same number of plain
outbox rows inserted in chunks of 500 (one executemany each, no invite, no notification), in the same database.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, insert, select  # noqa: E402

from bench.payouts import fresh_database, sessions_of  # noqa: E402
from portal.domain.staff import roles  # noqa: E402
from portal.models import Account, Invite, Notification, OutboxEmail, Test  # noqa: E402
from portal.models._base import utcnow  # noqa: E402
from portal.services import mail_sender  # noqa: E402
from portal.services.admin import invites  # noqa: E402
from tests.integration.test_admin_services import bulk_participants  # noqa: E402
from tests.support.smtp_server import SmtpServer  # noqa: E402

CHUNK = 500


def count(scope, model) -> int:
    with scope() as s:
        return int(s.execute(select(func.count()).select_from(model)).scalar_one())


def sender_rate(scope, n: int) -> float:
    """E-mails per second the outbox sender delivers (mail_sender.send_due rounds, one after the other, as a worker
    does with a full outbox) to the loopback SMTP server, over the first `n` e-mails queued."""
    server = SmtpServer().start()
    try:
        target = mail_sender.SmtpTarget("127.0.0.1", server.port, security="none")
        started = time.perf_counter()
        sent = 0
        while sent < n:
            done = asyncio.run(mail_sender.send_due(scope, target))
            if not done:
                break
            sent += done
        elapsed = time.perf_counter() - started
    finally:
        server.stop()
    return sent / elapsed if elapsed else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--database-url", default=None)
    parser.add_argument("--participants", type=int, default=10_000)
    parser.add_argument(
        "--send", type=int, default=1000, help="invite e-mails then delivered to the loopback SMTP server"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        url = fresh_database(args.database_url, Path(tmp))
        scope = sessions_of(url)
        with scope() as s:
            bulk_participants(s, args.participants)
            staff = Account(email="staff@bench.example", password_hash="!", staff_role=roles.TEAM_OWNER, verified=True)
            test = Test(
                name="Bench invites",
                product_type="survey",
                status="running",
                audience_country="US",
                launched_at=utcnow() - timedelta(hours=1),
            )
            s.add_all([staff, test])
            s.flush()
            staff_id, test_id = staff.id, test.id

        started = time.perf_counter()
        with scope() as s:
            batch = invites.start_batch(session=s, actor_id=staff_id, test_id=test_id, criteria={})
        done = invites.send_all(session_factory=scope, actor_id=staff_id, batch_id=batch["id"])
        queued = time.perf_counter() - started
        made = (count(scope, Invite), count(scope, Notification), count(scope, OutboxEmail))

        rate = sender_rate(scope, args.send)

        now = utcnow()
        rows = [
            {
                "to_address": f"base-{i}@bench.example",
                "subject": "A new paid test for you: Survey, $20",
                "body_text": "Hello,\n\n" + "x" * 600,
                "kind": "baseline",
                "created_at": now,
                "attempts": 0,
                "next_attempt_at": now,
            }
            for i in range(args.participants)
        ]
        started = time.perf_counter()
        for start in range(0, len(rows), CHUNK):
            with scope() as s:
                s.execute(insert(OutboxEmail), rows[start : start + CHUNK])
        baseline = time.perf_counter() - started

    dialect = "PostgreSQL" if url.startswith("postgresql") else "SQLite"
    print(f"{dialect}, {args.participants:,} participants; batch {done['status']}, {done['sent']:,} invited")
    print(f"invites {made[0]:,}, notifications {made[1]:,}, e-mails queued {made[2]:,}")
    print(f"invite batch with notifications queued: {queued:7.2f} s")
    print(f"bare baseline, {args.participants:,} plain outbox rows: {baseline:7.2f} s")
    print(f"ratio: {queued / baseline:.1f}x")
    print(f"sender (one worker, send_due rounds back to back) to the loopback SMTP server: {rate:.0f} e-mails/s")


if __name__ == "__main__":
    main()
